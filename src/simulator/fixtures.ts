/**
 * Deterministic fixtures: catalog apps with versions, script templates, tenants, patch groups with
 * waves, radar apps with devices. The same seed and fleet size always give the same ids and data,
 * so docs, examples and tests can name them. Catalog data is shared by every account; each account
 * sees the same tenants (the simulator's accounts are isolated copies of one organisation).
 */
import type {
  ConfigurationTemplateDetailsViewModel,
  V1AppVersionViewModel,
  V1RadarAppViewModel,
  V1RadarDeviceViewModel,
  V1TenantDetailsViewModel,
} from '../api/wire/index.js';
import { dotnetTime } from './clock.js';
import { fixtureId } from './fixture-ids.js';
import { seededRandom } from './random.js';
import { LARGE_PRODUCTS, LARGE_VENDORS, SMALL_APPS, SMALL_DEVICES, SMALL_TENANTS } from './fixture-data.js';

export type FleetSize = 'none' | 'small' | 'large';

export interface CatalogApp {
  id: string;
  name: string;
  publisherName: string;
  description: string;
  shortDescription: string;
  verified: boolean;
  showcased: boolean;
  machineScope: boolean;
  userScope: boolean;
  tags: string[];
  flags: number;
  color: string;
  /** Newest first. */
  versions: V1AppVersionViewModel[];
}

export interface PatchGroupWave {
  name: string;
  delayHours: number;
  tenantIds: string[];
}

export interface PatchGroup {
  id: string;
  name: string;
  waves: PatchGroupWave[];
}

export interface Fixtures {
  seed: number;
  fleet: FleetSize;
  apps: CatalogApp[];
  appsById: Map<string, CatalogApp>;
  templates: (ConfigurationTemplateDetailsViewModel & { color: string })[];
  tenants: V1TenantDetailsViewModel[];
  patchGroups: PatchGroup[];
  radar: V1RadarAppViewModel[];
  radarDevices: Map<string, V1RadarDeviceViewModel[]>;
  /** Managed devices per tenant id: how many report when a wave reaches the tenant (docs/api-model.md). */
  devices: Map<string, number>;
}

/** Fixed so fixture timestamps never change between runs. */
const EPOCH = Date.UTC(2026, 0, 5, 9, 0, 0);
const DAY = 86_400_000;

/**
 * 20 to 299 devices for a large-fleet tenant, from a hash of its id: the seeded PRNG is not drawn
 * from, so adding devices left every other fixture exactly as it was.
 */
function hashedDevices(id: string): number {
  return 20 + (parseInt(id.slice(0, 8), 16) % 280);
}

function hexColor(rnd: () => number): string {
  return `#${Math.floor(rnd() * 0xffffff)
    .toString(16)
    .padStart(6, '0')}`;
}

/** One catalog app as the fixtures describe it (name, publisher, versions newest first, tags). */
interface AppSpec {
  name: string;
  publisher: string;
  versions: string[];
  tags: string[];
}

function makeApp(seed: number, i: number, spec: AppSpec, rnd: () => number): CatalogApp {
  const { name, publisher, versions, tags } = spec;
  const id = fixtureId(seed, 'app', name);
  return {
    id,
    name,
    publisherName: publisher,
    description: `${name} by ${publisher}. Packaged and kept up to date by the catalog.`,
    shortDescription: `${name} (${tags.join(', ')})`,
    verified: i % 3 !== 2,
    showcased: i % 4 === 0,
    machineScope: true,
    userScope: i % 2 === 0,
    tags,
    flags: 0,
    color: hexColor(rnd),
    versions: versions.map((v, k) => ({
      id: fixtureId(seed, 'app-version', `${name}@${v}`),
      version: v,
      createdDate: dotnetTime(EPOCH - k * 30 * DAY - i * 3_600_000),
      description: `${name} ${v}`,
      machineScope: true,
      userScope: i % 2 === 0,
      storeApp: false,
    })),
  };
}

