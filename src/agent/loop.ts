/**
 * The reconcile loop: one pass at a time; triggers that arrive during a pass coalesce into one
 * follow-up pass. Invalid revisions stall (nothing of them is applied) until the source changes;
 * failures retry with capped exponential backoff, but any trigger (a push, the watch, the
 * schedule) runs at once, so a fixing commit is never stuck behind a backoff timer. A pass never
 * blocks for long on the service's background work (docs/reconcile.md): a wait holds it at most
 * `waitBudgetMs`, and not at all once another trigger is queued; what still waits is left to a
 * follow-up pass requeued after `waitingRequeueMs`, so a commit that stops a deployment reaches
 * the service within seconds even while a package is processing.
 */
import type { Logger } from 'pino';
import type { PacksyncApi } from '../api/operations.js';
import type { ApplyEvent } from '../apply/events.js';
import { classify, errorCode, errorMessage } from '../util/errors.js';
import type { WaitOptions } from '../apply/wait.js';
import { reconcile } from '../engine/reconcile.js';
import type { State } from '../state/open-state.js';
import type { PlanOptions } from '../plan/types.js';
import { logApplyEvent } from './apply-log.js';
import { ServiceClockRate } from './service-clock.js';
import { HealBackoff } from './heal-backoff.js';
import type { Backoff } from './heal-backoff.js';
import type { AgentMetrics } from './http/metrics.js';
import { RolloutTracker } from './gate-tracker.js';
import { PassObserver } from './pass-observer.js';
import { passOutcome } from './pass-outcome.js';
import type { PassOutcome } from './pass-outcome.js';
import { passSignals } from './pass-signals.js';
import { earliest, windowWakeDelay } from './policy-view.js';
import { nextWake } from './wake.js';
import { settleApprovals } from './approval-gate.js';
import type { ApprovalGate } from './approval-gate.js';
import type { PassSource } from './source/sources.js';
import type { StatusTracker } from './http/status.js';
import type { PassResult } from './http/status-types.js';

export interface AgentOptions {
  source: PassSource;
  api: PacksyncApi;
  stateDir: string;
  /** The state store (locked by the command for the agent's lifetime); else `stateDir`, unlocked. */
  state?: State;
  planOptions: PlanOptions;
  concurrency?: number;
  /** Most live-state reads in flight (`--read-concurrency`). */
  readConcurrency?: number | undefined;
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
  /** Per-object heal backoff (docs/reconcile.md): 2 s, 4 s, 8 s … capped at 5 min by default. */
  healBackoff?: Backoff;
  random?: () => number;
  /** The clock (ms) of every time decision of the loop: readiness, retries, heal holds, gate wake-ups. */
  now?: () => number;
  /** False while the source refuses the tracked revision (signature verification); `run --once` exits 1 then. */
  sourceReady?: () => boolean;
  /** Failures told before a restart and not answered yet (`Notifier.openFailures`): answered once they clear. */
  openFailures?: readonly { object: string; reason: string }[];
  /** `run --policy` with approvals: the two-person rule checked before each apply (docs/policy.md). */
  approvals?: ApprovalGate;
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
  private lastStartedAt: number;
  private lastResult: PassResult | null = null;
  private readonly observer: PassObserver;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly heals: HealBackoff;
  private readonly rollouts: RolloutTracker;
  private readonly now: () => number;
  /** Gate delays are on the service's clock; the wake-up timer is local (service-clock.ts). */
  private readonly serviceClock = new ServiceClockRate();

