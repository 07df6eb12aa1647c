/**
 * The decisions behind reconciling an owned, live deployment in place, as pure functions: values
 * in (git's state, the live deployment, what packsync recorded), a decision out. No ids, no
 * context: deployment-reconcile.ts turns the decisions into actions, in the order they are taken
 * here (state, then the wave gate, then the content revision).
 */
import type { V1DeploymentViewModel } from '../../api/wire/index.js';
import type { DeploymentState } from '../../manifests/model.js';
import type { InventoryEntry } from '../../state/inventory-types.js';
import { OP } from '../ops.js';
import type { DriftHandling, FieldChange, PlanOptions } from '../types.js';
import { pastGateReason } from '../gates/wave-gate.js';

/** A write to the live deployment a decision asks for; skip-wave says the wave it stops below. */
export type DeploymentWrite =
  | { op: typeof OP.start | typeof OP.stop | typeof OP.updateContent; description: string }
  | { op: typeof OP.skipWave; description: string; untilWave: number };

/** What one decision adds to the deployment's planned object (each list in order). */
export interface Step {
  reasons: string[];
  fields: FieldChange[];
  writes: DeploymentWrite[];
}

/**
 * A decision that adds nothing, the answer for most deployments of a pass: one frozen value shared by
 * all of them rather than three fresh arrays each (15,000 deployments in a large fleet's no-op).
 */
const NOTHING: Step = Object.freeze({
  reasons: Object.freeze([]),
  fields: Object.freeze([]),
  writes: Object.freeze([]),
}) as unknown as Step;
const NOTHING_STATE: StateDecision = Object.freeze({
  kind: 'none',
  reasons: NOTHING.reasons,
  fields: NOTHING.fields,
  writes: NOTHING.writes,
});

/** The live fields the decisions read. */
export type LiveDeployment = Pick<V1DeploymentViewModel, 'status' | 'currentWave' | 'waveCount' | 'contentUpdateStatus'>;

/** How drift of one object is handled this pass. */
export interface DriftPolicy {
  /** Heal it with a write (drift: heal, and not held by the agent's backoff). */
  heal: boolean;
  /** The agent's per-object heal backoff holds it (docs/reconcile.md): only reported. */
  held: boolean;
  /** The words in the reason line. */
  label: string;
}

export function driftPolicy(options: Pick<PlanOptions, 'drift' | 'driftHold'>, key: string): DriftPolicy {
  // The agent holds healing of an object it healed moments ago (per-object backoff, docs/reconcile.md), so
  // a fight with someone in the web console cannot become a loop: held drift is only reported.
  const held = options.driftHold?.includes(key) === true;
  return { heal: options.drift === 'heal' && !held, held, label: held ? 'heal held by backoff' : options.drift };
}

/** A live deployment's status in manifest words. */
export function statusAsState(live: Pick<V1DeploymentViewModel, 'status'>): DeploymentState {
  if (live.status === 'NotStarted') return 'pending';
  if (live.status === 'Stopped') return 'stopped';
  return 'running';
}

/**
 * The state transition: `start`/`stop` when git's state changed; `drift` when live was changed
 * outside packsync against the state it applied (healed by the same write, or only reported);
 * `unhealable` when no call can undo it (a started deployment cannot return to pending); `held`
 * while a failed promotion gate holds it (never started, not even to heal drift).
 */
export type StateDecision = Step & { kind: 'none' | 'held' | 'transition' | 'drift' | 'unhealable' };

export function decideState(
  key: string,
  state: DeploymentState,
  live: LiveDeployment,
  entry: Pick<InventoryEntry, 'appliedState' | 'hold'>,
  policy: DriftPolicy,
): StateDecision {
  const notRunning = live.status === 'NotStarted' || live.status === 'Stopped';
  if (entry.hold && state === 'running' && notRunning) {
    // Until `packsync resume` releases it (docs/manifests.md).
    const reason = `held by its promotion gate (wave ${entry.hold.wave}): ${entry.hold.reason}; \`packsync resume ${key} --reason ...\` releases it`;
    return { kind: 'held', reasons: [reason], fields: [], writes: [] };
  }
  if (state === 'running' && notRunning) {
    if (live.status === 'Stopped' && entry.appliedState === 'running') {
      const reason = `stopped outside packsync while git says running (drift: ${policy.label})`;
      return drift(reason, policy.heal ? { op: OP.start, description: 'start again (heal drift)' } : undefined);
    }
    const field = { field: 'state', from: statusAsState(live), to: 'running' };
    return { kind: 'transition', reasons: [], fields: [field], writes: [{ op: OP.start, description: 'start' }] };
  }
  if (state === 'stopped' && live.status === 'Running') {
    if (entry.appliedState === 'stopped') {
      const reason = `started outside packsync while git says stopped (drift: ${policy.label})`;
      return drift(reason, policy.heal ? { op: OP.stop, description: 'stop again (heal drift)' } : undefined);
    }
    const field = { field: 'state', from: 'running', to: 'stopped' };
    return { kind: 'transition', reasons: [], fields: [field], writes: [{ op: OP.stop, description: 'stop' }] };
  }
  if (state === 'pending' && live.status !== 'NotStarted') {
    // Reported on every pass (never shown as a change, never forgotten) until git says running or stopped.
    // Who started it: packsync did when it last applied `running` (git said so earlier).
    const who = entry.appliedState === 'running' ? 'started by packsync while git said running' : 'started outside git';
    const reason = `is ${live.status} (wave ${live.currentWave}/${live.waveCount}) while git says pending: ${who}; a started deployment cannot return to pending, so set state: running or stopped`;
    return { kind: 'unhealable', reasons: [reason], fields: [], writes: [] };
  }
  return NOTHING_STATE;
}

