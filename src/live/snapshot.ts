/**
 * Reads what the desired set needs from the API with as few calls as the API allows: whole lists
 * (`disablePaging`), details only where a list lacks a field (flow waves and deployments), bounded
 * concurrency. The number of calls is returned; it is part of every plan's output.
 */
import { setMaxListeners } from 'node:events';
import { readsAtOnce } from './read-concurrency.js';
import type { Page, PacksyncApi, PatchGroupName } from '../api/operations.js';
import { collectAll } from '../api/paging.js';
import type {
  PagingQuery as PagingQueryLike,
  V1AppViewModel,
  V1DeploymentViewModel,
  V1FlowDetailsViewModel,
  V1FlowViewModel,
  V1PackageDetailsViewModel,
  V1PackageViewModel,
  V1TenantViewModel,
} from '../api/wire/index.js';
import type { Inventory, InventoryEntry } from '../state/inventory-types.js';
import type { DeploymentManifest, FlowManifest, DesiredModel } from '../manifests/model.js';
import { isUuid, NameIndex } from './resolve.js';
import { mapLimit } from '../util/map-limit.js';
import { onTrack } from '../util/version-order.js';
import type { LiveFlow, LiveState, WaveLiveRead } from './types.js';
import { errorCode, errorMessage } from '../util/errors.js';
import { lowerId, withOwned } from './confirm-owned.js';
import { InventoryIndex } from './inventory-index.js';

export interface SnapshotOptions {
  concurrency?: number;
  signal?: AbortSignal;
  /** Read every live flow's details (export needs them all). */
  allFlowDetails?: boolean;
  /** Read catalog apps and script templates even when no manifest names one (export names them). */
  catalogNames?: boolean;
  /** Read the upload tasks of every tenant, not only of tenants a TenantUpload names (export). */
  allTenantUploads?: boolean;
  /** Read `GET /v1/package/{id}` for every live package: only details carry commands and rules (export). */
  packageDetails?: boolean;
}

export interface Snapshot {
  live: LiveState;
  reads: number;
  /** Present when `packageDetails` was asked for; by package id. */
  packageDetails?: Map<string, V1PackageDetailsViewModel>;
}

/** One pass's reading: the client, its signal and bound, and the counted call every read goes through. */
interface Reader {
  api: PacksyncApi;
  signal: { signal?: AbortSignal };
  concurrency: number;
  call: <T>(p: () => Promise<T>) => Promise<T>;
  /** A whole list in one read (`disablePaging`), or page by page when the server ignores it. */
  all: <T>(list: (q: PagingQueryLike) => Promise<Page<T>>) => Promise<T[]>;
}

function readerOf(api: PacksyncApi, opts: SnapshotOptions, count: () => void): Reader {
  const call = <T>(p: () => Promise<T>): Promise<T> => {
    count();
    return p();
  };
  const all = async <T>(list: (q: PagingQueryLike) => Promise<Page<T>>): Promise<T[]> => {
    const first = await call(() => list({ disablePaging: true }));
    const total = first.pagination?.totalCount;
    if (total === undefined || first.items.length >= total) return first.items;
    // The server ignored disablePaging: fall back to the largest pages it allows, walked by the
    // client's paging so the page base (0 or 1) is learnt, not assumed.
    return collectAll((req) => call(() => list(req)));
  };
  return { api, signal: opts.signal ? { signal: opts.signal } : {}, concurrency: readsAtOnce(api, opts.concurrency), call, all };
}

/**
 * Whether the pass reads the flow list (one answer of ~8.5 MB at 3,750 flows, each flow with its
 * tenants' ids). Every flow the state owns is read by its id anyway (its details), and that read
 * is the evidence of whether it still exists; the list is for finding the flows the state does not
 * own: a manifest's flow the state has no entry for (created, adopted, renamed, or a conflict), a
 * create a crash interrupted (its intent finds what it made), a state that owns no flow yet, or
 * export. When every desired flow is owned and no intent is pending, nothing in the plan looks at a
 * flow the state does not own (plan/ownership.ts decides nothing for an owned key), so the list is
 * not read: as Terraform refreshes what it manages by id and lists only to import
 * (docs/reconcile.md, "Reading the live state").
 */
function flowListNeeded(desired: DesiredModel, inventory: Inventory, index: InventoryIndex, opts: SnapshotOptions): boolean {
  if (opts.allFlowDetails === true || flowListFirst(inventory, index)) return true;
  return desired.flows.some((f) => inventory.objects[`Flow/${f.metadata.name}`] === undefined);
}

