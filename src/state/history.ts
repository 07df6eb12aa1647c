/**
 * The history the evidence report reads (docs/reports.md#history): what each rollout did (start,
 * every wave reached, completion or stop, gate verdicts, holds and resumes, install counts) and
 * the drift found and what was done about it. It lives in the inventory's snapshot as `history`
 * and travels through the same journal as every other change (one `history` record per event), so
 * it survives restarts and remote state exactly like the inventory does.
 *
 * Bounded: the newest ROLLOUT_CAP rollouts, GATE_CAP gate entries a rollout, DRIFT_CAP drift
 * records. Recording is O(1): an index (not serialised) finds a rollout by deployment id, and the
 * oldest entries are dropped in batches of a quarter of the cap, so trimming is amortised O(1).
 */

export const ROLLOUT_CAP = 1000;
export const GATE_CAP = 40;
export const DRIFT_CAP = 1000;
/** Waves kept for rollouts the history has not recorded yet (`History.early`). */
export const EARLY_CAP = 200;

export interface RolloutHistory {
  deploymentId: string;
  /** `Deployment/NAME` when a manifest names it, else `Flow/NAME@VERSION` (started by the service). */
  key: string;
  flow: string;
  flowId: string;
  app: string;
  /** The catalog app id of the package, when it is a catalog package (the report reads its release time). */
  appId?: string;
  version: string;
  packageId: string;
  /** Tenant ids of each wave when the rollout was first seen (index 0 is wave 1). */
  waves: string[][];
  /** Delay of each wave in hours, as the flow said when first seen. */
  delays: number[];
  startedAt: string | null;
  /** Each wave reached, in order: the service's start, a skip-wave, or the wave's delay after the previous one. */
  reached: { wave: number; at: string; by: 'service' | 'gate' | 'command' }[];
  completedAt?: string;
  stoppedAt?: string;
  gates: HistoryGateEntry[];
  /** Install counts per tenant id, as last read (a wave first seen, the end: completion or stop). */
  counts?: { at: string; tenants: Record<string, TenantCounts> };
  /**
   * The rollout's wave when its counts were last read, whether the wave live data still showed it
   * or not: a running rollout's counts are read once per wave it is seen in, never again on every pass.
   */
  countsWave?: number;
}

export interface TenantCounts {
  installed: number;
  failed: number;
  pending: number;
}

export interface HistoryGateEntry {
  at: string;
  // The gate log's actions (inventory-types.ts GateLogEntry), break glass included.
  action: 'skip-wave' | 'stop' | 'hold' | 'promote' | 'resume' | 'ignore-windows';
  wave: number;
  by: 'gate' | 'command';
  reason: string;
}

export interface DriftRecord {
  at: string;
  /** `Kind/name` of the object that drifted. */
  key: string;
  what: string;
  /** `healed`: packsync set it back; `reported`: only reported (`--drift report`, or the heal backoff). */
  action: 'healed' | 'reported';
  revision: string | null;
}

export interface History {
  rollouts: RolloutHistory[];
  drift: DriftRecord[];
  /**
   * The newest start of a rollout trimmed away by the cap: a live rollout started at or before it
   * and not in `rollouts` is one that was trimmed, and is not recorded again (see `trimmedAway`).
   */
  horizon?: string;
  /**
   * Waves packsync moved a rollout into before the history recorded the rollout (a Deployment
   * started and skipped forward by its `spec.wave` in one pass: its start is recorded at the next
   * pass, which first sees it started). Folded into the rollout when it is recorded, so the wave
   * keeps the skip's own time; the newest EARLY_CAP are kept (a rollout trimmed away never claims its own).
   */
  early?: WaveReached[];
  /**
   * Gate entries made before the history recorded the rollout: a `packsync promote` (its reason and
   * `by`), a break glass or a gate's skip of a deployment started in the same pass. Claimed like
   * `early` when the rollout is recorded; without them the report lost the promote's reason.
   */
  earlyGates?: EarlyGate[];
}

export type EarlyGate = { deploymentId: string; entry: HistoryGateEntry };

export type WaveReached = { deploymentId: string; wave: number; at: string; by: 'service' | 'gate' | 'command' };

export type RolloutStart = Omit<RolloutHistory, 'reached' | 'gates' | 'counts' | 'countsWave' | 'completedAt' | 'stoppedAt'>;

