/**
 * Reads what the evidence report needs (docs/reports.md#what-it-reads): tenants, the catalog, the
 * owned flows' details (deployments and waves), the packages, each rolled-out app's versions (for
 * release times), the wave live data of each flow's current deployment, and each tenant's radar.
 * Rollouts come from the state's history merged with the live deployments, so a rollout the
 * history never saw (started before history was kept, or by the service) is still reported.
 */
import type { PacksyncApi } from '../api/operations.js';
import type { V1DeploymentViewModel, V1FlowDetailsViewModel, V1PackageViewModel, V1TenantViewModel } from '../api/wire/index.js';
import type { Inventory } from '../state/inventory-types.js';
import type { History, HistoryGateEntry, RolloutHistory, TenantCounts, WaveReached } from '../state/history.js';
import { mapLimit } from '../util/map-limit.js';
import { PacksyncError, errorCode, errorMessage } from '../util/errors.js';
import { readUnmanagedRadar, tenantName } from './radar.js';
import type { Coverage } from './radar.js';
import { buildReport, releaseKey, rolloutTimes } from './report-model.js';
import type { Report, RolloutFacts, UnreadFlow, UnreadLive } from './report-model.js';

export class ReportError extends PacksyncError<'REPORT_UNKNOWN_TENANT'> {}

export interface ReportInput {
  api: PacksyncApi;
  inventory: Inventory;
  /** The period, decided once the service's clock is known (its `Date` header): defaults are relative to it. */
  period: (serviceNow: Date) => { from: Date; to: Date };
  /** Tenant id, default domain or display name. */
  tenant?: string | undefined;
  /** Catalog app names git's packages and flows name (covered for radar even before they are applied). */
  coveredNames?: string[];
  now: Date;
}

/** Tenants, filtered by `--tenant` (id, domain or display name; case-insensitive). */
export function pickTenants(all: V1TenantViewModel[], wanted: string | undefined): V1TenantViewModel[] {
  if (!wanted) return all;
  const w = wanted.toLowerCase();
  const hit = all.filter((t) => [t.id, t.defaultDomain, t.displayName].some((x) => x.toLowerCase() === w));
  if (hit.length === 0)
    throw new ReportError(
      'REPORT_UNKNOWN_TENANT',
      `--tenant "${wanted}" names no tenant; tenants: ${all.map((t) => t.defaultDomain || t.id).join(', ')}`,
    );
  return hit;
}

export async function readReport(input: ReportInput): Promise<Report> {
  const { api, inventory } = input;
  const [allTenants, catalog, packages] = await Promise.all([
    api.listTenants({ disablePaging: true }).then((p) => p.items),
    api.searchApps({ disablePaging: true }).then((p) => p.items),
    api.listPackages({ disablePaging: true }).then((p) => p.items),
  ]);
  const tenants = pickTenants(allTenants, input.tenant);
  // The period is fixed once the service's clock is known (the first answers carry it); rollouts
  // outside it cost no wave live or catalog read.
  const now = api.serviceTime?.() ?? input.now;
  const { from, to } = input.period(now);
  const { flows, unread } = await ownedFlows(api, inventory);
  const all = mergeRollouts(inventory, flows, new Map(packages.map((p) => [p.id, p])));
  markUnread(all, unread, inventory);
  const rollouts = all.filter((r) => inPeriod(r, from, to));
  const missingReads = await addLiveCounts(api, flows, rollouts);
  const releases = await readReleases(api, rollouts, missingReads);
  const covered = coverage(flows, packages, input.coveredNames ?? [], catalog);
  coverUnread(covered, unread, inventory, catalog);
  const radar = await readUnmanagedRadar(api, tenants, catalog, covered);
  return buildReport({
    generatedAt: now.toISOString(),
    from,
    to,
    tenants: tenants.map((t) => ({ id: t.id, name: tenantName(t), domain: t.defaultDomain })),
    rollouts,
    releases,
    drift: inventory.history?.drift ?? [],
    radar,
    missingFlows: unread,
    missingReads,
  });
}

