/**
 * Executes a plan's action graph with bounded concurrency. A failed action blocks only the actions
 * that depend on it; every other ready action proceeds. A wait that is deferred (the agent does not
 * block on the service's background work) is not a failure: its object and the objects depending
 * on it are marked `waiting` and left to a later pass. After an abort (shutdown) no new action
 * starts, the ones in flight finish, and the rest are reported as skipped.
 */
import type { PacksyncApi } from '../api/operations.js';
import type { Plan, PlanAction } from '../plan/types.js';
import { errorCode, errorMessage } from '../util/errors.js';
import { Fifo } from '../util/fifo.js';
import type { ApplyEvent } from './events.js';
import type { InventoryStore } from '../state/inventory-store.js';
import { plannedOutcome } from './outcomes.js';
import type { Outcome } from './outcomes.js';
import { runAction } from './run-action.js';
import { isWaitOp, OP } from '../plan/ops.js';
import { DEFAULT_WAIT } from './wait.js';
import type { WaitOptions } from './wait.js';
import type { ErrorCode } from '../util/errors.js';
import { DEFAULT_ACTION_CONCURRENCY, WAIT_SLOTS_PER_SLOT } from './defaults.js';

export interface ApplyOptions {
  concurrency?: number;
  revision?: string | null;
  wait?: Partial<WaitOptions>;
  /** Hard abort: calls in flight are cancelled. */
  signal?: AbortSignal;
  /** Soft stop (graceful shutdown): no new action starts; calls in flight finish. */
  stopSignal?: AbortSignal;
  now?: () => Date;
  onEvent?: (e: ApplyEvent) => void;
}

export interface ObjectOutcome {
  key: string;
  kind: string;
  name: string;
  outcome: Outcome;
  reasons: string[];
  error?: { code: ErrorCode; message: string };
  /** Left to a later pass: still processing in the service, or depending on something that is. */
  waiting?: true;
}

export interface ApplyResult {
  objects: ObjectOutcome[];
  counts: Record<Outcome, number>;
  /** API write calls made (creates, actions, deletes, every content chunk and finalize; attempts, not transport retries). */
  writes: number;
  /** API reads made while applying outside the plan's own (the history's install counts of rollouts first seen complete). */
  reads: number;
  failed: number;
  /** Objects left to a later pass (a deferred wait, or an action depending on one). */
  waiting: number;
  aborted: boolean;
}

const NO_RESULTS: readonly ActionResult[] = [];

interface ActionResult {
  status: 'done' | 'failed' | 'skipped' | 'waiting';
  error?: { code: ErrorCode; message: string };
}

