/**
 * The shapes of the agent's status (`/status`, the status page, `run --once`): conditions with
 * their closed reason vocabulary, pass records, per-object results and progress.
 */
import type { ObjectOutcome } from '../apply/executor.js';
import type { Problem } from '../manifests/model.js';
import type { AgentEvent } from './events.js';
import type { RolloutStatus } from './gate-tracker.js';
import type { Rollout } from './rollouts.js';
import type { ErrorCode } from '../util/errors.js';

/**
 * `RolloutsHealthy`: False while a deployment is held by its promotion gate or reported Failed by the
 * service. Ready stays True then (the pass did what git asks, the gate did its job), but the agent
 * must not look green while a rollout is halted: this is the condition to alert on.
 */
export type ConditionType = 'Ready' | 'Reconciling' | 'Stalled' | 'Drifted' | 'RolloutsHealthy' | 'SourceVerified';

/** Condition reasons: a closed, load-bearing vocabulary (alerts and dashboards match on them). */
export const CONDITION_REASONS = [
  'Progressing',
  'Idle',
  'Healthy',
  'InSync',
  'DriftDetected',
  /** Owned objects exist live while their manifests left git (Argo CD's "requires pruning"). */
  'PruningRequired',
  'RolloutHeld',
  'RolloutFailed',
  'ReconciliationSucceeded',
  'ReconciliationFailed',
  'ReconciliationAborted',
  'RetryScheduled',
  'ValidationFailed',
  'VerificationFailed',
  'VerificationSucceeded',
  'SourceUnavailable',
  'WaitingOnService',
  /** A failure no retry can fix (a rejected API key, a forbidden call): waits for a new trigger. */
  'TerminalError',
] as const;
export type ConditionReason = (typeof CONDITION_REASONS)[number];
export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: ConditionType;
  status: ConditionStatus;
  reason: ConditionReason;
  message: string;
  lastTransitionTime: string;
}

export type PassResult = 'Succeeded' | 'Failed' | 'Invalid' | 'Aborted';

export interface PassRecord {
  revision: string | null;
  trigger: string;
  startedAt: string;
  durationMs: number;
  result: PassResult;
  counts: Record<string, number>;
  writes: number;
  message: string;
}

export interface ObjectStatus extends Omit<ObjectOutcome, 'error'> {
  error?: { code: ErrorCode; message: string };
  drift?: boolean;
  /** How drift was handled this pass: healed, only reported (`--drift report`), or held by the heal backoff. */
  driftHandling?: 'healed' | 'reported' | 'held';
  /** Where the object's manifest is, for needs-attention lines (FILE:LINE:COL). */
  source?: { file: string; line: number; column: number };
}

/** What the running pass is doing to one object (cleared when the pass ends). */
export interface ObjectProgress {
  object: string;
  state: 'working' | 'waiting' | 'done' | 'failed';
  activity: string;
  since: string;
  elapsedMs?: number;
}

export interface AgentStatus {
  source: Record<string, string>;
  lastAppliedRevision: string | null;
  lastAppliedAt: string | null;
  /** Who signed the applied revision (only with `--verify-mode`). */
  lastAppliedSigner: string | null;
  lastAttemptedRevision: string | null;
  lastPassAt: string | null;
  passes: number;
  conditions: Condition[];
  objects: ObjectStatus[];
  problems: Problem[];
  /** The running pass's per-object progress; empty between passes. */
  progress: ObjectProgress[];
  /** Managed deployments: status, wave k/n, gate, tenants (design §9 rollout board). */
  rollouts: Rollout[];
  /** When the next pass is due, if known (retry, requeue or interval). */
  nextPassAt: string | null;
  /** The newest pass, then every pass that changed or failed something; newest first. */
  history: PassRecord[];
  /** Passes that changed nothing and were dropped from the history once a newer pass came. */
  noOpPasses: number;
  /** Newest first, bounded; an event seen again bumps its count and lastTimestamp. */
  events: AgentEvent[];
  /** Running deployments with promotion gates, as the last pass judged them (gate-tracker.ts); each is also on its rollout as `promotion`. */
  gates: RolloutStatus[];
}

export type PassListener = (
  p:
    | { phase: 'start'; revision: string | null }
    | {
        phase: 'finish';
        revision: string | null;
        ok: boolean;
        message: string;
        /** Applied, yet not fully in effect (objects that require pruning): the commit stays pending. */
        notInEffect?: string;
        /** A pass failure (an outage) on a revision an earlier pass applied: not a verdict on the commit. */
        alreadyApplied?: boolean;
      },
) => void;