/** One journal record's payload: each is O(1) to apply. */
export type HistoryEvent =
  | { type: 'rollout'; rollout: RolloutStart }
  | ({ type: 'wave' } & WaveReached)
  | { type: 'complete'; deploymentId: string; at: string }
  | { type: 'stop'; deploymentId: string; at: string }
  | { type: 'gate'; deploymentId: string; entry: HistoryGateEntry }
  /** `tenants` empty: read, but the wave live data showed another deployment (only `wave` is kept). */
  | { type: 'counts'; deploymentId: string; at: string; tenants: Record<string, TenantCounts>; wave?: number }
  | { type: 'drift'; record: DriftRecord }
  /** Rollouts started at or before `at` are not recorded (more were seen at once than the cap keeps). */
  | { type: 'horizon'; at: string };

export function emptyHistory(): History {
  return { rollouts: [], drift: [] };
}

const indexes = new WeakMap<History, { rollouts: Map<string, RolloutHistory>; drift: Map<string, DriftRecord> }>();

function indexOf(h: History): { rollouts: Map<string, RolloutHistory>; drift: Map<string, DriftRecord> } {
  let ix = indexes.get(h);
  if (!ix) {
    ix = { rollouts: new Map(h.rollouts.map((r) => [r.deploymentId, r])), drift: new Map(h.drift.map((d) => [d.key, d])) };
    indexes.set(h, ix);
  }
  return ix;
}

export function findRollout(h: History | undefined, deploymentId: string): RolloutHistory | undefined {
  return h ? indexOf(h).rollouts.get(deploymentId) : undefined;
}

/** The newest drift record of an object (to record a drift only when what or the action changed). */
export function lastDrift(h: History | undefined, key: string): DriftRecord | undefined {
  return h ? indexOf(h).drift.get(key) : undefined;
}

/**
 * Whether a rollout absent from the history was trimmed away by the cap (started at or before the
 * horizon). Without this, an account with more rollouts than the cap recorded the trimmed ones
 * again on every pass, and read their install counts again: thousands of reads in a no-op.
 */
export function trimmedAway(h: History | undefined, startedAt: string | null | undefined): boolean {
  return trimmedAwayTest(h)(startedAt);
}

/** `trimmedAway` for many rollouts against one history: the horizon is parsed once, not per rollout. */
export function trimmedAwayTest(h: History | undefined): (startedAt: string | null | undefined) => boolean {
  if (!h?.horizon) return () => false;
  const horizon = Date.parse(h.horizon);
  return (startedAt) => (startedAt ? Date.parse(startedAt) <= horizon : true);
}

/** Drops the oldest-started rollouts down to the cap (ties: the first recorded), moving the horizon past them. */
function trimRollouts(h: History, index: Map<string, RolloutHistory>): void {
  const start = (r: RolloutHistory): number => (r.startedAt ? Date.parse(r.startedAt) : 0);
  const oldest = [...h.rollouts].sort((a, b) => start(a) - start(b)).slice(0, h.rollouts.length - ROLLOUT_CAP);
  const gone = new Set(oldest);
  let horizon = 0;
  for (const r of oldest) {
    index.delete(r.deploymentId);
    horizon = Math.max(horizon, start(r));
  }
  h.rollouts = h.rollouts.filter((r) => !gone.has(r));
  if (horizon > 0) advanceHorizon(h, new Date(horizon).toISOString());
}

/** The horizon only moves forward: to `at`, when that is later. */
function advanceHorizon(h: History, at: string): void {
  if (!h.horizon || Date.parse(at) > Date.parse(h.horizon)) h.horizon = at;
}

