/**
 * The reconcile loop: one pass at a time; triggers that arrive during a pass coalesce into one
 * follow-up pass. Invalid revisions stall (nothing of them is applied) until the source changes;
 * failures retry with capped exponential backoff, but any trigger (a push, the watch, the
 * schedule) runs at once, so a fixing commit is never stuck behind a backoff timer. A pass never
 * blocks for long on the service's background work (design §4a): a wait holds it at most
 * `waitBudgetMs`, and not at all once another trigger is queued; what still waits is left to a
 * follow-up pass requeued after `waitingRequeueMs`, so a commit that stops a deployment reaches
 * the service within seconds even while a package is processing.
 */
import type { Logger } from 'pino';
import type { PacksyncApi } from '../api/operations.js';
import type { ApplyEvent } from '../apply/events.js';
import { classify, errorCode, errorMessage } from '../util/errors.js';
import type { ErrorCode } from '../util/errors.js';
import type { WaitOptions } from '../apply/wait.js';
import { reconcile } from '../engine/reconcile.js';
import type { State } from '../state/open-state.js';
import { planVerdict } from '../plan/verdict.js';
import type { ObjectPlan, PlanOptions } from '../plan/types.js';
import type { SourceRevision } from './git-source.js';
import type { AgentMetrics } from './metrics.js';
import { RolloutTracker } from './gate-tracker.js';
import { PassObserver } from './pass-observer.js';
import type { ObjectStatus, PassRecord, PassResult, StatusTracker } from './status.js';

export interface PassSource {
  sync: () => Promise<SourceRevision>;
  /** The tracked ref for webhook matching; null for a directory. */
  ref: string | null;
}

export interface AgentOptions {
  source: PassSource;
  api: PacksyncApi;
  stateDir: string;
  /** The state store (locked by the command for the agent's lifetime); else `stateDir`, unlocked. */
  state?: State;
  planOptions: PlanOptions;
  concurrency?: number;
  /** Most live-state reads in flight (`--read-concurrency`). */
  readConcurrency?: number;
  wait?: Partial<WaitOptions>;
  logger: Logger;
  metrics: AgentMetrics;
  status: StatusTracker;
  passTimeoutMs: number;
  /** Interval of the schedule, if any: readiness goes red after three without a pass started or completed. */
  expectedIntervalMs?: number;
  backoff?: { baseMs: number; maxMs: number };
  /** Re-check soon while something is still processing (package import, upload task). */
  waitingRequeueMs?: number;
  /**
   * Longest one wait (package processing, upload task) holds a pass before its object is left to
   * the requeued pass; default 2 s, so quick processing still converges in one pass. `Infinity`
   * blocks until done (`run --once`: there is no follow-up pass to leave it to).
   */
  waitBudgetMs?: number;
  /** Grace after a stop request before calls in flight are cancelled. */
  shutdownGraceMs?: number;
  /** Per-object heal backoff (design §4a): 2 s, 4 s, 8 s … capped at 5 min by default. */
  healBackoff?: { baseMs: number; maxMs: number };
  random?: () => number;
  /** False while the source refuses the tracked revision (signature verification); `run --once` exits 1 then. */
  sourceReady?: () => boolean;
}

export class Agent {
  private running: Promise<void> | null = null;
  private pending: string | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;
  private readonly stopCtl = new AbortController();
  /** Aborted when a trigger arrives during a pass: its waits give way to the follow-up pass. */
  private yieldCtl: AbortController | null = null;
  private readonly hardCtl = new AbortController();
  private lastCompletedAt = 0;
  private lastStartedAt = Date.now();
  private lastResult: PassResult | null = null;
  private readonly observer: PassObserver;
  private readonly idleWaiters: (() => void)[] = [];
  /** Objects healed recently: how often in a row, and until when healing them again is held. */
  private readonly healed = new Map<string, { count: number; until: number }>();
  private readonly rollouts: RolloutTracker;

  constructor(private readonly o: AgentOptions) {
    this.observer = new PassObserver(o);
    this.rollouts = new RolloutTracker(o.status, o.metrics);
  }

  /** Requests a pass. While one runs, requests coalesce into a single follow-up pass. */
  trigger(reason: string): void {
    if (this.stopped) return;
    if (this.running) {
      this.pending ??= reason;
      // Newer work (a push, a manual trigger) must not queue behind a package that is processing.
      this.yieldCtl?.abort();
      return;
    }
    this.clearRetry();
    this.running = this.pass(reason).finally(() => {
      this.running = null;
      const next = this.pending;
      this.pending = null;
      if (next !== null && !this.stopped) this.trigger(next);
      else this.idleWaiters.splice(0).forEach((f) => f());
    });
  }