export interface OwnedFlows {
  flows: V1FlowDetailsViewModel[];
  /** Flows whose read failed: what they would have said is unknown, never taken as a deletion. */
  unread: UnreadFlow[];
}

export async function ownedFlows(api: PacksyncApi, inventory: Inventory): Promise<OwnedFlows> {
  const ids = new Set<string>();
  const names = new Map<string, string>();
  for (const e of Object.values(inventory.objects)) {
    if (e.kind === 'Flow') {
      ids.add(e.id);
      names.set(e.id, e.name);
    }
    if (e.kind === 'Deployment' && e.flowId) ids.add(e.flowId);
  }
  const unread: UnreadFlow[] = [];
  const got = await mapLimit([...ids], 4, (id) =>
    api.getFlow(id).catch((e: unknown) => {
      // Only a 404 says the flow was deleted since (pruned, replaced); its history still reports. Any
      // other failure is a read that did not happen (docs/reports.md#a-flow-read-that-fails).
      const error = failedRead(e);
      if (error) unread.push({ flowId: id, flow: names.get(id) ?? id, error });
      return null;
    }),
  );
  unread.sort((a, b) => a.flow.localeCompare(b.flow));
  return { flows: got.filter((f): f is V1FlowDetailsViewModel => f !== null && !f.deleted), unread };
}

function mergeRollouts(inventory: Inventory, flows: V1FlowDetailsViewModel[], packages: Map<string, V1PackageViewModel>): RolloutFacts[] {
  const keys = new Map<string, string>();
  // A flow's manifest name, as the history and the agent's /status name it (its display name only
  // for a flow no state key owns): the report's `deployment` and `flow` do not change when the
  // history records a rollout it showed from the live deployment until then.
  const flowNames = new Map<string, string>();
  for (const [key, e] of Object.entries(inventory.objects)) {
    if (e.kind === 'Deployment') keys.set(e.id, key);
    if (e.kind === 'Flow') flowNames.set(e.id, e.name);
  }
  const out = new Map<string, RolloutFacts>();
  for (const h of inventory.history?.rollouts ?? []) out.set(h.deploymentId, fromHistory(h));
  const early = earlyWaves(inventory.history);
  const earlyGates = new Map<string, HistoryGateEntry[]>();
  for (const g of inventory.history?.earlyGates ?? []) earlyGates.set(g.deploymentId, [...(earlyGates.get(g.deploymentId) ?? []), g.entry]);
  for (const f of flows) {
    const waves = [...f.waves].sort((a, b) => a.index - b.index).map((w) => [...w.tenantIds]);
    for (const d of f.deployments) {
      if (!d.startedAt) continue;
      const known = out.get(d.id);
      if (known) Object.assign(known, liveFields(d));
      else {
        const owner = { key: keys.get(d.id), flow: flowNames.get(f.id) ?? f.name };
        const r = fromLive(d, f, waves, owner, packages.get(d.packageId));
        // A wave packsync moved it into before the history recorded it keeps the skip's time.
        for (const w of early.get(d.id) ?? []) r.reached.push({ wave: w.wave, at: w.at, by: w.by });
        // A promote (with its reason) made before the history recorded the rollout is shown too.
        r.gates.push(...(earlyGates.get(d.id) ?? []));
        out.set(d.id, r);
      }
    }
  }
  markRemoved(out, flows);
  return [...out.values()];
}

/**
 * A recorded rollout that its flow, read now, no longer lists was removed by the service (a newer
 * version superseded it past `supersedenceHistoryCount`); said as such rather than left unknown.
 * A flow not read (deleted since) says nothing, so its rollouts stay unknown.
 */
function markRemoved(out: Map<string, RolloutFacts>, flows: V1FlowDetailsViewModel[]): void {
  const read = new Map(flows.map((f) => [f.id, new Set(f.deployments.map((d) => d.id))]));
  for (const r of out.values()) {
    const live = r.flowId ? read.get(r.flowId) : undefined;
    if (r.status === null && live && !live.has(r.deploymentId)) r.status = 'Removed';
  }
}