export function buildFixtures(seed: number, fleet: FleetSize): Fixtures {
  const rnd = seededRandom(seed);
  // The order of the draws from `rnd` is part of the fixtures: apps, then tenants, then radar.
  const apps = makeApps(seed, fleet, rnd);
  const templates = fleet === 'none' ? [] : makeTemplates(seed);
  const tenants = makeTenants(seed, fleet, rnd);
  const patchGroups = makePatchGroups(
    seed,
    fleet,
    tenants.map((x) => x.id),
  );
  const { radar, radarDevices } = makeRadar(seed, tenants, apps, rnd);
  const devices = new Map(tenants.map((x) => [x.id, SMALL_DEVICES[x.defaultDomain] ?? hashedDevices(x.id)]));
  return {
    seed,
    fleet,
    apps,
    appsById: new Map(apps.map((a) => [a.id, a])),
    templates,
    tenants,
    patchGroups,
    radar,
    radarDevices,
    devices,
  };
}

/** The small catalog, plus 1,000 line-of-business apps in the large fleet. */
function makeApps(seed: number, fleet: FleetSize, rnd: () => number): CatalogApp[] {
  if (fleet === 'none') return [];
  const apps = SMALL_APPS.map(([name, publisher, versions, tags], i) => makeApp(seed, i, { name, publisher, versions, tags }, rnd));
  if (fleet !== 'large') return apps;
  for (let i = 0; i < 1000; i++) {
    const vendor = LARGE_VENDORS[i % LARGE_VENDORS.length]!;
    const product = LARGE_PRODUCTS[Math.floor(i / LARGE_VENDORS.length) % LARGE_PRODUCTS.length]!;
    const major = 1 + (i % 9);
    const spec: AppSpec = {
      name: `${vendor} ${product} ${String(Math.floor(i / 100) + 1)}`,
      publisher: `${vendor} Corp`,
      versions: [`${major}.${i % 7}.${i % 13}`, `${major}.${i % 7}.0`],
      tags: ['line-of-business'],
    };
    apps.push(makeApp(seed, SMALL_APPS.length + i, spec, rnd));
  }
  return apps;
}

function makeTenants(seed: number, fleet: FleetSize, rnd: () => number): V1TenantDetailsViewModel[] {
  const tenantSpecs = fleet === 'none' ? [] : [...SMALL_TENANTS];
  if (fleet === 'large') {
    for (let i = 1; i <= 46; i++) tenantSpecs.push([`Branch Office ${i}`, `branch${i}.onmicrosoft.com`, hexColor(rnd)]);
  }
  return tenantSpecs.map(([displayName, defaultDomain, backgroundColor], i) => ({
    id: fixtureId(seed, 'tenant', defaultDomain),
    created: dotnetTime(EPOCH - (400 - i) * DAY),
    displayName,
    defaultDomain,
    backgroundColor,
    flags: 1,
    adminConsentGranted: i !== 3,
    intune: { connected: i !== 3, lastSync: i !== 3 ? dotnetTime(EPOCH) : null, appCount: 40 + i * 7 },
  }));
}

/** Three named patch groups over the tenants; the large fleet adds rings up to 20 groups. */
function makePatchGroups(seed: number, fleet: FleetSize, t: string[]): PatchGroup[] {
  if (t.length === 0) return [];
  const groups: PatchGroup[] = [
    {
      id: fixtureId(seed, 'patch-group', 'Pilot first'),
      name: 'Pilot first',
      waves: [
        { name: 'Pilot', delayHours: 24, tenantIds: t.slice(0, 1) },
        { name: 'Early adopters', delayHours: 48, tenantIds: t.slice(1, 2) },
        { name: 'Everyone', delayHours: 72, tenantIds: t.slice(2) },
      ],
    },
    {
      id: fixtureId(seed, 'patch-group', 'Servers'),
      name: 'Servers',
      waves: [
        { name: 'Canary servers', delayHours: 12, tenantIds: t.slice(0, 1) },
        { name: 'All servers', delayHours: 24, tenantIds: t.slice(1) },
      ],
    },
    {
      id: fixtureId(seed, 'patch-group', 'Everyone at once'),
      name: 'Everyone at once',
      waves: [{ name: 'Everyone', delayHours: 24, tenantIds: t }],
    },
  ];
  if (fleet !== 'large') return groups;
  // 20 patch groups in all: rings over slices of the 50 tenants, 2 to 4 waves each.
  for (let g = 1; groups.length < 20; g++) {
    const waves = 2 + (g % 3);
    const per = Math.ceil(t.length / waves);
    groups.push({
      id: fixtureId(seed, 'patch-group', `Ring ${g}`),
      name: `Ring ${g}`,
      waves: Array.from({ length: waves }, (_, w) => ({
        name: `Ring ${g} wave ${w + 1}`,
        delayHours: 12 * (w + 1),
        tenantIds: t.slice(w * per, (w + 1) * per),
      })),
    });
  }
  return groups;
}

