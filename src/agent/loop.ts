/**
 * The reconcile loop: one pass at a time; triggers that arrive during a pass coalesce into one
 * follow-up pass. Invalid revisions stall (nothing of them is applied) until the source changes;
 * failures retry with capped exponential backoff, but any trigger (a push, the watch, the
 * schedule) runs at once, so a fixing commit is never stuck behind a backoff timer.
 */
import type { Logger } from 'pino';
import type { PacksyncApi } from '../api/operations.js';
import type { ApplyEvent } from '../apply/events.js';
import { errorCode, errorMessage } from '../apply/errors.js';
import type { WaitOptions } from '../apply/wait.js';
import { reconcile } from '../engine/reconcile.js';
import type { State } from '../state/open-state.js';
import { planVerdict } from '../plan/verdict.js';
import type { ObjectPlan, PlanOptions } from '../plan/types.js';
import type { SourceRevision } from './git-source.js';
import type { AgentMetrics } from './metrics.js';
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
  wait?: Partial<WaitOptions>;
  logger: Logger;
  metrics: AgentMetrics;
  status: StatusTracker;
  passTimeoutMs: number;
  /** Interval of the schedule, if any: readiness goes red after three without a completed pass. */
  expectedIntervalMs?: number;
  backoff?: { baseMs: number; maxMs: number };
  /** Re-check soon while something is still processing (package import, upload task). */
  waitingRequeueMs?: number;
  /** Grace after a stop request before calls in flight are cancelled. */
  shutdownGraceMs?: number;
  /** Per-object heal backoff (design §4a): 2 s, 4 s, 8 s … capped at 5 min by default. */
  healBackoff?: { baseMs: number; maxMs: number };
  random?: () => number;
  /** False while the source refuses the tracked revision (signature verification): not ready. */
  sourceReady?: () => boolean;
}

export class Agent {
  private running: Promise<void> | null = null;
  private pending: string | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;
  private readonly stopCtl = new AbortController();
  private readonly hardCtl = new AbortController();
  private lastCompletedAt = 0;
  private lastResult: PassResult | null = null;
  private readonly idleWaiters: (() => void)[] = [];
  /** Objects healed recently: how often in a row, and until when healing them again is held. */
  private readonly healed = new Map<string, { count: number; until: number }>();

  constructor(private readonly o: AgentOptions) {}

  /** Requests a pass. While one runs, requests coalesce into a single follow-up pass. */
  trigger(reason: string): void {
    if (this.stopped) return;
    if (this.running) {
      this.pending ??= reason;
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

  /** Ready: the last pass of the current revision succeeded and the loop is not stuck. */
  ready(nowMs = Date.now()): boolean {
    if (this.lastResult !== 'Succeeded' || this.o.sourceReady?.() === false) return false;
    const every = this.o.expectedIntervalMs;
    return every === undefined || nowMs - this.lastCompletedAt <= 3 * every + this.o.passTimeoutMs;
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
  }

  private scheduleRetry(ms: number, reason: string): void {
    if (this.stopped) return;
    this.clearRetry();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
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
    let revision: string | null = null;
    let result: PassResult = 'Failed';
    let message = '';
    let objects: ObjectStatus[] | null = null;
    let problems: PassRecord['counts'] = {};
    let writes = 0;
    let waiting = false;
    let validation: Parameters<StatusTracker['finishPass']>[2] = [];
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
        apply: true,
        applyOptions: {
          ...(this.o.concurrency ? { concurrency: this.o.concurrency } : {}),
          ...(this.o.wait ? { wait: this.o.wait } : {}),
          onEvent: (e: ApplyEvent) => logEvent(log, e),
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
        status.event({ type: 'Warning', reason: 'ValidationFailed', message, revision });
      } else {
        revision = out.plan.revision;
        const r = out.result;
        writes = r?.writes ?? 0;
        problems = r ? { ...r.counts } : {};
        // The planner marks drift on the object (healed, reported or held); no message text is parsed.
        const driftKeys = new Set(out.plan.objects.filter((o) => o.drift !== undefined).map((o) => o.key));
        this.trackHeals(out.plan.objects);
        for (const o of out.plan.objects) {
          if (!o.drift) continue;
          metrics.drift.inc({ kind: o.kind });
          const reason = o.reasons[0] ?? `changed outside packsync (${o.drift})`;
          if (status.event({ type: 'Warning', reason: 'DriftDetected', object: o.key, message: reason, revision })) log.warn({ object: o.key }, `drift: ${reason}`);
        }
        for (const o of out.result?.objects ?? []) {
          if (o.outcome === 'failed') status.event({ type: 'Warning', reason: 'ApplyFailed', object: o.key, message: `${o.error?.code ?? ''}: ${o.error?.message ?? ''}`, revision });
        }
        waiting = out.plan.objects.some((o) => o.change === 'waiting');
        objects = (r?.objects ?? []).map((o) => ({ ...o, ...(driftKeys.has(o.key) ? { drift: true } : {}) }));
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
          message = c ? `applied revision ${revision ?? ''}: ${c.created} created, ${c.configured} configured, ${c.deleted} deleted, ${c.unchanged} unchanged` : `revision ${revision ?? ''} is in sync`;
        }
      }
    } catch (e) {
      result = this.stopCtl.signal.aborted ? 'Aborted' : 'Failed';
      message = `${errorCode(e)}: ${errorMessage(e)}`;
      if (errorCode(e).startsWith('SOURCE_')) status.sourceFailed(message);
      logger.error({ code: errorCode(e), revision }, errorMessage(e));
    }
    clearTimeout(timer);
    this.hardCtl.signal.removeEventListener('abort', onHard);
    this.stopCtl.signal.removeEventListener('abort', onStop);
    const durationMs = Date.now() - started;
    status.finishPass({ revision, trigger, startedAt, durationMs, result, counts: problems, writes, message }, objects, validation);
    metrics.passes.inc({ result });
    metrics.reconcileDuration.observe({ result }, durationMs / 1000);
    this.lastResult = result;
    this.lastCompletedAt = Date.now();
    metrics.ready.set(this.ready() ? 1 : 0);
    if (result === 'Succeeded') {
      status.event({ type: 'Normal', reason: 'ReconciliationSucceeded', message: `revision ${revision ?? '(directory)'} is in sync`, revision });
      metrics.lastApplied.set(Math.floor(Date.now() / 1000));
      this.failures = 0;
      if (waiting) this.scheduleRetry(this.o.waitingRequeueMs ?? 5000, 'requeue: waiting on the service');
      else if (!this.retryTimer) {
        // Held drift is looked at again when its hold ends, not only at the next external trigger.
        const next = Math.min(...[...this.healed.values()].map((h) => h.until));
        if (Number.isFinite(next) && next > Date.now()) this.scheduleRetry(next - Date.now() + 10, 'heal backoff elapsed');
      }
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
    case 'action-done':
      log.info({ object: e.key, op: e.op, durationMs: e.durationMs }, e.description);
      break;
    case 'upload-progress':
      break;
    default:
      log.debug({ object: 'key' in e ? e.key : undefined, event: e.type }, 'apply event');
  }
}