/**
 * A recorded rollout of a flow whose read failed: its status is `Unknown`, not the `null` of a flow
 * deleted since (the read says nothing either way). A rollout the history never recorded cannot be
 * told at all: the report names the flow (`missingFlows`) so its absence is not read as "none".
 */
function markUnread(rollouts: RolloutFacts[], unread: UnreadFlow[], inventory: Inventory): void {
  if (unread.length === 0) return;
  const ids = new Set(unread.map((u) => u.flowId));
  for (const r of rollouts) {
    // An older history has no flow id: the owning Deployment key's flow says which flow it is.
    const flowId = r.flowId ?? inventory.objects[r.key]?.flowId;
    if (r.status === null && flowId && ids.has(flowId)) r.status = 'Unknown';
  }
}

/**
 * What a flow whose read failed covers for radar, from the state: the catalog apps of its recorded
 * rollouts and the app its applied spec names. Without it an owned app would be listed as unmanaged.
 */
export function coverUnread(covered: Coverage, unread: UnreadFlow[], inventory: Inventory, catalog: { id: string; name: string }[]): void {
  if (unread.length === 0) return;
  const ids = new Set(unread.map((u) => u.flowId));
  for (const h of inventory.history?.rollouts ?? []) if (h.appId && ids.has(h.flowId)) covered.appIds.add(h.appId);
  const byName = new Map(catalog.map((a) => [a.name.toLowerCase(), a.id]));
  for (const e of Object.values(inventory.objects)) {
    const app = (e.spec as { app?: unknown } | null)?.app;
    if (e.kind !== 'Flow' || !ids.has(e.id) || typeof app !== 'string') continue;
    covered.names.add(app.toLowerCase());
    const id = byName.get(app.toLowerCase());
    if (id) covered.appIds.add(id);
  }
}

/** The history's early waves (state/history.ts `History.early`) by deployment id. */
function earlyWaves(h: History | undefined): Map<string, WaveReached[]> {
  const by = new Map<string, WaveReached[]>();
  for (const w of h?.early ?? []) by.set(w.deploymentId, [...(by.get(w.deploymentId) ?? []), w]);
  return by;
}

function fromHistory(h: RolloutHistory): RolloutFacts {
  return {
    deploymentId: h.deploymentId,
    key: h.key,
    flow: h.flow,
    flowId: h.flowId,
    app: h.app,
    ...(h.appId ? { appId: h.appId } : {}),
    version: h.version,
    waves: h.waves,
    status: null,
    waveCount: h.waves.length,
    startedAt: h.startedAt,
    reached: h.reached,
    completedAt: h.completedAt ?? null,
    stoppedAt: h.stoppedAt ?? null,
    gates: h.gates,
    counts: h.counts ? { source: 'recorded', ...h.counts } : null,
  };
}

/** What the live deployment says now wins over what history saw last. */
function liveFields(d: V1DeploymentViewModel): Partial<RolloutFacts> {
  return {
    status: d.status,
    waveCount: d.waveCount,
    ...(d.completedAt ? { completedAt: d.completedAt } : {}),
    ...(d.status === 'Stopped' && d.stoppedAt ? { stoppedAt: d.stoppedAt } : {}),
  };
}

function fromLive(
  d: V1DeploymentViewModel,
  f: V1FlowDetailsViewModel,
  waves: string[][],
  owner: { key: string | undefined; flow: string },
  p: V1PackageViewModel | undefined,
): RolloutFacts {
  // Without history only the start (wave 1) and, when complete, the end are known.
  const reached = [{ wave: 1, at: d.startedAt!, by: 'service' }];
  return {
    deploymentId: d.id,
    key: owner.key ?? `Flow/${owner.flow}@${d.version}`,
    flow: owner.flow,
    flowId: f.id,
    app: p?.productName ?? f.name,
    ...(p?.appId ? { appId: p.appId } : {}),
    version: d.version,
    waves,
    status: d.status,
    waveCount: d.waveCount,
    startedAt: d.startedAt,
    reached,
    completedAt: d.completedAt,
    stoppedAt: d.status === 'Stopped' ? d.stoppedAt : null,
    gates: [],
    counts: null,
  };
}