/**
 * The part of `flowListNeeded` the state alone answers, so the list is asked for before the desired
 * set is known: the state owns no flow, or a create is pending. Otherwise `readLiveState` asks for it
 * only for a flow new in git, while the details are still being read.
 */
function flowListFirst(inventory: Inventory, index: InventoryIndex): boolean {
  return Object.keys(inventory.intents).length > 0 || index.entries('Flow').length === 0;
}

/** Which lists the desired set needs read (a list not read is not evidence that an object is missing). */
function listsNeeded(desired: DesiredModel, opts: SnapshotOptions) {
  const apps = opts.catalogNames === true || desired.packages.some((p) => p.spec.catalog) || desired.flows.some((f) => f.spec.app);
  const templates =
    opts.catalogNames === true ||
    desired.packages.some((p) => p.spec.catalog?.scriptTemplate ?? p.spec.custom?.scriptTemplate) ||
    desired.flows.some((f) => f.spec.scriptTemplate);
  // Promotion gates name tenants and exclude those without admin consent: one list read per pass.
  const gated = gatedDeployments(desired);
  const gatedFlows = desired.flows.filter((f) => f.spec.promotion !== undefined && !f.spec.suspend);
  const tenants =
    desired.tenantUploads.length > 0 ||
    gated.length > 0 ||
    gatedFlows.length > 0 ||
    opts.allFlowDetails === true ||
    opts.allTenantUploads === true;
  return { apps, templates, tenants, gated, gatedFlows };
}

/**
 * The reads a pass can make from the inventory alone: the details of every owned flow (3,750 of a
 * no-op's 3,752 reads at fleet scale), the package list, and the flow list when the state cannot
 * do without it (`flowListFirst`). A pass starts them while its manifests load, once the load knows
 * it reads the files of the last valid load, so the load's CPU runs while they wait on the network
 * (docs/architecture.md, "The engine"); `readLiveState` takes them up and reads the rest.
 */
export interface InventoryReads {
  readonly index: InventoryIndex;
  readonly owned: Set<string>;
  readonly tenants: TenantIds;
  readonly details: Promise<Map<string, Promise<V1FlowDetailsViewModel>>>;
  readonly packages: Promise<V1PackageViewModel[]>;
  /** The flow list: asked for at the start when `flowListFirst`, else on the first call. */
  flows(): Promise<V1FlowViewModel[]>;
  /** Reads made so far. */
  reads(): number;
  /**
   * No further read starts (the pass failed, or will not use them), and those handed to the client
   * are withdrawn: the ones waiting for a slot are never sent, the ones in flight are abandoned.
   */
  stop(): void;
}

export function startInventoryReads(
  api: PacksyncApi,
  inventory: Inventory,
  opts: SnapshotOptions & {
    /** Told each owned flow's details as the pass will hold them, as they arrive (the history's scan, engine/history-observer.ts). */
    onFlowDetails?: (d: V1FlowDetailsViewModel) => void;
  } = {},
): InventoryReads {
  let reads = 0;
  let stopped = false;
  // Up to --read-concurrency reads wait in the client for one of --api-concurrency slots; checking
  // `stopped` before each read left those to be sent after the pass had given up on them (an
  // invalid load, queued promote/resume requests). Aborting withdraws them.
  const halt = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, halt.signal]) : halt.signal;
  // Each read waiting or in flight listens on it: thousands at once at fleet scale, by design.
  setMaxListeners(0, signal);
  const r = readerOf(api, { ...opts, signal }, () => reads++);
  const index = new InventoryIndex(inventory);
  const owned = index.flowIds();
  const tenants = new TenantIds();
  // The whole lists first: the service takes longest to answer them, and answers them while this
  // thread is still busy with the load, instead of behind the first round of details.
  // Judged where they are awaited; until then a failure stops the others and is not unhandled.
  const stopOnFailure = (p: Promise<unknown>): void => {
    p.catch(() => {
      stopped = true;
    });
  };
  const packages = r.all((q) => api.listPackages(q, r.signal));
  let flowList: Promise<V1FlowViewModel[]> | undefined;
  const flows = (): Promise<V1FlowViewModel[]> => {
    if (!flowList) {
      flowList = r.all((q) => api.listFlows(q, r.signal)).then((list) => tenants.inList(list));
      stopOnFailure(flowList);
    }
    return flowList;
  };
  if (flowListFirst(inventory, index)) void flows();
  const details = readOwnedFlowDetails(api, [...owned], {
    concurrency: r.concurrency,
    signal: r.signal,
    call: r.call,
    stopped: () => stopped,
    details: (read) => {
      const d = tenants.details(read);
      opts.onFlowDetails?.(d);
      return d;
    },
  });
  stopOnFailure(details);
  stopOnFailure(packages);
  return {
    index,
    owned,
    tenants,
    details,
    packages,
    flows,
    reads: () => reads,
    stop: () => {
      stopped = true;
      halt.abort();
    },
  };
}