function makeTemplates(seed: number): Fixtures['templates'] {
  const specs: [string, string | null, number, string][] = [
    ['Default (PSADT 3.10.2)', null, 10, '#1f6feb'],
    ['PSADT 4.0 (silent)', null, 8, '#8957e5'],
    ['Contoso Corporate', 'Contoso', 2, '#0af0ba'],
  ];
  return specs.map(([name, org, flags, color], i) => ({
    id: fixtureId(seed, 'template', name),
    created: dotnetTime(EPOCH - (200 - i) * DAY),
    updated: dotnetTime(EPOCH - (20 - i) * DAY),
    name,
    enabled: true,
    organizationId: org ? fixtureId(seed, 'organization', org) : null,
    organizationName: org,
    shared: org === null,
    flags,
    scriptSourceId: fixtureId(seed, 'script-source', 'PSADT'),
    scriptSource: { id: fixtureId(seed, 'script-source', 'PSADT'), name: 'PSADT' },
    hasBannerImage: true,
    hasLogoImage: true,
    color,
    scriptTemplate: {
      flags: 1,
      companyName: org ?? 'Robopack',
      logFileDirectory: 'C:\\Windows\\Logs\\Software',
      psadtInstallationProgress: { show: !name.includes('silent'), statusMessage: 'Installation in progress. Please wait...' },
    },
  }));
}

function makeRadar(
  seed: number,
  tenants: V1TenantDetailsViewModel[],
  apps: CatalogApp[],
  rnd: () => number,
): Pick<Fixtures, 'radar' | 'radarDevices'> {
  const radar: V1RadarAppViewModel[] = [];
  const radarDevices = new Map<string, V1RadarDeviceViewModel[]>();
  const found = [
    ...apps.slice(0, 8).map((a) => ({ name: a.name, publisher: a.publisherName, match: a })),
    { name: 'Contoso Legacy CRM', publisher: 'Contoso', match: undefined },
    { name: 'Microsoft Store', publisher: 'Microsoft Corporation', match: undefined },
  ];
  for (const t of tenants.slice(0, 4)) {
    found.forEach((f, i) => {
      const id = fixtureId(seed, 'radar-app', `${t.id}:${f.name}`);
      const versions = f.match ? f.match.versions.map((v) => v.version) : ['1.0.0'];
      const entries = versions.map((v) => {
        const entryId = fixtureId(seed, 'radar-entry', `${id}:${v}`);
        const count = 1 + Math.floor(rnd() * 5);
        const devices: V1RadarDeviceViewModel[] = Array.from({ length: count }, (_, k) => ({
          id: fixtureId(seed, 'radar-device', `${entryId}:${k}`),
          deviceName: `${t.displayName.split(' ')[0]!.toUpperCase()}-PC${String(100 + k + i * 7)}`,
          userPrincipalName: `user${k + 1}@${t.defaultDomain}`,
          operatingSystem: 'Windows',
          osVersion: k % 2 ? '10.0.22631' : '10.0.26100',
          version: v,
          lastSeen: dotnetTime(EPOCH - k * 3_600_000),
        }));
        radarDevices.set(entryId, devices);
        return { id: entryId, version: v, deviceCount: devices.length };
      });
      radar.push({
        id,
        tenantId: t.id,
        name: f.name,
        publisher: f.publisher,
        deviceCount: entries.reduce((n, e) => n + e.deviceCount, 0),
        matched: f.match !== undefined,
        managed: i % 3 === 0,
        modernApp: f.name === 'Microsoft Store',
        flags: (f.match ? 1 : 0) | (i % 3 === 0 ? 2 : 0) | (f.name === 'Microsoft Store' ? 4 : 0),
        matchedAppId: f.match?.id ?? null,
        entries,
      });
    });
  }
  return { radar, radarDevices };
}
