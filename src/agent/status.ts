/**
 * The agent's status, shaped like a Flux object's: a Ready condition plus Reconciling / Stalled
 * with PascalCase reasons, the last applied and last attempted revision, per-object results and a
 * bounded history. Messages carry no timestamps or request ids, so an unchanged failure reads the
 * same on every pass; times live in their own fields.
 */
import type { ObjectOutcome } from '../apply/executor.js';
import type { Problem } from '../manifests/model.js';
import type { RolloutStatus } from './rollouts.js';

export type ConditionType = 'Ready' | 'Reconciling' | 'Stalled' | 'SourceVerified';
export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: ConditionType;
  status: ConditionStatus;
  reason: string;
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
  error?: { code: string; message: string };
  drift?: boolean;
}

/** A Kubernetes-style event: emitted once per (revision, reason, object, message). */
export interface AgentEvent {
  time: string;
  type: 'Normal' | 'Warning';
  reason: string;
  object?: string;
  message: string;
  revision: string | null;
}

export const EVENT_LIMIT = 50;

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
  history: PassRecord[];
  /** Newest first, bounded; an unchanged failure is not repeated on every pass. */
  events: AgentEvent[];
  /** Running deployments with promotion gates, as the last pass judged them (rollouts.ts). */
  rollouts: RolloutStatus[];
}

export const HISTORY_LIMIT = 20;

export class StatusTracker {
  readonly status: AgentStatus;

  constructor(
    source: Record<string, string>,
    private readonly now: () => Date = () => new Date(),
  ) {
    const t = now().toISOString();
    this.status = {
      source,
      lastAppliedRevision: null,
      lastAppliedAt: null,
      lastAppliedSigner: null,
      lastAttemptedRevision: null,
      lastPassAt: null,
      passes: 0,
      conditions: [
        { type: 'Ready', status: 'Unknown', reason: 'Progressing', message: 'no pass has completed yet', lastTransitionTime: t },
        { type: 'Reconciling', status: 'False', reason: 'Idle', message: 'waiting for the first trigger', lastTransitionTime: t },
        { type: 'Stalled', status: 'False', reason: 'Healthy', message: '', lastTransitionTime: t },
      ],
      objects: [],
      problems: [],
      history: [],
      events: [],
      rollouts: [],
    };
  }

  private readonly emitted = new Set<string>();
  /** Signers of verified revisions, so the applied one can be named; bounded like the history. */
  private readonly signers = new Map<string, string | null>();
  /** The newest revision refused by signature verification, while it is the tracked head. */
  private refused: { revision: string; message: string } | null = null;

  /** Records an event unless the same one was already emitted for this revision. Returns true when new. */
  event(e: Omit<AgentEvent, 'time'>): boolean {
    const key = JSON.stringify([e.revision, e.reason, e.object ?? '', e.message]);
    if (this.emitted.has(key)) return false;
    this.emitted.add(key);
    if (this.emitted.size > 10 * EVENT_LIMIT) this.emitted.delete(this.emitted.values().next().value!);
    this.status.events.unshift({ time: this.now().toISOString(), ...e });
    this.status.events.length = Math.min(this.status.events.length, EVENT_LIMIT);
    return true;
  }

  condition(type: ConditionType): Condition {
    return this.status.conditions.find((c) => c.type === type)!;
  }

  /** Sets a condition (added on first use: SourceVerified exists only with verification); the transition time moves only when the status really changes. */
  set(type: ConditionType, status: ConditionStatus, reason: string, message: string): void {
    let c = this.status.conditions.find((x) => x.type === type);
    if (!c) {
      c = { type, status: 'Unknown', reason: '', message: '', lastTransitionTime: this.now().toISOString() };
      this.status.conditions.push(c);
    }
    if (c.status !== status) c.lastTransitionTime = this.now().toISOString();
    c.status = status;
    c.reason = reason;
    c.message = message;
  }

  /** The tracked revision's signature verified: it may be applied. */
  sourceVerified(revision: string, signer: string | null): void {
    this.refused = null;
    this.recordSigner(revision, signer);
    this.set('SourceVerified', 'True', 'VerificationSucceeded', `revision ${revision} is signed by ${signer ?? 'a trusted key'}`);
  }

  /** Remembers who signed a verified revision (also the last verified one restored after a restart). */
  recordSigner(revision: string, signer: string | null): void {
    this.signers.delete(revision);
    this.signers.set(revision, signer);
    if (this.signers.size > HISTORY_LIMIT) this.signers.delete(this.signers.keys().next().value!);
  }

  /** The tracked revision was refused; an earlier verified one (if any) stays in force. */
  sourceRefused(revision: string, message: string): void {
    this.refused = { revision, message };
    this.set('SourceVerified', 'False', 'VerificationFailed', message);
  }

  startPass(revision: string | null, trigger: string): void {
    // While the head is refused, the pass reconciles the last verified revision; what was attempted is the head.
    this.status.lastAttemptedRevision = this.refused?.revision ?? revision;
    this.set('Reconciling', 'True', 'Progressing', `reconciling ${revision ?? 'the source'} (trigger: ${trigger})`);
  }

  finishPass(rec: PassRecord, objects: ObjectStatus[] | null, problems: Problem[]): void {
    const s = this.status;
    s.passes++;
    s.lastPassAt = this.now().toISOString();
    s.history.unshift(rec);
    s.history.length = Math.min(s.history.length, HISTORY_LIMIT);
    if (objects) s.objects = objects;
    s.problems = problems;
    this.set('Reconciling', 'False', rec.result === 'Succeeded' ? 'ReconciliationSucceeded' : 'ReconciliationFailed', rec.message);
    switch (rec.result) {
      case 'Succeeded':
        s.lastAppliedRevision = rec.revision;
        s.lastAppliedAt = s.lastPassAt;
        s.lastAppliedSigner = (rec.revision !== null ? this.signers.get(rec.revision) : null) ?? null;
        this.set('Ready', 'True', 'ReconciliationSucceeded', rec.message);
        this.set('Stalled', 'False', 'Healthy', '');
        break;
      case 'Invalid':
        this.set('Ready', 'False', 'ValidationFailed', rec.message);
        this.set('Stalled', 'True', 'ValidationFailed', rec.message);
        break;
      case 'Failed':
        this.set('Ready', 'False', 'ReconciliationFailed', rec.message);
        this.set('Stalled', 'False', 'RetryScheduled', rec.message);
        break;
      case 'Aborted':
        this.set('Ready', 'False', 'ReconciliationAborted', rec.message);
        break;
    }
    // Keeping the last verified revision converged is not being ready: the tracked head is not applied.
    if (this.refused && rec.result !== 'Aborted') this.set('Ready', 'False', 'VerificationFailed', this.refused.message);
  }

  /** A source failure (fetch) before any plan: the last applied revision stays in force. */
  sourceFailed(message: string, reason = this.refused ? 'VerificationFailed' : 'SourceUnavailable'): void {
    this.set('Ready', 'False', reason, message);
    this.set('Reconciling', 'False', reason, message);
    this.set('Stalled', 'False', 'RetryScheduled', message);
  }
}