  /** Resolves when no pass runs or is queued (retries scheduled later do not count). */
  idle(): Promise<void> {
    if (!this.running && this.pending === null) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /**
   * Ready (design §4a): the agent can do its job — the loop is alive and, with an interval, a pass
   * started or completed within three intervals. Not whether the last revision was good: an invalid
   * or failed revision keeps the pod in its Service, so the fixing commit's webhook still arrives.
   */
  ready(nowMs = Date.now()): boolean {
    if (this.stopped) return false;
    const every = this.o.expectedIntervalMs;
    return every === undefined || nowMs - Math.max(this.lastStartedAt, this.lastCompletedAt) <= 3 * every + this.o.passTimeoutMs;
  }

  /** The last pass's result, for `run --once` (null before the first). */
  get lastPassResult(): PassResult | null {
    return this.lastResult;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clearRetry();
    this.stopCtl.abort();
    const grace = setTimeout(() => this.hardCtl.abort(), this.o.shutdownGraceMs ?? 8000);
    try {
      await this.running;
    } finally {
      clearTimeout(grace);
    }
    this.idleWaiters.splice(0).forEach((f) => f());
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.o.status.status.nextPassAt = null;
  }

  private scheduleRetry(ms: number, reason: string): void {
    if (this.stopped) return;
    this.clearRetry();
    // Shown in /status and on the page: when packsync itself will look again (other triggers aside).
    this.o.status.status.nextPassAt = new Date(Date.now() + ms).toISOString();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.o.status.status.nextPassAt = null;
      this.trigger(reason);
    }, ms);
    this.retryTimer.unref();
  }

  private backoffMs(): number {
    const { baseMs, maxMs } = this.o.backoff ?? { baseMs: 2000, maxMs: 300_000 };
    const cap = Math.min(maxMs, baseMs * 2 ** Math.min(this.failures - 1, 30));
    return Math.round(cap / 2 + (this.o.random ?? Math.random)() * (cap / 2));
  }

  private trackHeals(objects: readonly Pick<ObjectPlan, 'key' | 'drift'>[]): void {
    const backoff = this.o.healBackoff ?? { baseMs: 2000, maxMs: 300_000 };
    const now = Date.now();
    for (const o of objects) {
      if (!o.drift) {
        // Quiet for a whole backoff cap after its last hold: the fight is over, start from 2 s again.
        const h = this.healed.get(o.key);
        if (h && now - h.until > backoff.maxMs) this.healed.delete(o.key);
        continue;
      }
      // Healed this pass (not held, not report-only): hold the next heal for longer.
      if (o.drift === 'healed') this.healed.set(o.key, nextHold(this.healed.get(o.key), now, backoff));
    }
  }

  private async pass(trigger: string): Promise<void> {
    const { logger, metrics, status } = this.o;
    const started = Date.now();
    this.lastStartedAt = started;
    const startedAt = new Date(started).toISOString();
    // Per-pass controllers linked by hand: AbortSignal.any() over the loop's long-lived signals
    // is retained by Node 20 for as long as those live (nodejs/node#55351), a leak per pass.
    const hard = new AbortController();
    const soft = new AbortController();
    const onHard = (): void => hard.abort();
    const onStop = (): void => soft.abort();
    this.hardCtl.signal.addEventListener('abort', onHard, { once: true });
    this.stopCtl.signal.addEventListener('abort', onStop, { once: true });
    const timer = setTimeout(() => {
      soft.abort();
      hard.abort();
    }, this.o.passTimeoutMs);
    const signal = hard.signal;
    const yieldCtl = new AbortController();
    this.yieldCtl = yieldCtl;
    let revision: string | null = null;
    let result: PassResult = 'Failed';
    let message = '';
    let objects: ObjectStatus[] | null = null;
    let problems: PassRecord['counts'] = {};
    let writes = 0;
    let waiting = false;
    // The code of an error that ended the pass (not of a failed object: those are retried per object).
    let failure: ErrorCode | null = null;
    let validation: Parameters<StatusTracker['finishPass']>[2] = [];
    /** Until a promotion gate's soak or deadline ends (ms), when one is running. */
    let gateDelay: number | null = null;
    try {
      const src = await this.o.source.sync();
      revision = src.revision;
      status.startPass(revision, trigger);
      const log = logger.child({ revision, ...(src.signer ? { signer: src.signer } : {}) });
      log.info({ trigger }, 'reconcile pass started');
      const holdNow = Date.now();
      const driftHold = [...this.healed].filter(([, h]) => holdNow < h.until).map(([k]) => k);
      const out = await reconcile({
        path: src.dir,
        api: this.o.api,
        stateDir: this.o.stateDir,
        ...(this.o.state ? { state: this.o.state } : {}),
        planOptions: driftHold.length > 0 ? { ...this.o.planOptions, driftHold } : this.o.planOptions,
        revision,
        ...(src.signer ? { signer: src.signer } : {}),
        ...(this.o.readConcurrency ? { readConcurrency: this.o.readConcurrency } : {}),
        apply: true,
        applyOptions: {
          ...(this.o.concurrency ? { concurrency: this.o.concurrency } : {}),
          wait: { ...this.o.wait, deferAfterMs: this.o.waitBudgetMs ?? 2000, deferSignal: yieldCtl.signal },
          onEvent: (e: ApplyEvent) => {
            logEvent(log, e);
            this.observer.applyEvent(e);
          },
        },
        signal,
        stopSignal: soft.signal,
      });
      if (out.kind === 'invalid') {
        revision = out.revision;
        result = 'Invalid';
        validation = out.problems;
        const errs = out.problems.filter((p) => p.severity === 'error');
        message = `revision ${revision ?? '(directory)'} is invalid: ${errs.length} problem(s), first: ${errs[0] ? `${errs[0].file}:${errs[0].line}:${errs[0].column}: ${errs[0].message}` : 'unknown'}`;
        for (const p of errs) log.error({ file: p.file, line: p.line, column: p.column, rule: p.rule }, p.message);
        this.observer.invalid(revision, message);
      } else {
        revision = out.plan.revision;
        const r = out.result;
        writes = r?.writes ?? 0;
        problems = r ? { ...r.counts } : {};
        // The planner marks drift on the object (healed, reported or held); no message text is parsed.
        const driftKeys = new Set(out.plan.objects.filter((o) => o.drift !== undefined).map((o) => o.key));
        this.trackHeals(out.plan.objects);
        await this.observer.planned(out, revision, signal);
        // Waiting is planned (still processing at the start) or found during the pass (a deferred wait).
        waiting = out.plan.objects.some((o) => o.change === 'waiting') || (r?.waiting ?? 0) > 0;
        const planned = new Map(out.plan.objects.map((o) => [o.key, o]));
        objects = (r?.objects ?? []).map((o) => {
          const p = planned.get(o.key);
          return { ...o, ...(driftKeys.has(o.key) ? { drift: true, ...(p?.drift ? { driftHandling: p.drift } : {}) } : {}), ...(p?.source ? { source: p.source } : {}) };
        });
        gateDelay = this.rollouts.pass(out.plan.gates ?? [], r?.objects ?? [], revision);
        metrics.objects.reset();
        for (const o of objects) metrics.objects.inc({ kind: o.kind, outcome: o.outcome });
        if (out.plan.errors.length > 0) {
          result = 'Failed';
          message = out.plan.errors.join('; ');
        } else if (r?.aborted) {
          result = 'Aborted';
          message = 'the pass was stopped before it finished';
        } else if (planVerdict(out.plan).failing.length > 0) {
          // Object errors, conflicts and replacements not allowed: the revision is not converged.
          result = 'Failed';
          const failing = planVerdict(out.plan).failing;
          const f = failing[0];
          message = `${failing.length} object(s) cannot be converged; first: ${f?.key ?? '?'}: ${f?.error ? `${f.error.code}: ${f.error.message}` : (f?.reasons[0] ?? f?.change ?? '')}`;
        } else if ((r?.failed ?? 0) > 0) {
          result = 'Failed';
          const f = r!.objects.find((o) => o.outcome === 'failed');
          message = `${r!.failed} object(s) failed; first: ${f?.key ?? '?'}: ${f?.error?.code ?? ''} ${f?.error?.message ?? ''}`.trim();
        } else {
          result = 'Succeeded';
          const c = r?.counts;
          const drifted = out.plan.objects.filter((o) => o.drift === 'reported' || o.drift === 'held').length;
          message = c ? `applied revision ${revision ?? ''}: ${c.created} created, ${c.configured} configured, ${c.deleted} deleted, ${c.unchanged} unchanged${drifted > 0 ? `, ${drifted} drifted` : ''}` : `revision ${revision ?? ''} is in sync`;
          if (drifted > 0) problems.drifted = drifted;
          if (r && r.waiting > 0) message += `; ${r.waiting} waiting on the service, continued by a requeued pass`;
        }
      }
    } catch (e) {
      result = this.stopCtl.signal.aborted ? 'Aborted' : 'Failed';
      failure = errorCode(e);
      message = `${errorCode(e)}: ${errorMessage(e)}`;
      if (errorCode(e).startsWith('SOURCE_')) status.sourceFailed(message);
      if (result === 'Failed') this.observer.crashed(revision, message, errorCode(e).startsWith('SOURCE_'));
      logger.error({ code: errorCode(e), revision }, errorMessage(e));
    }
    clearTimeout(timer);
    this.yieldCtl = null;
    this.hardCtl.signal.removeEventListener('abort', onHard);
    this.stopCtl.signal.removeEventListener('abort', onStop);
    const durationMs = Date.now() - started;
    status.finishPass({ revision, trigger, startedAt, durationMs, result, counts: problems, writes, message }, objects, validation);
    // Applied but not yet converged: still reconciling, in Flux's sense, until the service is done.
    const left = result === 'Succeeded' ? (objects ?? []).filter((o) => o.waiting).length : 0;
    if (left > 0) status.set('Reconciling', 'True', 'WaitingOnService', `${left} object(s) wait for processing in the service; a pass is requeued in ${Math.round((this.o.waitingRequeueMs ?? 5000) / 1000)} s`);
    metrics.passes.inc({ result });
    metrics.reconcileDuration.observe({ result }, durationMs / 1000);
    this.lastResult = result;
    this.lastCompletedAt = Date.now();
    metrics.ready.set(this.ready() ? 1 : 0);
    this.observer.finished(result, revision, writes);
    if (result === 'Succeeded') {
      metrics.lastApplied.set(Math.floor(Date.now() / 1000));
      this.failures = 0;
      if (waiting) this.scheduleRetry(this.o.waitingRequeueMs ?? 5000, 'requeue: waiting on the service');
      else if (!this.retryTimer) {
        // Held drift is looked at again when its hold ends, not only at the next external trigger.
        const next = Math.min(...[...this.healed.values()].map((h) => h.until));
        // A soak that ends is judged then, not at the next interval (one second late: the service's Date has second resolution).
        // At most a day ahead: a week-long deadline must not overflow the timer (and is looked at daily).
        const gateAt = gateDelay === null ? Infinity : Date.now() + Math.min(gateDelay, 86_400_000) + 1000;
        if (gateAt < next) this.scheduleRetry(gateAt - Date.now(), 'promotion gate: a soak or deadline ends');
        else if (Number.isFinite(next) && next > Date.now()) this.scheduleRetry(next - Date.now() + 10, 'heal backoff elapsed');
      }
    } else if (result === 'Failed' && failure !== null && classify(failure) === 'terminal') {
      // A rejected API key or an invalid source is not fixed by retrying like a 503 (design §1).
      status.stalledOn(failure, message);
      logger.error({ revision, code: failure }, `pass failed with a terminal error; no automatic retry: ${message}`);
    } else if (result === 'Failed') {
      this.failures++;
      const delay = this.backoffMs();
      logger.warn({ revision, retryInMs: delay, failures: this.failures }, `pass failed; retrying with backoff: ${message}`);
      this.scheduleRetry(delay, 'retry after failure');
    }
    logger.info({ revision, result, durationMs, writes }, `reconcile pass ${result.toLowerCase()}`);
  }
}

/** Grows the hold of objects healed this pass; forgets objects that no longer drift. */
export function nextHold(prev: { count: number; until: number } | undefined, now: number, backoff: { baseMs: number; maxMs: number }): { count: number; until: number } {
  const count = (prev?.count ?? 0) + 1;
  return { count, until: now + Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(count - 1, 30)) };
}

function logEvent(log: Logger, e: ApplyEvent): void {
  switch (e.type) {
    case 'action-failed':
      log.warn({ object: e.key, op: e.op, code: e.code }, `${e.description} failed: ${e.message}`);
      break;
    case 'action-waiting':
      log.info({ object: e.key, op: e.op }, `${e.description}: ${e.reason}`);
      break;
    case 'action-done':
      log.info({ object: e.key, op: e.op, durationMs: e.durationMs }, e.description);
      break;
    case 'upload-progress':
      break;
    default:
      log.debug({ object: 'key' in e ? e.key : undefined, event: e.type }, 'apply event');
  }
}