  constructor(private readonly o: AgentOptions) {
    this.now = o.now ?? ((): number => Date.now());
    this.lastStartedAt = this.now();
    this.heals = new HealBackoff(this.now, o.healBackoff);
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
   * Ready (docs/reconcile.md): the agent can do its job — the loop is alive and, with an interval, a pass
   * started or completed within three intervals. Not whether the last revision was good: an invalid
   * or failed revision keeps the pod in its Service, so the fixing commit's webhook still arrives.
   */
  ready(nowMs = this.now()): boolean {
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
    this.o.status.retryDue(null);
  }

  private scheduleRetry(ms: number, reason: string): void {
    if (this.stopped) return;
    this.clearRetry();
    // Shown in /status and on the page: when packsync itself will look again (other triggers aside).
    this.o.status.retryDue(this.now() + ms);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.o.status.retryDue(null);
      this.trigger(reason);
    }, ms);
    this.retryTimer.unref();
  }

  private backoffMs(): number {
    const { baseMs, maxMs } = this.o.backoff ?? { baseMs: 2000, maxMs: 300_000 };
    const cap = Math.min(maxMs, baseMs * 2 ** Math.min(this.failures - 1, 30));
    return Math.round(cap / 2 + (this.o.random ?? Math.random)() * (cap / 2));
  }

  private async pass(trigger: string): Promise<void> {
    const { logger, metrics, status } = this.o;
    const started = this.now();
    this.lastStartedAt = started;
    const startedAt = new Date(started).toISOString();
    const signals = passSignals({ hard: this.hardCtl.signal, stop: this.stopCtl.signal }, this.o.passTimeoutMs);
    const yieldCtl = new AbortController();
    this.yieldCtl = yieldCtl;
    let revision: string | null = null;
    let outcome: PassOutcome;
    /** Until a promotion gate's soak or deadline ends (ms), when one is running. */
    let gateDelay: number | null = null;
    try {
      const src = await this.o.source.sync();
      revision = src.revision;
      status.startPass(revision, trigger);
      let log = logger.child({ revision, ...(src.signer ? { signer: src.signer } : {}) });
      log.info({ trigger }, 'reconcile pass started');
      const driftHold = this.heals.held();
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
            logApplyEvent(log, e);
            this.observer.applyEvent(e);
          },
        },
        signal: signals.hard,
        stopSignal: signals.soft,
        // A directory's revision is the digest of what was loaded: every line after the load carries it.
        onPlanned: (p) => {
          if (revision === null && p.revision !== null) log = logger.child({ revision: p.revision });
        },
        ...(this.o.approvals ? { mayApply: this.o.approvals.mayApply(src.dir) } : {}),
      });
      outcome = await settleApprovals(this.o.approvals, out, passOutcome(out));
      revision = outcome.revision;
      if (out.kind === 'invalid') {
        for (const p of out.problems)
          if (p.severity === 'error') log.error({ file: p.file, line: p.line, column: p.column, rule: p.rule }, p.message);
        this.observer.invalid(revision, outcome.message);
      } else {
        this.heals.record(out.plan.objects);
        await this.observer.planned(out, revision, signals.hard);
        const gates = this.rollouts.pass(out.plan.gates ?? [], out.result?.objects ?? [], revision, out.commands ?? []);
        gateDelay = earliest(gates, windowWakeDelay(out.plan, out.live?.serviceTime));
        this.serviceClock.observe(this.now(), this.o.api.serviceTime?.()?.getTime());
        metrics.objects.reset();
        for (const o of outcome.objects ?? []) metrics.objects.inc({ kind: o.kind, outcome: o.outcome });
      }
    } catch (e) {
      outcome = passOutcome({ kind: 'error', error: e, revision, stopped: this.stopCtl.signal.aborted });
      const sourceError = errorCode(e).startsWith('SOURCE_');
      if (sourceError) status.sourceFailed(outcome.message);
      this.rollouts.passFailed(errorCode(e));
      if (outcome.result === 'Failed') this.observer.crashed(revision, outcome.message, errorCode(e));
      logger.error({ code: errorCode(e), revision }, errorMessage(e));
    }
    signals.dispose();
    this.yieldCtl = null;
    this.finish(trigger, startedAt, this.now() - started, outcome, gateDelay);
    this.o.approvals?.afterFinish();
  }

  /** Tells the outcome (status, metrics, events) and decides when to look again. */
  private finish(trigger: string, startedAt: string, durationMs: number, outcome: PassOutcome, gateDelay: number | null): void {
    const { logger, metrics, status } = this.o;
    const { revision, result, message, writes, failure } = outcome;
    status.finishPass(
      { revision, trigger, startedAt, durationMs, result, counts: outcome.counts, writes, message },
      outcome.objects,
      outcome.problems,
    );
    // Applied but not yet converged: still reconciling, in Flux's sense, until the service is done.
    const left = result === 'Succeeded' ? (outcome.objects ?? []).filter((o) => o.waiting).length : 0;
    if (left > 0)
      status.set(
        'Reconciling',
        'True',
        'WaitingOnService',
        `${left} object(s) wait for processing in the service; a pass is requeued in ${Math.round((this.o.waitingRequeueMs ?? 5000) / 1000)} s`,
      );
    metrics.passes.inc({ result });
    metrics.reconcileDuration.observe({ result }, durationMs / 1000);
    this.lastResult = result;
    this.lastCompletedAt = this.now();
    this.observer.finished(result, revision, writes);
    if (result === 'Succeeded') {
      metrics.lastApplied.set(Math.floor(this.now() / 1000));
      this.failures = 0;
      if (outcome.waiting) this.scheduleRetry(this.o.waitingRequeueMs ?? 5000, 'requeue: waiting on the service');
      else if (!this.retryTimer) this.scheduleWake(gateDelay);
    } else if (result === 'Failed' && failure !== null && classify(failure) === 'terminal') {
      // A rejected API key or an invalid source is not fixed by retrying like a 503 (docs/errors.md).
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

  /** After a converged pass: the next heal hold, gate soak or change window (wake.ts). */
  private scheduleWake(gateDelay: number | null): void {
    const wake = nextWake(this.now(), gateDelay, this.heals.nextWakeAt(), (ms) => this.serviceClock.toLocal(ms));
    if (wake) this.scheduleRetry(wake.inMs, wake.reason);
  }
}
