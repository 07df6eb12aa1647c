/**
 * The agent's status, shaped like a Flux object's: a Ready condition plus Reconciling / Stalled
 * with PascalCase reasons, the last applied and last attempted revision, per-object results and a
 * bounded history. Messages carry no timestamps or request ids, so an unchanged failure reads the
 * same on every pass; times live in their own fields.
 */
import type { Problem } from '../../manifests/model.js';
import { EventLog } from '../events.js';
import type { EventInput } from '../events.js';

import type {
  AgentStatus,
  Condition,
  ConditionReason,
  ConditionStatus,
  ConditionType,
  ObjectProgress,
  ObjectStatus,
  PassListener,
  PassRecord,
} from './status-types.js';

/** Passes that changed or failed something kept in the history (the newest pass is always kept too). */
export const HISTORY_LIMIT = 100;

/** A pass worth keeping: it wrote, or it did not succeed. */
export function isNoOp(p: PassRecord): boolean {
  return p.result === 'Succeeded' && p.writes === 0;
}

export class StatusTracker {
  readonly status: AgentStatus;
  /** The event log; notifications listen to it. */
  readonly log: EventLog;

  constructor(
    source: Record<string, string>,
    private readonly now: () => Date = () => new Date(),
  ) {
    const t = now().toISOString();
    this.log = new EventLog(now);
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
        { type: 'Drifted', status: 'False', reason: 'InSync', message: '', lastTransitionTime: t },
        {
          type: 'RolloutsHealthy',
          status: 'Unknown',
          reason: 'Progressing',
          message: 'no pass has judged the rollouts yet',
          lastTransitionTime: t,
        },
      ],
      objects: [],
      problems: [],
      progress: [],
      rollouts: [],
      nextPassAt: null,
      history: [],
      noOpPasses: 0,
      events: this.log.events,
      gates: [],
      // Always present, empty when nothing applies: a reader (jq, a dashboard) need not tell "none" from "not known".
      windows: [],
      approvals: null,
      expiredExceptions: [],
      serviceStarted: [],
    };
  }

  /** When a retry or requeue is due (ms), and the schedule's (interval, cron) next fire times. */
  private retryAt: number | null = null;
  private readonly schedules: (() => number | null)[] = [];

  /** The loop's own retry, requeue or wake-up (null: none scheduled). */
  retryDue(at: number | null): void {
    this.retryAt = at;
    this.refreshNextPass();
  }

  /** A trigger that fires on its own (interval, cron): its next time counts as the next pass. */
  addSchedule(nextAt: () => number | null): void {
    this.schedules.push(nextAt);
    this.refreshNextPass();
  }

  /** The status as served: `nextPassAt` recomputed, since an interval moves on without telling. */
  view(): AgentStatus {
    this.refreshNextPass();
    return this.status;
  }

  /** Filesystem prefixes `/status` and the page never show, each with what it is shown as. */
  private privatePaths: { path: string; shownAs: string }[] = [];

  /** The agent's own paths (state directory, checkout, source directory): kept out of `publicView`. */
  hidePaths(paths: readonly { path: string; shownAs: string }[]): void {
    // Longest first: the checkout lies inside the state directory.
    this.privatePaths = [...this.privatePaths, ...paths.filter((p) => p.path.length > 1)].sort((a, b) => b.path.length - a.path.length);
  }

  /**
   * The status as `/status` and the page serve it, unauthenticated: messages that quote a file of
   * the checkout name it relative to the repository, and no absolute path of the agent's host or
   * volume appears (docs/agent.md, "Status").
   */
  publicView(): AgentStatus {
    const text = JSON.stringify(this.view());
    if (this.privatePaths.length === 0) return JSON.parse(text) as AgentStatus;
    let out = text;
    for (const p of this.privatePaths) {
      const at = JSON.stringify(p.path).slice(1, -1);
      out = out
        .split(`${at}/`)
        .join(p.shownAs === '' ? '' : `${p.shownAs}/`)
        .split(at)
        .join(p.shownAs || '.');
    }
    return JSON.parse(out) as AgentStatus;
  }

  private refreshNextPass(): void {
    const due = [this.retryAt, ...this.schedules.map((f) => f())].filter((t): t is number => t !== null);
    this.status.nextPassAt = due.length > 0 ? new Date(Math.min(...due)).toISOString() : null;
  }

  /** Signers of verified revisions, so the applied one can be named; bounded like the history. */
  private readonly signers = new Map<string, string | null>();
  /** The newest revision refused by signature verification, while it is the tracked head. */
  private refused: { revision: string; message: string } | null = null;

  /** Records an event occurrence; the same identity again only bumps its count. Returns true when new. */
  event(e: EventInput): boolean {
    return this.log.record(e);
  }

  /** Progress of one object in the running pass (apply events). */
  progress(object: string, state: ObjectProgress['state'], activity: string, elapsedMs?: number): void {
    const list = this.status.progress;
    const i = list.findIndex((p) => p.object === object);
    const since = i >= 0 && list[i]!.state === state ? list[i]!.since : this.now().toISOString();
    const p: ObjectProgress = { object, state, activity, since, ...(elapsedMs !== undefined ? { elapsedMs } : {}) };
    if (i >= 0) list[i] = p;
    else list.push(p);
  }

  /** Drift that is not healed this pass (reported, or held by the heal backoff): the Drifted condition. */
  drifted(keys: string[], orphaned: readonly string[] = []): void {
    const list = (xs: readonly string[]): string => `${xs.slice(0, 5).join(', ')}${xs.length > 5 ? ', …' : ''}`;
    const changed = keys.length > 0 ? `${keys.length} object(s) changed outside packsync: ${list(keys)}` : '';
    // Argo CD's "requires pruning": git no longer has them, the service still runs them.
    const prune =
      orphaned.length > 0
        ? `${orphaned.length} object(s) require pruning (their manifests left git; apply with --prune): ${list(orphaned)}`
        : '';
    if (!changed && !prune) this.set('Drifted', 'False', 'InSync', '');
    else this.set('Drifted', 'True', changed ? 'DriftDetected' : 'PruningRequired', [changed, prune].filter(Boolean).join('; '));
  }

  /** Rollouts halted by a promotion gate (held) or failed in the service: the RolloutsHealthy condition. */
  rolloutHealth(held: string[], failed: string[]): void {
    const list = (keys: string[]): string => `${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}`;
    if (failed.length > 0)
      this.set(
        'RolloutsHealthy',
        'False',
        'RolloutFailed',
        `${failed.length} rollout(s) failed in the service: ${list(failed)}${held.length > 0 ? `; ${held.length} held by their promotion gate` : ''}`,
      );
    else if (held.length > 0)
      this.set(
        'RolloutsHealthy',
        'False',
        'RolloutHeld',
        `${held.length} rollout(s) held by their promotion gate: ${list(held)} (packsync resume releases one)`,
      );
    else this.set('RolloutsHealthy', 'True', 'Healthy', '');
  }

  condition(type: ConditionType): Condition {
    return this.status.conditions.find((c) => c.type === type)!;
  }

  /** Sets a condition (added on first use: SourceVerified exists only with verification); the transition time moves only when the status really changes. */
  set(type: ConditionType, status: ConditionStatus, reason: ConditionReason, message: string): void {
    let c = this.status.conditions.find((x) => x.type === type);
    if (!c) {
      c = { type, status: 'Unknown', reason, message, lastTransitionTime: this.now().toISOString() };
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

  private readonly passListeners: PassListener[] = [];
  private passStarted = false;

  /** Pass starts and ends (commit status notifications). */
  onPass(l: PassListener): void {
    this.passListeners.push(l);
  }

  startPass(revision: string | null, trigger: string): void {
    // While the head is refused, the pass reconciles the last verified revision; what was attempted is the head.
    this.status.lastAttemptedRevision = this.refused?.revision ?? revision;
    this.status.progress = [];
    this.set('Reconciling', 'True', 'Progressing', `reconciling ${revision ?? 'the source'} (trigger: ${trigger})`);
    this.passStarted = true;
    // A refused head is never told "applying": its status is the refusal (docs/agent.md "Notifications").
    if (this.refused) return;
    for (const l of this.passListeners) l({ phase: 'start', revision: this.status.lastAttemptedRevision });
  }

  finishPass(rec: PassRecord, objects: ObjectStatus[] | null, problems: Problem[]): void {
    const s = this.status;
    const appliedBefore = s.lastAppliedRevision;
    s.passes++;
    s.lastPassAt = this.now().toISOString();
    // A directory source's revision (its digest) is known only once the pass loaded it.
    if (!this.refused && rec.revision !== null) s.lastAttemptedRevision = rec.revision;
    // The newest pass is always shown; a no-op one gives way to the next pass and is only counted.
    const prev = s.history[0];
    if (prev && isNoOp(prev)) {
      s.history.shift();
      s.noOpPasses++;
    }
    s.history.unshift(rec);
    s.history.length = Math.min(s.history.length, HISTORY_LIMIT + 1);
    s.progress = [];
    if (objects) s.objects = objects;
    s.problems = problems;
    this.set('Reconciling', 'False', rec.result === 'Succeeded' ? 'ReconciliationSucceeded' : 'ReconciliationFailed', rec.message);
    switch (rec.result) {
      case 'Succeeded':
        // The age of the revision in force: set when it comes into force, not moved by every no-op pass
        // over it (regression: "Applied: … 8 s ago" was the age of the last pass). After a restart it is
        // when this process first found it in force (the status is not kept across restarts).
        if (s.lastAppliedRevision !== rec.revision || s.lastAppliedAt === null) s.lastAppliedAt = s.lastPassAt;
        s.lastAppliedRevision = rec.revision;
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
    // A pass that never got a revision (the source failed) has no commit to report on.
    const started = this.passStarted;
    this.passStarted = false;
    if (rec.result !== 'Aborted' && started) {
      const ok = rec.result === 'Succeeded' && !this.refused;
      const orphaned = rec.counts['orphaned'] ?? 0;
      const notInEffect = ok && orphaned > 0 ? `applied, but ${orphaned} object(s) require pruning (their manifests left git)` : undefined;
      const alreadyApplied = rec.result === 'Failed' && !this.refused && rec.revision !== null && rec.revision === appliedBefore;
      const message = ok ? rec.message : (this.refused?.message ?? rec.message);
      for (const l of this.passListeners)
        l({
          phase: 'finish',
          revision: s.lastAttemptedRevision,
          ok,
          message,
          ...(notInEffect ? { notInEffect } : {}),
          ...(alreadyApplied ? { alreadyApplied } : {}),
        });
    }
  }

  /**
   * A failed pass whose error is terminal (docs/errors.md: classified once): retrying like a 503 cannot
   * fix a rejected API key, so the agent says it is stalled and waits for the next trigger.
   */
  stalledOn(code: string, message: string): void {
    this.set(
      'Stalled',
      'True',
      'TerminalError',
      `${code}: no automatic retry; fix the cause, the next trigger (interval, webhook, commit) tries again: ${message}`,
    );
  }

  /** A source failure (fetch) before any plan: the last applied revision stays in force. */
  sourceFailed(message: string, reason: ConditionReason = this.refused ? 'VerificationFailed' : 'SourceUnavailable'): void {
    this.set('Ready', 'False', reason, message);
    this.set('Reconciling', 'False', reason, message);
    this.set('Stalled', 'False', 'RetryScheduled', message);
  }
}
