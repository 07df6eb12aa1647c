/**
 * Records the report's history (docs/reports.md#history) from what an applying pass already read:
 * each owned rollout's start, the waves it reached, its completion or stop, and the drift the plan
 * found with what was done. Called by every path that applies (CLI apply, a saved plan, the agent),
 * before the plan's actions, so gate actions find their rollout. Only changes are recorded; a pass
 * that saw nothing new writes nothing. Never fails a pass: the history is evidence, not control.
 */
import type { PacksyncApi } from '../api/operations.js';
import type { V1DeploymentViewModel, V1FlowDetailsViewModel, V1WaveViewModel } from '../api/wire/index.js';
import type { LiveState } from '../live/types.js';
import type { Plan } from '../plan/types.js';
import { ROLLOUT_CAP, findRollout, lastDrift, trimmedAway, trimmedAwayTest } from '../state/history.js';
import type { History, RolloutHistory, TenantCounts } from '../state/history.js';
import type { InventoryStore } from '../state/inventory-store.js';
import type { Inventory } from '../state/inventory-types.js';
import type { StateIndex } from '../plan/state-index.js';
import { mapLimit } from '../util/map-limit.js';

/** Returns the API reads it made (install counts of rollouts first seen in a wave, complete or stopped). */
export async function recordPassHistory(
  store: InventoryStore,
  live: LiveState,
  plan: Plan,
  api: PacksyncApi,
  scan?: RolloutScan,
): Promise<number> {
  let reads = 0;
  try {
    const now = live.serviceTime ?? plan.generatedAt;
    await recordDrift(store, plan, now);
    const counted: Counted[] = [];
    for (const o of await withinCap(store, ownedRollouts(store, live, scan))) {
      const upTo = await recordRollout(store, o, now);
      if (upTo > 0) counted.push({ d: o.d, waves: o.waves.slice(0, upTo), upTo });
    }
    // Install counts when a rollout is first seen in a wave, complete or stopped: the wave live
    // data of a flow shows only its current deployment, so a later rollout would hide these figures
    // (a superseded rollout keeps those of the last wave it was seen in).
    reads = await recordCounts(store, api, counted, now);
  } catch {
    // Evidence only: a failed read or record never stops the pass.
  }
  return reads;
}

/**
 * The rollouts worth recording: those already in the history, and of the ones it has not seen, at
 * most the cap's worth, newest start first. Recording more only to trim them again at once (the
 * first pass over 15,000 running deployments recorded all, then kept 1,000) is work, journal and
 * count reads for nothing; the horizon moves past the ones left out, so no later pass takes them
 * up either (docs/reports.md#history).
 */
async function withinCap(store: InventoryStore, observed: Observed[]): Promise<Observed[]> {
  // ownedRollouts left out those behind the horizon already: what is not known here is fresh.
  const h = store.inventory.history;
  const known: Observed[] = [];
  const fresh: Observed[] = [];
  for (const o of observed) (findRollout(h, o.d.id) !== undefined ? known : fresh).push(o);
  if (fresh.length <= ROLLOUT_CAP) return [...known, ...fresh];
  // Each start parsed once, not twice per comparison (12,000 fresh rollouts: ~340,000 Date.parse calls).
  const byStart = fresh.map((o) => ({ o, start: Date.parse(o.d.startedAt ?? '') || 0 })).sort((a, b) => b.start - a.start);
  const horizon = byStart[ROLLOUT_CAP]!.start;
  if (horizon > 0) await store.history({ type: 'horizon', at: new Date(horizon).toISOString() });
  // Ties with the horizon are behind it too (trimmedAway is inclusive): keep only what is after it.
  return [
    ...known,
    ...byStart
      .slice(0, ROLLOUT_CAP)
      .filter((x) => x.start > horizon)
      .map((x) => x.o),
  ];
}

/** Reads in flight for the install counts (the API client bounds requests in flight itself). */
const COUNT_READS_IN_FLIGHT = 16;