export async function readLiveState(
  api: PacksyncApi,
  desired: DesiredModel,
  inventory: Inventory,
  opts: SnapshotOptions = {},
  started: InventoryReads = startInventoryReads(api, inventory, opts),
): Promise<Snapshot> {
  let reads = 0;
  const r = readerOf(api, opts, () => reads++);
  const { call, all, signal } = r;
  const need = listsNeeded(desired, opts);
  const owned = started.owned;
  const [apps, templates, tenants, listedPackages, listedFlows, ownedDetails, patchGroups] = await Promise.all([
    need.apps ? all((q) => api.searchApps(q, signal)) : Promise.resolve([]),
    need.templates ? all((q) => api.listTemplates(q, signal)) : Promise.resolve([]),
    need.tenants ? all((q) => api.listTenants(q, signal)) : Promise.resolve([]),
    started.packages,
    flowListNeeded(desired, inventory, started.index, opts) ? started.flows() : Promise.resolve([]),
    started.details,
    // Beside the lists, not after the pass's other reads: it needs nothing they bring.
    namesPatchGroup(desired) ? readPatchGroupNames(r) : Promise.resolve(undefined),
  ]).catch((e: unknown) => {
    started.stop();
    throw e;
  });

  const packages = await withOwned(listedPackages, started.index.ids('Package'), (id) => call(() => api.getPackage(id, signal)));
  const { flows, deployments } = await detailFlows(r, {
    listedFlows,
    ownedDetails,
    owned,
    tenants: started.tenants,
    index: started.index,
    desired,
    opts,
  });
  const appVersions = await readAppVersions(r, desired, inventory, apps);
  const uploads = await readUploads(r, { desired, index: started.index, tenants, opts });
  const { packageErrors, packageDetails } = await readPackageErrors(r, started.index, packages, opts);
  const targets = [
    ...gateTargets(need.gated, inventory, deployments),
    ...serviceGateTargets(need.gatedFlows, inventory, started.index, deployments),
  ];
  const waveLive = await readWaveLive(api, targets, r.concurrency, signal, () => reads++);

  return {
    ...(packageDetails ? { packageDetails } : {}),
    live: {
      apps,
      appVersions,
      packageErrors,
      templates,
      tenants,
      packages,
      flows,
      deployments,
      uploads,
      read: { apps: need.apps, templates: need.templates, tenants: need.tenants, packages: true, flows: true },
      ...(waveLive ? { waveLive } : {}),
      ...(patchGroups !== undefined ? { patchGroups } : {}),
      ...serviceTimeOf(api),
    },
    reads: reads + started.reads(),
  };
}

/** Whether a Flow manifest (a Baseline's too) names its patch group by name rather than by id. */
function namesPatchGroup(desired: DesiredModel): boolean {
  return desired.flows.some((f) => f.spec.patchGroup !== undefined && !isUuid(f.spec.patchGroup));
}

/** The service's patch groups, one read, or null where it cannot list them (api/patch-groups.ts). */
async function readPatchGroupNames(r: Reader): Promise<PatchGroupName[] | null> {
  if (!r.api.listPatchGroups) return null;
  return r.call(() => r.api.listPatchGroups!(r.signal));
}

/**
 * The flows with the details of those the pass plans (owned, named by a manifest, or all for
 * export), details read early for owned flows reused; tenant ids shared (see TenantIds).
 */