/** A failed read's words in the report: code and message; a 404 (nothing there to read) is no failure. */
function failedRead(e: unknown): string | null {
  return errorCode(e) === 'API_NOT_FOUND' ? null : `${errorCode(e)}: ${errorMessage(e)}`;
}

/**
 * Wave live data shows a flow's current deployment only: its counts replace the recorded ones. A
 * wave whose read fails is named (the recorded counts, or none, stand), never silently left out.
 */
async function addLiveCounts(api: PacksyncApi, flows: V1FlowDetailsViewModel[], rollouts: RolloutFacts[]): Promise<UnreadLive[]> {
  const byId = new Map(rollouts.map((r) => [r.deploymentId, r]));
  const flowOf = new Map(rollouts.flatMap((r) => (r.flowId ? [[r.flowId, r.flow] as const] : [])));
  const waves = flows.flatMap((f) => (f.deployments.some((d) => byId.has(d.id)) ? f.waves.map((w) => ({ w, f })) : []));
  const unread: UnreadLive[] = [];
  const reads = await mapLimit(waves, 4, ({ w, f }) =>
    api.getWaveLive(w.id).catch((e: unknown) => {
      const error = failedRead(e);
      if (error) unread.push({ what: `live counts of wave ${w.index} of flow ${flowOf.get(f.id) ?? f.name}`, error });
      return null;
    }),
  );
  for (const data of reads) {
    const r = data?.deploymentId ? byId.get(data.deploymentId) : undefined;
    if (!r || !data) continue;
    const tenants: Record<string, TenantCounts> = {};
    for (const t of data.tenants) tenants[t.tenantId] = { installed: t.installed, failed: t.failed, pending: t.pending };
    r.counts = { source: 'live', at: data.updated, tenants: { ...r.counts?.tenants, ...tenants } };
  }
  return unread.sort((a, b) => a.what.localeCompare(b.what));
}

async function readReleases(api: PacksyncApi, rollouts: RolloutFacts[], unread: UnreadLive[]): Promise<Map<string, string>> {
  const apps = new Map(rollouts.flatMap((r) => (r.appId ? [[r.appId, r.app] as const] : [])));
  const out = new Map<string, string>();
  await mapLimit([...apps.keys()], 4, async (id) => {
    const app = await api.getApp(id).catch((e: unknown) => {
      const error = failedRead(e);
      if (error) unread.push({ what: `release times of ${apps.get(id) ?? id}`, error });
      return null;
    });
    // The catalog writes .NET times (7 fraction digits, +00:00): the report's times are all ISO UTC.
    for (const v of app?.versions ?? []) out.set(releaseKey(id, v.version), isoUtc(v.createdDate));
  });
  return out;
}

export function coverage(
  flows: V1FlowDetailsViewModel[],
  packages: V1PackageViewModel[],
  names: string[],
  catalog: { id: string; name: string }[],
): Coverage {
  const appIds = new Set<string>();
  const pkgApp = new Map(packages.map((p) => [p.id, p.appId]));
  for (const f of flows) {
    if (f.appId) appIds.add(f.appId);
    for (const d of f.deployments) {
      const a = pkgApp.get(d.packageId);
      if (a) appIds.add(a);
    }
  }
  const byName = new Map(catalog.map((a) => [a.name.toLowerCase(), a.id]));
  const lower = names.map((n) => n.toLowerCase());
  for (const n of lower) {
    const id = byName.get(n);
    if (id) appIds.add(id);
  }
  return { appIds, names: new Set(lower) };
}

function inPeriod(r: RolloutFacts, from: Date, to: Date): boolean {
  return rolloutTimes(r).some((t) => t !== null && Date.parse(t) >= from.getTime() && Date.parse(t) <= to.getTime());
}

/** `2026-11-20T14:05:00.000Z` for any time the service wrote; a value that is no time is kept as written. */
function isoUtc(t: string): string {
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? t : new Date(ms).toISOString();
}