interface Observed {
  d: V1DeploymentViewModel;
  key: string;
  flow: string;
  waves: V1WaveViewModel[];
  app: string;
  appId?: string;
}

/** Deployments of owned flows (a Deployment manifest's, or started by the service), started at least once. */
function ownedRollouts(store: InventoryStore, live: LiveState, scan: RolloutScan | undefined): Observed[] {
  const { byDeploymentId, flowNames } = scan?.ownersOf(store.inventory) ?? walkOwners(store.inventory.objects);
  let packages: Map<string, LiveState['packages'][number]> | undefined;
  const h = store.inventory.history;
  const fresh = scan?.validFor(h) === true ? scan : undefined;
  const behind = trimmedAwayTest(h);
  const out: Observed[] = [];
  for (const f of live.flows) {
    const flow = flowNames.get(f.id);
    if (!flow || !f.details) continue;
    const found = fresh?.of(f.details) ?? worthRecording(h, behind, f.details);
    for (const { d, waves } of found) {
      packages ??= new Map(live.packages.map((p) => [p.id, p]));
      const p = packages.get(d.packageId);
      out.push({
        d,
        key: byDeploymentId.get(d.id) ?? `Flow/${flow}@${d.version}`,
        flow,
        waves,
        app: p?.productName ?? f.name,
        ...(p?.appId ? { appId: p.appId } : {}),
      });
    }
  }
  return out;
}

type Found = { d: V1DeploymentViewModel; waves: V1WaveViewModel[] };

/** Which state key records a live deployment id, and the name of the flow recorded under a live id. */
interface Owners {
  byDeploymentId: { get(id: string): string | undefined };
  flowNames: { get(id: string): string | undefined };
}

/** The owners, from a walk of every state entry (a pass whose state index was not made for this inventory). */
function walkOwners(objects: Inventory['objects']): Owners {
  const byDeploymentId = new Map<string, string>();
  const flowNames = new Map<string, string>();
  // Keys, not Object.entries: no [key, entry] pair for each of 20,000 entries, every pass.
  for (const key of Object.keys(objects)) {
    const e = objects[key]!;
    if (e.kind === 'Deployment') byDeploymentId.set(e.id, key);
    if (e.kind === 'Flow') flowNames.set(e.id, e.name);
  }
  return { byDeploymentId, flowNames };
}

/**
 * The owners, looked up in the plan's state index (live id → the key that owns it, else a
 * superseded key recording it): no walk of 20,000 entries after the last read. A live id is one
 * object's (ids are UUIDs), so the kind of the key found is checked, not assumed.
 */
function indexOwners(index: StateIndex): Owners {
  const keyOf = (id: string, kind: string): string | undefined => {
    const key = index.keyOf(id);
    return key !== undefined && index.entries.get(key)?.kind === kind ? key : undefined;
  };
  return {
    byDeploymentId: { get: (id) => keyOf(id, 'Deployment') },
    flowNames: {
      get: (id) => {
        const key = keyOf(id, 'Flow');
        return key === undefined ? undefined : index.entries.get(key)!.name;
      },
    },
  };
}

/** The deployments of one flow's details worth recording: started, and not trimmed away long ago. */
function worthRecording(
  h: History | undefined,
  behind: (startedAt: string | null | undefined) => boolean,
  details: V1FlowDetailsViewModel,
): Found[] {
  const found: Found[] = [];
  // Sorted when a rollout of the flow is kept (most are behind the horizon at fleet scale).
  let waves: V1WaveViewModel[] | undefined;
  for (const d of details.deployments) {
    if (d.status === 'NotStarted' || !d.startedAt) continue;
    // Trimmed away long ago (most of 15,000 at fleet scale): nothing to record, nothing to build.
    if (findRollout(h, d.id) === undefined && behind(d.startedAt)) continue;
    waves ??= [...details.waves].sort((a, b) => a.index - b.index);
    found.push({ d, waves });
  }
  return found;
}