async function detailFlows(
  r: Reader,
  o: {
    listedFlows: V1FlowViewModel[];
    ownedDetails: Map<string, Promise<V1FlowDetailsViewModel>>;
    owned: Set<string>;
    tenants: TenantIds;
    index: InventoryIndex;
    desired: DesiredModel;
    opts: SnapshotOptions;
  },
): Promise<{ flows: LiveFlow[]; deployments: V1DeploymentViewModel[] }> {
  const detailOf = (id: string): Promise<V1FlowDetailsViewModel> =>
    o.ownedDetails.get(id) ?? r.call(() => r.api.getFlow(id, r.signal)).then((d) => o.tenants.details(d));
  const flows = await withOwned(o.listedFlows, o.index.ids('Flow'), detailOf);
  const names = new Set(o.desired.flows.map((f) => f.spec.name ?? f.metadata.name));
  const detailed = flows.filter((f) => !f.deleted && (o.opts.allFlowDetails || o.owned.has(f.id) || names.has(f.name)));
  const details = await mapLimit(detailed, r.concurrency, (f) => detailOf(f.id));
  const byId = new Map(details.map((d) => [d.id, d]));
  return {
    flows: flows.map((f) => {
      const d = byId.get(f.id);
      return d ? { ...f, details: d } : f;
    }),
    deployments: details.flatMap((d) => d.deployments),
  };
}

/**
 * Every catalog app a package names, once: the planner checks `version` / `versionId` against
 * what the catalog offers, so an unknown version fails the plan rather than the import.
 */
async function readAppVersions(
  r: Reader,
  desired: DesiredModel,
  inventory: Inventory,
  apps: V1AppViewModel[],
): Promise<LiveState['appVersions']> {
  const appVersions: LiveState['appVersions'] = {};
  const appIndex = new NameIndex(
    'catalog app',
    apps,
    (a) => [a.name],
    (a) => ({ name: a.name, detail: a.id }),
  );
  const versionApps = new Set<string>();
  for (const p of desired.packages) {
    if (!p.spec.catalog || p.spec.suspend) continue;
    try {
      const appId = appIndex.resolve(p.spec.catalog.app).id;
      if (needsVersions(p.spec.catalog, appId, inventory.objects[`Package/${p.metadata.name}`])) versionApps.add(appId);
    } catch {
      // The planner reports the unresolvable name with candidates.
    }
  }
  await mapLimit([...versionApps], r.concurrency, async (id) => {
    appVersions[id] = (await r.call(() => r.api.getApp(id, r.signal))).versions;
  });
  return appVersions;
}

/** Upload tasks of the tenants a TenantUpload names (all tenants for export), owned tasks confirmed by id. */
async function readUploads(
  r: Reader,
  o: { desired: DesiredModel; index: InventoryIndex; tenants: V1TenantViewModel[]; opts: SnapshotOptions },
): Promise<LiveState['uploads']> {
  const uploads: LiveState['uploads'] = {};
  const tenantIndex = new NameIndex(
    'tenant',
    o.tenants,
    (t) => [t.defaultDomain, t.displayName],
    (t) => ({ name: t.defaultDomain, detail: t.id }),
  );
  const uploadTenants = new Set<string>(o.opts.allTenantUploads ? o.tenants.map((t) => t.id) : []);
  for (const u of o.desired.tenantUploads) {
    try {
      uploadTenants.add(tenantIndex.resolve(u.spec.tenant).id);
    } catch {
      // Reported by the planner.
    }
  }
  // Upload tasks the state owns in a tenant are read by id when its list leaves them out (an upload
  // run again is a second app in the customer's Intune); one found elsewhere keeps its own tenant.
  const ownedTasks = new Map<string, string[]>();
  for (const [k, e] of o.index.entries('TenantUpload'))
    if (!k.includes('#') && e.tenantId) ownedTasks.set(lowerId(e.tenantId), [...(ownedTasks.get(lowerId(e.tenantId)) ?? []), e.id]);
  await mapLimit([...uploadTenants], r.concurrency, async (id) => {
    const listed = await r.all((q) => r.api.listTenantUploads(id, q, r.signal));
    uploads[id] = await withOwned(listed, ownedTasks.get(lowerId(id)) ?? [], (task) => r.call(() => r.api.getUploadTask(task, r.signal)));
  });
  return uploads;
}

/**
 * Only details carry `errorDetails`: they are read for the owned packages that failed processing
 * (rare), so the plan says why a package failed, not only that it did; export reads every package's.
 */
