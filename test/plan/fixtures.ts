import type {
  V1AppVersionViewModel,
  V1AppViewModel,
  V1DeploymentViewModel,
  V1FlowDetailsViewModel,
  V1PackageViewModel,
  V1TenantViewModel,
} from '../../src/api/wire/index.js';
import { emptyInventory } from '../../src/state/inventory-types.js';
import type { Inventory, InventoryEntry } from '../../src/state/inventory-types.js';
import { emptyLiveState } from '../../src/live/types.js';
import type { LiveState } from '../../src/live/types.js';
import type { DeploymentManifest, DesiredModel, FlowManifest, PackageManifest, TenantUploadManifest } from '../../src/manifests/model.js';
import { plan } from '../../src/plan/planner.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import type { Plan, PlanOptions } from '../../src/plan/types.js';

export const NOW = new Date('2026-11-22T12:00:00Z');
const src = { file: 'x.yaml', line: 1, column: 1 };

/** A catalog app as `GET /v1/app` lists it. */
export function catalogApp(id: string, name: string, extra: Partial<V1AppViewModel> = {}): V1AppViewModel {
  return {
    id,
    name,
    publisherName: 'Vendor',
    description: '',
    shortDescription: '',
    logoData: null,
    verified: true,
    showcased: false,
    machineScope: true,
    userScope: false,
    latestVersion: '1.0',
    tags: [],
    flags: 0,
    ...extra,
  };
}
export const APP_7ZIP = catalogApp('11111111-1111-4111-8111-111111111111', '7-Zip', {
  publisherName: 'Igor Pavlov',
  latestVersion: '24.08',
});
export const TENANT: V1TenantViewModel = {
  id: '22222222-2222-4222-8222-222222222222',
  created: '2026-01-01T00:00:00+00:00',
  displayName: 'Contoso',
  defaultDomain: 'contoso.onmicrosoft.com',
  backgroundColor: '#000000',
  flags: 1,
  adminConsentGranted: true,
};

export function pkg(name: string, app = '7-Zip', version = '24.08', extra: Partial<PackageManifest['spec']> = {}): PackageManifest {
  return { apiVersion: 'packsync.dev/v1', kind: 'Package', metadata: { name }, spec: { catalog: { app, version }, ...extra }, source: src };
}
export function flow(name: string, spec: FlowManifest['spec'] = { app: '7-Zip' }): FlowManifest {
  return { apiVersion: 'packsync.dev/v1', kind: 'Flow', metadata: { name }, spec, source: src };
}
export function dep(name: string, flowName: string, pkgName: string, spec: Partial<DeploymentManifest['spec']> = {}): DeploymentManifest {
  return {
    apiVersion: 'packsync.dev/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { flow: flowName, package: pkgName, ...spec },
    source: src,
  };
}
export function upload(name: string, tenant: string, pkgName: string): TenantUploadManifest {
  return { apiVersion: 'packsync.dev/v1', kind: 'TenantUpload', metadata: { name }, spec: { tenant, package: pkgName }, source: src };
}
export function desired(parts: Partial<Omit<DesiredModel, 'root'>>): DesiredModel {
  return { root: '/repo', packages: [], flows: [], deployments: [], tenantUploads: [], ...parts };
}
/** The versions the catalog offers for 7-Zip, as the snapshot reads them (`GET /v1/app/{id}`). */
export const VERSIONS_7ZIP: V1AppVersionViewModel[] = ['24.08', '24.07', '23.01'].map((version, i) => ({
  id: `33333333-3333-4333-8333-00000000000${i + 1}`,
  version,
  createdDate: '2026-01-01T00:00:00+00:00',
  description: '',
  machineScope: true,
  userScope: false,
  storeApp: false,
}));

