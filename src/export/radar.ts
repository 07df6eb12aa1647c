/**
 * Radar (docs/reports.md#radar): apps the service found on the devices of a tenant that no flow
 * packsync owns covers, with device counts per version and the catalog app they match. One radar
 * list read per tenant; a tenant whose read fails is named and the others are still read.
 */
import type { PacksyncApi } from '../api/operations.js';
import type { V1AppViewModel, V1RadarAppViewModel, V1TenantViewModel } from '../api/wire/index.js';
import { collectAll } from '../api/paging.js';
import { mapLimit } from '../util/map-limit.js';
import { errorCode, errorMessage } from '../util/errors.js';

export interface RadarApp {
  tenantId: string;
  tenant: string;
  name: string;
  publisher: string;
  deviceCount: number;
  versions: { version: string; deviceCount: number }[];
  /** The catalog app it matches (the service's match, else the same name), or null. */
  catalog: { id: string; name: string; latestVersion: string; machineScope: boolean } | null;
}

export interface MissingTenant {
  tenantId: string;
  tenant: string;
  error: string;
}

export interface RadarResult {
  apps: RadarApp[];
  /** Tenants whose radar could not be read (the report says so). */
  missing: MissingTenant[];
}

/** What owned flows cover: catalog app ids (of the flows and of their packages) and app names (lowercase). */
export interface Coverage {
  appIds: Set<string>;
  names: Set<string>;
}

export function tenantName(t: Pick<V1TenantViewModel, 'displayName' | 'defaultDomain' | 'id'>): string {
  return t.displayName || t.defaultDomain || t.id;
}

export async function readUnmanagedRadar(
  api: PacksyncApi,
  tenants: V1TenantViewModel[],
  catalog: V1AppViewModel[],
  covered: Coverage,
): Promise<RadarResult> {
  const byId = new Map(catalog.map((a) => [a.id, a]));
  const byName = new Map(catalog.map((a) => [a.name.toLowerCase(), a]));
  const missing: MissingTenant[] = [];
  const perTenant = await mapLimit(tenants, 4, async (t) => {
    try {
      return (await radarOf(api, t.id)).map((r) => toApp(t, r, byId, byName));
    } catch (e) {
      missing.push({ tenantId: t.id, tenant: tenantName(t), error: `${errorCode(e)}: ${errorMessage(e)}` });
      return [];
    }
  });
  const apps = perTenant
    .flat()
    .filter((a) => !isCovered(a, covered))
    .sort((a, b) => a.tenant.localeCompare(b.tenant) || b.deviceCount - a.deviceCount || a.name.localeCompare(b.name));
  missing.sort((a, b) => a.tenant.localeCompare(b.tenant));
  return { apps, missing };
}

async function radarOf(api: PacksyncApi, tenantId: string): Promise<V1RadarAppViewModel[]> {
  const first = await api.listRadarApps(tenantId, { disablePaging: true });
  const total = first.pagination?.totalCount;
  if (total === undefined || first.items.length >= total) return first.items;
  // A service that ignores disablePaging: walk its pages (the client learns the page base).
  return collectAll((req) => api.listRadarApps(tenantId, req));
}

function toApp(
  t: V1TenantViewModel,
  r: V1RadarAppViewModel,
  byId: Map<string, V1AppViewModel>,
  byName: Map<string, V1AppViewModel>,
): RadarApp {
  const match = (r.matchedAppId ? byId.get(r.matchedAppId) : undefined) ?? byName.get(r.name.toLowerCase());
  return {
    tenantId: t.id,
    tenant: tenantName(t),
    name: r.name,
    publisher: r.publisher,
    deviceCount: r.deviceCount,
    versions: r.entries.map((e) => ({ version: e.version, deviceCount: e.deviceCount })),
    catalog: match ? { id: match.id, name: match.name, latestVersion: match.latestVersion, machineScope: match.machineScope } : null,
  };
}

function isCovered(a: RadarApp, c: Coverage): boolean {
  if (a.catalog && (c.appIds.has(a.catalog.id) || c.names.has(a.catalog.name.toLowerCase()))) return true;
  return c.names.has(a.name.toLowerCase());
}