const NOTHING: readonly Found[] = [];

/**
 * Each owned flow's rollouts worth recording, found as its details arrive, while the pass's other
 * reads are in flight (docs/architecture.md, "The engine"): the 15,000 deployments of a large
 * fleet were walked after the last answer. Used only for the very details objects it saw, and only
 * while the history holds the rollouts and horizon it judged by (a drift record changes neither);
 * otherwise the flow is walked when the history is recorded, as before.
 */
export class RolloutScan {
  private readonly flows = new WeakMap<V1FlowDetailsViewModel, readonly Found[]>();
  private readonly horizon: string | undefined;
  private readonly rollouts: number;
  private behind: ((startedAt: string | null | undefined) => boolean) | undefined;
  private index: StateIndex | undefined;

  constructor(private readonly history: History | undefined) {
    this.horizon = history?.horizon;
    this.rollouts = history?.rollouts.length ?? 0;
  }

  /** One flow's details, as the pass will hold them. Never throws: the history is evidence. */
  see(details: V1FlowDetailsViewModel): void {
    try {
      this.behind ??= trimmedAwayTest(this.history);
      const found = worthRecording(this.history, this.behind, details);
      // Most flows of a large fleet have nothing worth recording: one shared empty list for them.
      this.flows.set(details, found.length > 0 ? found : NOTHING);
    } catch {
      // Walked again when the history is recorded.
    }
  }

  /** Whether what it found still holds for `h`: the same rollouts (they are only added or trimmed) and horizon. */
  validFor(h: History | undefined): boolean {
    const same = h === this.history || (this.history === undefined && h !== undefined && h.rollouts.length === 0);
    return same && h?.horizon === this.horizon && (h?.rollouts.length ?? 0) === this.rollouts;
  }

  of(details: V1FlowDetailsViewModel): readonly Found[] | undefined {
    return this.flows.get(details);
  }

  /** The plan's state index, made while the reads were in flight (`preparePlan`). */
  useIndex(index: StateIndex): void {
    this.index = index;
  }

  /** Owners from that index, when it was made of `inventory` (nothing writes its entries between the plan and the recording). */
  ownersOf(inventory: Inventory): Owners | undefined {
    return this.index?.inventory === inventory ? indexOwners(this.index) : undefined;
  }
}

/** A rollout whose install counts this pass reads: its waves up to `upTo` (those it reached). */
interface Counted {
  d: V1DeploymentViewModel;
  waves: V1WaveViewModel[];
  upTo: number;
}

/**
 * Records what is new of one rollout. Returns the waves whose install counts to read (0: none):
 * all of them when it is first seen complete, those it reached when first seen stopped or failed,
 * or running in a wave (2 or later) its counts were not read in yet.
 */
async function recordRollout(store: InventoryStore, o: Observed, now: string): Promise<number> {
  const { d } = o;
  const history = store.inventory.history;
  let r = findRollout(history, d.id);
  if (!r && trimmedAway(history, d.startedAt)) return 0;
  if (!r) {
    await store.history({
      type: 'rollout',
      rollout: {
        deploymentId: d.id,
        key: o.key,
        flow: o.flow,
        flowId: d.flowId,
        app: o.app,
        ...(o.appId ? { appId: o.appId } : {}),
        version: d.version,
        packageId: d.packageId,
        waves: o.waves.map((w) => [...w.tenantIds]),
        delays: o.waves.map((w) => w.delayHours),
        startedAt: d.startedAt,
      },
    });
    r = findRollout(store.inventory.history, d.id);
    if (!r) return 0;
    await store.history({ type: 'wave', deploymentId: d.id, wave: 1, at: d.startedAt!, by: 'service' });
  }
  const last = d.status === 'Completed' ? d.waveCount : d.currentWave;
  for (let w = 2; w <= last; w++) {
    if (r.reached.some((x) => x.wave === w)) continue;
    await store.history({ type: 'wave', deploymentId: d.id, wave: w, at: reachedAt(r, w, d, now), by: 'service' });
  }
  const reached = Math.max(d.currentWave, 1);
  // Failed ends a rollout as a stop does; it is recorded once, as the stop (no later stoppedAt moves it).
  const stop = d.status === 'Stopped' ? d.stoppedAt : d.status === 'Failed' && !r.stoppedAt ? (d.stoppedAt ?? now) : null;
  if (stop && r.stoppedAt !== stop) {
    await store.history({ type: 'stop', deploymentId: d.id, at: stop });
    return reached;
  }
  if (d.status === 'Completed' && !r.completedAt) {
    await store.history({ type: 'complete', deploymentId: d.id, at: d.completedAt ?? now });
    return o.waves.length;
  }
  return d.status === 'Running' && d.currentWave >= 2 && (r.countsWave ?? 1) < d.currentWave ? reached : 0;
}