async function readPackageErrors(
  r: Reader,
  index: InventoryIndex,
  packages: V1PackageViewModel[],
  opts: SnapshotOptions,
): Promise<{ packageErrors: Record<string, string>; packageDetails?: Map<string, V1PackageDetailsViewModel> }> {
  const ownedIds = new Set(
    index
      .entries('Package')
      .filter(([k]) => !k.includes('#'))
      .map(([, e]) => e.id),
  );
  const failed = opts.packageDetails ? [] : packages.filter((p) => p.state === 'Error' && ownedIds.has(p.id));
  const packageErrors: Record<string, string> = {};
  await mapLimit(failed, r.concurrency, async (p) => {
    const d = await r.call(() => r.api.getPackage(p.id, r.signal));
    if (d.errorDetails) packageErrors[p.id] = d.errorDetails;
  });
  if (!opts.packageDetails) return { packageErrors };
  const packageDetails = new Map(
    (await mapLimit(packages, r.concurrency, (p) => r.call(() => r.api.getPackage(p.id, r.signal)))).map((d) => [d.id, d]),
  );
  for (const d of packageDetails.values()) if (d.state === 'Error' && d.errorDetails) packageErrors[d.id] = d.errorDetails;
  return { packageErrors, packageDetails };
}

/**
 * The details of every flow the state owns, read by id as soon as the pass starts, beside the list
 * reads rather than after them: the ids are in the inventory, and on a large account these reads
 * are most of a no-op (3,750 of its 3,753 at fleet scale), so they no longer wait for the lists.
 * Each settles to its answer or its error (a 404 is for `withOwned` and the caller to judge, as a
 * read made after the lists would be); no read is made twice.
 */
async function readOwnedFlowDetails(
  api: PacksyncApi,
  ids: readonly string[],
  o: {
    concurrency: number;
    signal: { signal?: AbortSignal };
    call: <T>(p: () => Promise<T>) => Promise<T>;
    stopped: () => boolean;
    /** Each answer as the planner reads it, made as it arrives. */
    details: (d: V1FlowDetailsViewModel) => V1FlowDetailsViewModel;
  },
): Promise<Map<string, Promise<V1FlowDetailsViewModel>>> {
  const { signal, call } = o;
  const out = new Map<string, Promise<V1FlowDetailsViewModel>>();
  await mapLimit(ids, o.concurrency, async (id) => {
    if (o.stopped()) return;
    const read = call(() => api.getFlow(id, signal)).then(o.details);
    out.set(id, read);
    // Judged where it is used; a failure other than a 404 is also this pass's failure here.
    await read.catch((e: unknown) => {
      if (errorCode(e) !== 'API_NOT_FOUND') throw e;
    });
  });
  return out;
}

/** Deployments whose gate may judge this pass: `promotion`, not suspended, git says running. */
function gatedDeployments(desired: DesiredModel): DeploymentManifest[] {
  return desired.deployments.filter((m) => m.spec.promotion !== undefined && !m.spec.suspend && (m.spec.state ?? 'running') === 'running');
}

type WaveTarget = { deploymentId: string; waveId: string };

/** The current wave of each owned, running, gated deployment that is not held. */
function gateTargets(
  gated: readonly DeploymentManifest[],
  inventory: Inventory,
  deployments: readonly V1DeploymentViewModel[],
): WaveTarget[] {
  // No index of 15,000 deployments for a pass with no gate.
  if (gated.length === 0) return [];
  const byId = new Map(deployments.map((d) => [d.id, d]));
  const targets: WaveTarget[] = [];
  for (const m of gated) {
    const e = inventory.objects[`Deployment/${m.metadata.name}`];
    const d = e && !e.hold ? byId.get(e.id) : undefined;
    if (d?.status === 'Running' && d.currentWaveId) targets.push({ deploymentId: d.id, waveId: d.currentWaveId });
  }
  return targets;
}

/**
 * The current wave of each running deployment the service started in an owned flow with `promotion`
 * (no state key owns it) and that its flow's gate does not hold (docs/reconcile.md, "Service-driven flows").
 */
function serviceGateTargets(
  flows: readonly FlowManifest[],
  inventory: Inventory,
  index: InventoryIndex,
  deployments: readonly V1DeploymentViewModel[],
): WaveTarget[] {
  if (flows.length === 0) return [];
  const ownedIds = index.allIds();
  const byFlow = new Map<string, V1DeploymentViewModel[]>();
  for (const d of deployments) {
    const list = byFlow.get(d.flowId);
    if (list) list.push(d);
    else byFlow.set(d.flowId, [d]);
  }
  const targets: WaveTarget[] = [];
  for (const f of flows) {
    const e = inventory.objects[`Flow/${f.metadata.name}`];
    if (!e) continue;
    for (const d of byFlow.get(lowerId(e.id)) ?? []) {
      if (ownedIds.has(lowerId(d.id)) || e.serviceGates?.[d.id]?.hold) continue;
      if (d.status === 'Running' && d.currentWaveId) targets.push({ deploymentId: d.id, waveId: d.currentWaveId });
    }
  }
  return targets;
}

