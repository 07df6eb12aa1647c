/**
 * The shapes of the agent's status (`/status`, the status page, `run --once`): conditions with
 * their closed reason vocabulary, pass records, per-object results and progress.
 */
import type { ExpiredException } from '../../plan/types.js';
import type { WindowState } from '../../plan/windows/window-types.js';
import type { ApprovalVerdict } from '../approvals.js';
import type { ObjectOutcome } from '../../apply/executor.js';
import type { Problem } from '../../manifests/model.js';
import type { AgentEvent } from '../events.js';
import type { GateLogEntry } from '../../state/inventory-types.js';
import type { DeploymentStatus } from '../../api/wire/index.js';
import type { GateReport, TenantGate } from '../../plan/gates/promotion.js';
import type { ErrorCode } from '../../util/errors.js';

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
  /** The two-person rule (docs/policy.md): the revision waits for more trusted signers; nothing of it applied. */
  'ApprovalPending',
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
  /** When `lastAppliedRevision` came into force (the pass that applied it; after a restart, this process's first pass over it). */
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
  /** Managed deployments: status, wave k/n, gate, tenants (docs/agent.md rollout board). */
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
  /** Deployments under change windows as the last pass saw them: open, or what waits and the next window (docs/policy.md). */
  windows: WindowState[];
  /** With `--policy`: the approvals the tracked revision needs, found and missing (null when none are needed). */
  approvals: ApprovalVerdict | null;
  /** Baseline exceptions past their `expires` date, as the last pass planned (docs/baselines.md). */
  expiredExceptions: ExpiredException[];
  /**
   * Deployments the service started by itself in owned flows (`startNewVersionsAutomatically`), as
   * the last pass saw them: they belong to the service, not to git (docs/reconcile.md, "Service-driven flows").
   */
  serviceStarted: { flow: string; id: string; version: string; status: string; wave: string }[];
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

export type TenantWaveStatus = 'Pending' | 'InProgress' | 'Completed' | 'Failed' | 'Skipped';

export interface RolloutTenant {
  tenantId: string;
  /** The tenant's display name (or domain) when the pass read tenants; else its id. */
  tenant: string;
  wave: number;
  status: TenantWaveStatus;
  /** Known for the current wave only (from its live data). */
  installed?: number;
  failed?: number;
}

export interface Rollout {
  /** `Deployment/name`. */
  deployment: string;
  id: string;
  flow: string;
  package: string;
  app: string;
  version: string;
  status: DeploymentStatus;
  currentWave: number;
  waveCount: number;
  startedAt: string | null;
  /** The wave gate from git (`spec.wave`): holding there, or passed. */
  gate?: { wave: number; verdict: 'holding' | 'passed' | 'before' };
  /** How long the current wave soaks before the next starts (the wave's delay). */
  soakHours?: number;
  /** Installed / (installed + failed) over the current wave's tenants, when its live data was read. */
  successRate?: number;
  /** Per tenant, by wave; the current wave's statuses come from the service, earlier waves are done, later ones pending. */
  tenants?: RolloutTenant[];
  /** The promotion gate's verdict of the last pass (`spec.promotion`), set by the gate tracker. */
  promotion?: RolloutStatus;
  /** Owned and live while its manifest left git: it requires pruning (still shown while it runs). */
  orphaned?: true;
  /** Its change window (docs/policy.md): open, or the next window and what waits for it. */
  window?: WindowState;
}

export interface RolloutStatus {
  deployment: string;
  deploymentId: string;
  /** The wave the gate judged this pass: after a carried-out skip-wave, the one before the rollout's `currentWave`. */
  wave: number;
  waveCount: number;
  /** This pass's action (skip-wave, stop, hold) landed: `line` says what was done, not what is to do. */
  carriedOut: boolean;
  /** The gate's verdict this pass; `Held` while a hold stands; `Unknown` when the live read failed. */
  verdict: 'Pass' | 'Fail' | 'Inconclusive' | 'Held' | 'Unknown';
  action: GateReport['action'];
  soak: { elapsedMs: number; requiredMs: number; since: string };
  successRate: number | null;
  devices: number;
  tenants: TenantGate[];
  reason: string;
  line: string;
  held?: { at: string; wave: number; reason: string; stopped: boolean };
  /** The last promote or resume by a person. */
  lastCommand?: GateLogEntry;
  nextCheckAt?: string;
}