/**
 * When the service moved a rollout into wave `w` by itself: the previous wave's start plus its
 * delay (the service's rule), never later than packsync first saw it there (the pass's clock),
 * nor before the previous wave.
 */
function reachedAt(r: RolloutHistory, w: number, d: V1DeploymentViewModel, now: string): string {
  const prev = r.reached.find((x) => x.wave === w - 1);
  const delay = r.delays[w - 2];
  let at = Date.parse(now);
  if (d.status === 'Completed' && d.completedAt && w === d.waveCount) at = Math.min(at, Date.parse(d.completedAt));
  if (prev && delay !== undefined) at = Math.max(Date.parse(prev.at), Math.min(at, Date.parse(prev.at) + delay * 3_600_000));
  return new Date(at).toISOString();
}

/**
 * Reads each wave of the counted rollouts once (the deployments of one flow share its waves, and a
 * wave's live data names the one deployment it shows), then records each rollout's counts from
 * the waves that show it, with the wave it was read in (also when none showed it: it is not read
 * again in that wave). Returns the reads made.
 */
async function recordCounts(store: InventoryStore, api: PacksyncApi, completed: Counted[], now: string): Promise<number> {
  const waveIds = [...new Set(completed.flatMap((c) => c.waves.map((w) => w.id)))];
  const wanted = new Set(completed.map((c) => c.d.id));
  const tenants = new Map<string, Record<string, TenantCounts>>();
  // Each wave's figures are folded in as it arrives: holding every response until the last one
  // (thousands of waves after a busy week) was the peak of a whole apply (docs/performance.md).
  await mapLimit(waveIds, COUNT_READS_IN_FLIGHT, async (id) => {
    const w = await api.getWaveLive(id).catch(() => null);
    if (!w?.deploymentId || !wanted.has(w.deploymentId)) return;
    const counts = tenants.get(w.deploymentId) ?? {};
    for (const t of w.tenants) counts[t.tenantId] = { installed: t.installed, failed: t.failed, pending: t.pending };
    tenants.set(w.deploymentId, counts);
  });
  for (const { d, upTo } of completed) {
    const counts = tenants.get(d.id) ?? {};
    await store.history({ type: 'counts', deploymentId: d.id, at: now, tenants: counts, wave: upTo });
  }
  return waveIds.length;
}

/** A drift is recorded when it is new for its object, or what was found or done changed. */
async function recordDrift(store: InventoryStore, plan: Plan, now: string): Promise<void> {
  for (const o of plan.objects) {
    if (!o.drift) continue;
    const what = o.reasons[0] ?? 'changed outside packsync';
    const action = o.drift === 'healed' ? 'healed' : 'reported';
    const prev = lastDrift(store.inventory.history, o.key);
    if (prev && prev.what === what && prev.action === action && action === 'reported') continue;
    await store.history({ type: 'drift', record: { at: now, key: o.key, what, action, revision: plan.revision } });
  }
}