function drift(reason: string, heal: DeploymentWrite | undefined): StateDecision {
  return { kind: 'drift', reasons: [reason], fields: [], writes: heal ? [heal] : [] };
}

/**
 * The manual wave gate (`spec.wave`): one guarded skip-wave per wave below it, for a deployment
 * that runs or that this pass starts; a live wave already past the gate is said, never undone.
 */
export function decideWave(gate: number | undefined, willRun: boolean, live: LiveDeployment): Step {
  if (gate === undefined || !willRun) return NOTHING;
  const step: Step = { reasons: [], fields: [], writes: [] };
  const current = Math.max(live.currentWave, 1);
  const target = live.waveCount > 0 ? Math.min(gate, live.waveCount) : gate;
  if (current < target) {
    step.fields.push({ field: 'wave', from: current, to: target });
    for (let w = current; w < target; w++)
      step.writes.push({ op: OP.skipWave, description: `skip wave ${w} → ${w + 1}`, untilWave: w + 1 });
  }
  const past = pastGateReason(gate, live);
  if (past) step.reasons.push(past);
  return step;
}

/** Whether the deployment runs after this pass's state decision (the wave gate applies only then). */
export function willRun(state: DeploymentState, live: LiveDeployment, decision: StateDecision): boolean {
  return state === 'running' && (live.status === 'Running' || decision.writes.length > 0);
}

/**
 * `contentRevision`: a changed revision asks for one update-content, except before the deployment
 * starts (its content is fresh then: the revision is only recorded) and while an update runs.
 */
export function decideContent(want: number | undefined, recorded: number | undefined, live: LiveDeployment): Step {
  if (want === undefined || recorded === want) return NOTHING;
  const step: Step = { reasons: [], fields: [], writes: [] };
  if (live.status === 'NotStarted') step.reasons.push('contentRevision recorded: content is fresh until the deployment starts');
  else if (live.contentUpdateStatus === 'Running') step.reasons.push('a content update is already running');
  else {
    step.fields.push({ field: 'contentRevision', from: recorded ?? null, to: want });
    step.writes.push({ op: OP.updateContent, description: `update content (revision ${want})` });
  }
  return step;
}

/**
 * How the object ends. Drift that is only reported stops short of recording the applied state, so
 * it stays visible on every pass; so does unhealable drift when nothing else was written.
 */
export function settle(decision: StateDecision, policy: DriftPolicy, wrote: boolean): { reportOnly: boolean; drift?: DriftHandling } {
  if (decision.kind === 'drift') return { reportOnly: !policy.heal, drift: policy.held ? 'held' : policy.heal ? 'healed' : 'reported' };
  if (decision.kind === 'unhealable' && !wrote) return { reportOnly: true, drift: 'reported' };
  return RECORDED;
}

/** The usual end (nothing only reported), shared. */
const RECORDED: { reportOnly: boolean } = Object.freeze({ reportOnly: false });

/**
 * The entry as applied after this pass. A hold keeps the applied state the gate recorded, so
 * releasing it makes the start a change; the revision is recorded once updated, or before a start.
 */
export function appliedEntry(
  entry: InventoryEntry,
  state: DeploymentState,
  want: number | undefined,
  contentUpdated: boolean,
  live: LiveDeployment,
): InventoryEntry {
  const updated: InventoryEntry = { ...entry, appliedState: entry.hold ? (entry.appliedState ?? state) : state };
  if (want !== undefined && (contentUpdated || live.status === 'NotStarted')) updated.contentRevision = want;
  return updated;
}

/** A record of the applied state is written when anything was, or when what it records moved. */
export function needsRecord(entry: InventoryEntry, updated: InventoryEntry, wrote: boolean): boolean {
  return wrote || updated.appliedState !== entry.appliedState || updated.contentRevision !== entry.contentRevision;
}