export function live(parts: Partial<LiveState> = {}): LiveState {
  return { ...emptyLiveState(), apps: [APP_7ZIP], appVersions: { [APP_7ZIP.id]: VERSIONS_7ZIP }, tenants: [TENANT], ...parts };
}
export function livePackage(id: string, extra: Partial<V1PackageViewModel> = {}): V1PackageViewModel {
  return {
    id,
    appId: APP_7ZIP.id,
    created: '2026-11-01T00:00:00+00:00',
    productName: '7-Zip',
    manufacturer: 'Igor Pavlov',
    productVersion: '24.08',
    state: 'Completed',
    fullProductName: '7-Zip 24.08',
    fileName: '7z.zip',
    size: 1,
    downloadAvailable: true,
    newVersionAvailable: false,
    latestVersion: null,
    source: 2,
    isCustom: false,
    userScope: false,
    machineScope: true,
    importInfo: null,
    ...extra,
  };
}
export function liveDeployment(
  id: string,
  flowId: string,
  packageId: string,
  extra: Partial<V1DeploymentViewModel> = {},
): V1DeploymentViewModel {
  return {
    id,
    flowId,
    packageId,
    version: '24.08',
    created: '2026-11-01T00:00:00+00:00',
    status: 'Running',
    currentWave: 1,
    currentWaveId: null,
    waveCount: 3,
    startedAt: null,
    stoppedAt: null,
    completedAt: null,
    contentUpdateStatus: 'None',
    contentUpdatedAt: null,
    ...extra,
  };
}
export function liveFlow(id: string, name: string, deployments: V1DeploymentViewModel[] = []): V1FlowDetailsViewModel {
  return {
    id,
    name,
    created: '2026-11-01T00:00:00+00:00',
    appId: APP_7ZIP.id,
    packageId: null,
    patchGroupId: null,
    scope: 1,
    flags: 0,
    supersedenceHistoryCount: 0,
    templateId: null,
    deleted: false,
    tenantIds: [],
    deploymentCount: deployments.length,
    waves: [],
    deployments,
    currentDeployment: null,
  };
}

export function run(d: DesiredModel, l: LiveState, inv: Inventory = emptyInventory(), opts: Partial<PlanOptions> = {}): Plan {
  return plan({ desired: d, live: l, inventory: inv, options: { ...DEFAULT_PLAN_OPTIONS, ...opts }, now: NOW, revision: 'r1' });
}

export function ops(p: Plan): string[] {
  return p.actions.map((a) => `${a.key}:${a.op}`);
}
export { emptyInventory };

/** The ids a converged 'zip' package, flow and deployment have (see `convergedZip`). */
export const P1 = 'aaaaaaaa-0000-4000-8000-000000000001';
export const F1 = 'bbbbbbbb-0000-4000-8000-000000000001';
export const D1 = 'cccccccc-0000-4000-8000-000000000001';

/**
 * The inventory a converged apply of pkg('zip') + flow('zip') + dep('zip', 'zip', 'zip', `spec`)
 * leaves, with ids P1, F1 and D1; the deployment's entry has `entry` on top, or is left out when
 * `entry` is null.
 */
export function convergedZip(spec: Partial<DeploymentManifest['spec']> = {}, entry: Partial<InventoryEntry> | null = {}): Inventory {
  const inv = emptyInventory();
  const fresh = run(desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', spec)] }), live());
  const base = (kind: InventoryEntry['kind'], id: string, r: Pick<InventoryEntry, 'specHash' | 'spec'>): InventoryEntry => ({
    kind,
    name: 'zip',
    id,
    specHash: r.specHash,
    spec: r.spec,
    revision: 'r0',
    updatedAt: 'x',
  });
  for (const a of fresh.actions) {
    if (a.op === 'import-package') inv.objects[a.key] = base('Package', P1, a.record);
    if (a.op === 'create-flow') inv.objects[a.key] = base('Flow', F1, a.record);
    if (a.op === 'add-deployment' && entry !== null)
      inv.objects[a.key] = {
        ...base('Deployment', D1, a.record),
        flowId: F1,
        packageId: P1,
        appliedState: a.record.appliedState,
        ...entry,
      };
  }
  return inv;
}