/**
 * One live read per running wave (docs/manifests.md cost), of each gated target. A failed read is kept
 * as an error for the planner (an error of the pass, never a verdict); it does not stop the other reads.
 */
async function readWaveLive(
  api: PacksyncApi,
  targets: readonly WaveTarget[],
  concurrency: number,
  signal: { signal?: AbortSignal },
  count: () => void,
): Promise<Record<string, WaveLiveRead> | undefined> {
  if (targets.length === 0) return undefined;
  const out: Record<string, WaveLiveRead> = {};
  await mapLimit(targets, concurrency, async (t) => {
    count();
    try {
      out[t.deploymentId] = { ok: true, data: await api.getWaveLive(t.waveId, signal) };
    } catch (e) {
      if (signal.signal?.aborted) throw e;
      const code = errorCode(e);
      out[t.deploymentId] = { ok: false, error: { code: code === 'INTERNAL' ? 'GATE_READ_FAILED' : code, message: errorMessage(e) } };
    }
  });
  return out;
}

function serviceTimeOf(api: PacksyncApi): { serviceTime?: string } {
  const t = api.serviceTime?.();
  return t ? { serviceTime: t.toISOString() } : {};
}

/**
 * Every flow, in the list and again in its details and each of its waves, carries the ids of all
 * its tenants: at 3,000 flows and 50 tenants, 450,000 copies of 50 strings, the largest part of
 * the live state (heap snapshot, docs/performance.md fleet-10x). One instance per distinct id is
 * kept, for the whole of a pass's reads; each answer is shared as it arrives (while the other reads
 * wait on the service), so the parsed copies die young and nothing is left to do after the last read.
 */
class TenantIds {
  private readonly one = new Map<string, string>();

  private share(ids: string[]): string[] {
    return ids.map((id) => {
      const s = this.one.get(id);
      if (s !== undefined) return s;
      this.one.set(id, id);
      return id;
    });
  }

  /** The list's flows, in place. */
  inList<T extends { tenantIds: string[] }>(flows: T[]): T[] {
    for (const f of flows) if (Array.isArray(f.tenantIds)) f.tenantIds = this.share(f.tenantIds);
    return flows;
  }

  /** A flow's details as the planner reads them: lower-case ids (confirm-owned.ts), tenant ids shared. */
  details(read: V1FlowDetailsViewModel): V1FlowDetailsViewModel {
    const d = lowerFlowIds(read);
    if (Array.isArray(d.tenantIds)) d.tenantIds = this.share(d.tenantIds);
    for (const w of d.waves ?? []) if (Array.isArray(w.tenantIds)) w.tenantIds = this.share(w.tenantIds);
    return d;
  }
}

/**
 * Whether the planner needs the versions an app offers for this package: to turn a `versionId` into
 * a version, or to check a `version` that is not already the owned package's. An owned package whose
 * recorded version is the one git names imports nothing, so a no-op pass reads no app (it read one
 * per followed app before: +200 reads at 3,000 flows). No version named: the app list's latest.
 */
function needsVersions(
  c: { version?: string | undefined; versionId?: string | undefined; update?: { track?: string | undefined } | undefined },
  appId: string,
  owned: InventoryEntry | undefined,
): boolean {
  if (c.version === undefined) return c.versionId !== undefined;
  // A `track` the pinned version is not on may match no version at all: a plan error naming those
  // there are (plan/kinds/package-targets.ts). One the pinned version is on matches it: nothing to read.
  if (c.update?.track !== undefined && !onTrack(c.version, c.update.track)) return true;
  const was = (owned?.spec as { catalog?: { appId?: unknown; version?: unknown } } | undefined)?.catalog;
  return !(
    typeof was?.version === 'string' &&
    was.appId === appId &&
    was.version.toLowerCase() === c.version.toLowerCase() &&
    owned?.superseded === undefined
  );
}

/** A flow's details with lower-case ids, its deployments' included (confirm-owned.ts). */
function lowerFlowIds(d: V1FlowDetailsViewModel): V1FlowDetailsViewModel {
  return {
    ...d,
    id: lowerId(d.id),
    deployments: d.deployments.map((x) => ({ ...x, id: lowerId(x.id), flowId: lowerId(x.flowId), packageId: lowerId(x.packageId) })),
  };
}