export async function applyPlan(plan: Plan, api: PacksyncApi, store: InventoryStore, opts: ApplyOptions = {}): Promise<ApplyResult> {
  const emit = opts.onEvent ?? ((): void => undefined);
  const now = opts.now ?? ((): Date => new Date());
  let writes = 0;
  const deps = {
    api,
    store,
    revision: opts.revision ?? plan.revision,
    now,
    wait: { ...DEFAULT_WAIT, ...opts.wait },
    emit,
    // Every API write passes here first: once the state cannot record what it does, none is made.
    countWrite: (): void => {
      store.assertWritable();
      writes++;
    },
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  // A state store that can no longer write (remote lease lost) stops new actions like a shutdown.
  const results = await runGraph(
    plan.actions,
    opts.concurrency ?? DEFAULT_ACTION_CONCURRENCY,
    anySignal(opts.signal, opts.stopSignal, store.stopSignal),
    async (a) => {
      const started = Date.now();
      emit({ type: 'action-start', key: a.key, actionId: a.id, op: a.op, description: a.description });
      await runAction(a, deps);
      emit({ type: 'action-done', key: a.key, actionId: a.id, op: a.op, description: a.description, durationMs: Date.now() - started });
    },
    emit,
  );

  const objects: ObjectOutcome[] = plan.objects.map((o) => {
    const planned = plannedOutcome(o);
    // Most objects of a large plan have no action (a no-op's 19,750): no arrays made for them.
    const own =
      o.actions.length === 0 ? NO_RESULTS : o.actions.map((id) => results.get(id)).filter((r): r is ActionResult => r !== undefined);
    const failed = own.find((r) => r.status === 'failed');
    if (failed?.error) return outcomeOf(o, 'failed', o.reasons, { error: failed.error });
    const skipped = own.find((r) => r.status === 'skipped');
    if (skipped) {
      const reasons = [...o.reasons, skipped.error?.message ?? 'not run'];
      return outcomeOf(o, 'skipped', reasons, skipped.error?.code === 'WAITING' ? { waiting: true } : undefined);
    }
    // The writes before the deferred wait happened (an import, an upload): the outcome says so.
    const waiting = own.find((r) => r.status === 'waiting');
    if (waiting) return outcomeOf(o, planned, [...o.reasons, waiting.error?.message ?? 'waiting'], { waiting: true });
    return outcomeOf(o, planned, o.reasons, o.error ? { error: o.error } : undefined);
  });
  const counts: Record<Outcome, number> = { created: 0, configured: 0, unchanged: 0, deleted: 0, skipped: 0, failed: 0 };
  const actionsById = new Map(plan.actions.map((a) => [a.id, a]));
  for (const o of plan.objects) {
    // A replacement whose deletes ran destroyed those deployments (with the old flow, or one
    // deleted to be added again): count them as deleted, whether or not the rest went through.
    if (!o.destroys) continue;
    const deletes = o.actions.filter((id) => {
      const op = actionsById.get(id)?.op;
      return op === OP.deleteFlow || op === OP.deleteDeployment;
    });
    if (deletes.length > 0 && deletes.every((id) => results.get(id)?.status === 'done')) counts.deleted += o.destroys.length;
  }
  for (const o of objects) {
    counts[o.outcome]++;
    emit({ type: 'object', key: o.key, outcome: o.outcome });
  }
  await store.flush();
  const waiting = objects.filter((o) => o.waiting).length;
  return {
    objects,
    counts,
    writes,
    reads: 0,
    failed: counts.failed,
    waiting,
    aborted: (opts.signal?.aborted ?? false) || (opts.stopSignal?.aborted ?? false),
  };
}

/** One object's outcome as one literal (key, kind, name, outcome, reasons, then error or waiting), not a spread of parts. */
function outcomeOf(
  o: Plan['objects'][number],
  outcome: Outcome,
  reasons: string[],
  extra?: { error: NonNullable<ObjectOutcome['error']> } | { waiting: true },
): ObjectOutcome {
  const out: ObjectOutcome = { key: o.key, kind: o.kind, name: o.name, outcome, reasons };
  if (extra && 'error' in extra) out.error = extra.error;
  else if (extra) out.waiting = true;
  return out;
}

export async function runGraph(
  actions: readonly PlanAction[],
  concurrency: number,
  signal: AbortSignal | undefined,
  run: (a: PlanAction) => Promise<void>,
  emit: (e: ApplyEvent) => void,
): Promise<Map<string, ActionResult>> {
  const g = new Graph(actions, emit);
  // Waits (a package processing, an upload finishing) hold only a timer and a poll now and then:
  // they have slots of their own, so 500 imports waiting do not hold the writes' slots (a
  // patch-tuesday apply's imports ran at ~140 a second, each wait holding one of 32 for ~200 ms).
  const slots = { work: { running: 0, limit: concurrency }, wait: { running: 0, limit: concurrency * WAIT_SLOTS_PER_SLOT } };
  await new Promise<void>((resolve) => {
    const pump = (): void => {
      for (const kind of ['work', 'wait'] as const) {
        const slot = slots[kind];
        const queue = g.ready[kind];
        while (slot.running < slot.limit && queue.size > 0) {
          const a = queue.take();
          if (!a || g.results.has(a.id)) continue;
          if (signal?.aborted) {
            g.results.set(a.id, { status: 'skipped', error: { code: 'ABORTED', message: 'not started: shutting down' } });
            g.skipTree(a.id, 'not started: shutting down');
            continue;
          }
          slot.running++;
          run(a)
            .then(
              () => g.settled(a),
              (e: unknown) => g.settled(a, e ?? new Error('failed')),
            )
            .finally(() => {
              slot.running--;
              pump();
            });
        }
      }
      if (slots.work.running + slots.wait.running === 0 && g.ready.work.size + g.ready.wait.size === 0) resolve();
    };
    pump();
  });
  return g.results;
}

/** The action graph as it runs: what is ready (work and waits apart), what each action waits on, the results. */
class Graph {
  readonly results = new Map<string, ActionResult>();
  readonly ready = { work: new Fifo<PlanAction>(), wait: new Fifo<PlanAction>() };
  private readonly byId: Map<string, PlanAction>;
  private readonly waitingOn = new Map<string, number>();
  private readonly dependents = new Map<string, string[]>();

  constructor(
    actions: readonly PlanAction[],
    private readonly emit: (e: ApplyEvent) => void,
  ) {
    this.byId = new Map(actions.map((a) => [a.id, a]));
    for (const a of actions) {
      const known = a.dependsOn.filter((d) => this.byId.has(d));
      this.waitingOn.set(a.id, known.length);
      for (const d of known) {
        const list = this.dependents.get(d);
        if (list) list.push(a.id);
        else this.dependents.set(d, [a.id]);
      }
    }
    for (const a of actions) if (this.waitingOn.get(a.id) === 0) this.enqueue(a);
  }

  private enqueue(a: PlanAction): void {
    (isWaitOp(a.op) ? this.ready.wait : this.ready.work).push(a);
  }

  skipTree(id: string, reason: string, code: ErrorCode = 'DEPENDENCY_FAILED'): void {
    for (const dep of this.dependents.get(id) ?? []) {
      if (this.results.has(dep)) continue;
      const a = this.byId.get(dep);
      if (!a) continue;
      this.results.set(dep, { status: 'skipped', error: { code, message: reason } });
      this.emit({ type: 'action-skipped', key: a.key, actionId: a.id, op: a.op, description: a.description, reason });
      this.skipTree(dep, reason, code);
    }
  }

  /** An action ended: done (`e` undefined), deferred (its dependents wait for a later pass) or failed. */
  settled(a: PlanAction, e?: unknown): void {
    if (e === undefined) {
      this.results.set(a.id, { status: 'done' });
      for (const dep of this.dependents.get(a.id) ?? []) {
        const left = (this.waitingOn.get(dep) ?? 1) - 1;
        this.waitingOn.set(dep, left);
        const next = this.byId.get(dep);
        if (left === 0 && next && !this.results.has(dep)) this.enqueue(next);
      }
      return;
    }
    const error = { code: errorCode(e), message: errorMessage(e) };
    if (error.code === 'WAIT_DEFERRED') {
      // Not a failure: what depends on it waits for a later pass, which re-plans from live.
      this.results.set(a.id, { status: 'waiting', error });
      this.emit({ type: 'action-waiting', key: a.key, actionId: a.id, op: a.op, description: a.description, reason: error.message });
      this.skipTree(a.id, `waits for ${a.key}, still processing`, 'WAITING');
      return;
    }
    this.results.set(a.id, { status: 'failed', error });
    this.emit({ type: 'action-failed', key: a.key, actionId: a.id, op: a.op, description: a.description, ...error });
    this.skipTree(a.id, `${a.key} failed: ${error.code}`);
  }
}

function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const xs = signals.filter((s): s is AbortSignal => s !== undefined);
  return xs.length <= 1 ? xs[0] : AbortSignal.any(xs);
}