/** Applies one event; other events of unknown deployments are ignored (their `rollout` event was trimmed away), a wave is kept early. */
export function applyHistory(h: History, e: HistoryEvent): void {
  const ix = indexOf(h);
  if (e.type === 'rollout') {
    if (ix.rollouts.has(e.rollout.deploymentId)) return;
    const r: RolloutHistory = { ...e.rollout, reached: [], gates: [] };
    h.rollouts.push(r);
    ix.rollouts.set(r.deploymentId, r);
    claimEarly(h, r);
    if (h.rollouts.length > ROLLOUT_CAP + ROLLOUT_CAP / 4) trimRollouts(h, ix.rollouts);
    return;
  }
  if (e.type === 'horizon') {
    advanceHorizon(h, e.at);
    return;
  }
  if (e.type === 'drift') {
    h.drift.push(e.record);
    ix.drift.set(e.record.key, e.record);
    if (h.drift.length > DRIFT_CAP + DRIFT_CAP / 4) {
      for (const old of h.drift.splice(0, h.drift.length - DRIFT_CAP)) if (ix.drift.get(old.key) === old) ix.drift.delete(old.key);
    }
    return;
  }
  const r = ix.rollouts.get(e.deploymentId);
  if (!r) {
    if (e.type === 'wave') keepEarly(h, e);
    if (e.type === 'gate') keepEarlyGate(h, e);
    return;
  }
  switch (e.type) {
    case 'wave':
      addReached(r, e);
      return;
    case 'complete':
      r.completedAt ??= e.at;
      return;
    case 'stop':
      r.stoppedAt = e.at;
      return;
    case 'gate':
      addGate(r, e.entry);
      return;
    case 'counts':
      if (e.wave !== undefined) r.countsWave = Math.max(r.countsWave ?? 0, e.wave);
      if (Object.keys(e.tenants).length > 0) r.counts = { at: e.at, tenants: { ...r.counts?.tenants, ...e.tenants } };
      return;
  }
}

/** A wave reached, once per wave, `reached` kept in wave order (an early wave is claimed before wave 1 is recorded). */
function addReached(r: RolloutHistory, w: WaveReached): void {
  if (r.reached.some((x) => x.wave === w.wave)) return;
  r.reached.push({ wave: w.wave, at: w.at, by: w.by });
  if (r.reached.length > 1 && r.reached[r.reached.length - 2]!.wave > w.wave) r.reached.sort((a, b) => a.wave - b.wave);
}

/** A wave of a rollout not recorded yet: kept until its rollout is (see `History.early`). */
function keepEarly(h: History, e: WaveReached): void {
  const early = (h.early ??= []);
  early.push({ deploymentId: e.deploymentId, wave: e.wave, at: e.at, by: e.by });
  if (early.length > EARLY_CAP + EARLY_CAP / 4) early.splice(0, early.length - EARLY_CAP);
}

function addGate(r: RolloutHistory, entry: HistoryGateEntry): void {
  r.gates.push(entry);
  if (r.gates.length > GATE_CAP) r.gates.splice(0, r.gates.length - GATE_CAP);
}

/** A gate entry of a rollout not recorded yet: kept until its rollout is (see `History.earlyGates`). */
function keepEarlyGate(h: History, e: EarlyGate): void {
  const early = (h.earlyGates ??= []);
  early.push({ deploymentId: e.deploymentId, entry: e.entry });
  if (early.length > EARLY_CAP + EARLY_CAP / 4) early.splice(0, early.length - EARLY_CAP);
}

/** Moves the early waves and gate entries of a rollout just recorded into it. */
function claimEarly(h: History, r: RolloutHistory): void {
  if (h.early?.some((w) => w.deploymentId === r.deploymentId)) {
    for (const w of h.early) if (w.deploymentId === r.deploymentId) addReached(r, w);
    h.early = h.early.filter((w) => w.deploymentId !== r.deploymentId);
    if (h.early.length === 0) delete h.early;
  }
  if (h.earlyGates?.some((g) => g.deploymentId === r.deploymentId)) {
    for (const g of h.earlyGates) if (g.deploymentId === r.deploymentId) addGate(r, g.entry);
    h.earlyGates = h.earlyGates.filter((g) => g.deploymentId !== r.deploymentId);
    if (h.earlyGates.length === 0) delete h.earlyGates;
  }
}

/** Reads `history` from a snapshot as stored; anything malformed is dropped rather than failing the state. */
export function parseHistory(value: unknown): History {
  const h = value as Partial<History> | undefined;
  return {
    rollouts: Array.isArray(h?.rollouts) ? h.rollouts : [],
    drift: Array.isArray(h?.drift) ? h.drift : [],
    ...(typeof h?.horizon === 'string' ? { horizon: h.horizon } : {}),
    ...(Array.isArray(h?.early) && h.early.length > 0 ? { early: h.early } : {}),
    ...(Array.isArray(h?.earlyGates) && h.earlyGates.length > 0 ? { earlyGates: h.earlyGates } : {}),
  };
}
