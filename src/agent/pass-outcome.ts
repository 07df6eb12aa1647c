/**
 * What a pass comes to, decided from its inputs alone: the reconcile output (invalid revision, or
 * plan plus apply result) or the error that ended the pass becomes the result, the one-line
 * message, the counts, the objects shown in `/status`, whether something still waits on the
 * service, and the code of a failure that ended the pass. Pure, so every branch is tested with a
 * built output; the loop does the telling (status, events, metrics, logs) and the scheduling.
 */
import { windowHeldKeys } from '../plan/windows/window-types.js';
import type { ReconcileOutput } from '../engine/reconcile.js';
import type { Problem } from '../manifests/model.js';
import { planVerdict } from '../plan/gates/verdict.js';
import { errorCode, errorMessage } from '../util/errors.js';
import type { ErrorCode } from '../util/errors.js';
import type { ObjectStatus, PassRecord, PassResult } from './http/status-types.js';

export interface PassOutcome {
  revision: string | null;
  result: PassResult;
  message: string;
  /** Per-object results for `/status`; null when the pass produced none (invalid, or ended by an error). */
  objects: ObjectStatus[] | null;
  counts: PassRecord['counts'];
  writes: number;
  /** Something is still processing in the service: the loop requeues a pass. */
  waiting: boolean;
  /** The code of an error that ended the pass (not of a failed object: those are retried per object). */
  failure: ErrorCode | null;
  /** The revision's problems (warnings included) when it is invalid. */
  problems: Problem[];
}

/** The pass ended by an error before any result: `stopped` when the agent was asked to stop. */
export interface PassError {
  kind: 'error';
  error: unknown;
  revision: string | null;
  stopped: boolean;
}

export function passOutcome(out: ReconcileOutput | PassError): PassOutcome {
  if (out.kind === 'error') return errorOutcome(out);
  if (out.kind === 'invalid') return invalidOutcome(out);
  return plannedOutcome(out);
}

function base(revision: string | null): PassOutcome {
  return { revision, result: 'Failed', message: '', objects: null, counts: {}, writes: 0, waiting: false, failure: null, problems: [] };
}

function errorOutcome(e: PassError): PassOutcome {
  const code = errorCode(e.error);
  return { ...base(e.revision), result: e.stopped ? 'Aborted' : 'Failed', failure: code, message: `${code}: ${errorMessage(e.error)}` };
}

function invalidOutcome(out: Extract<ReconcileOutput, { kind: 'invalid' }>): PassOutcome {
  const errs = out.problems.filter((p) => p.severity === 'error');
  const first = errs[0] ? `${errs[0].file}:${errs[0].line}:${errs[0].column}: ${errs[0].message}` : 'unknown';
  return {
    ...base(out.revision),
    result: 'Invalid',
    problems: out.problems,
    message: `revision ${out.revision ?? '(directory)'} is invalid: ${errs.length} problem(s), first: ${first}`,
  };
}

function plannedOutcome(out: Extract<ReconcileOutput, { kind: 'planned' }>): PassOutcome {
  const { plan, result: r } = out;
  const revision = plan.revision;
  const counts: PassRecord['counts'] = r ? { ...r.counts } : {};
  // The planner marks drift on the object (healed, reported or held); no message text is parsed.
  const planned = new Map(plan.objects.map((o) => [o.key, o]));
  const windowHeld = windowHeldKeys(plan);
  const objects = (r?.objects ?? []).map((o): ObjectStatus => {
    const p = planned.get(o.key);
    return {
      ...o,
      ...(p?.drift !== undefined ? { drift: true, ...(p.drift ? { driftHandling: p.drift } : {}) } : {}),
      ...(p?.source ? { source: p.source } : {}),
    };
  });
  const outcome: PassOutcome = {
    ...base(revision),
    objects,
    counts,
    writes: r?.writes ?? 0,
    // Waiting is planned (still processing at the start) or found during the pass (a deferred wait).
    // Work held by a closed change window is not: the loop wakes at the window's start instead of polling (docs/policy.md).
    waiting: plan.objects.some((o) => o.change === 'waiting' && !windowHeld.has(o.key)) || (r?.waiting ?? 0) > 0,
  };
  const failing = planVerdict(plan).failing;
  if (plan.errors.length > 0) return { ...outcome, message: plan.errors.join('; ') };
  if (r?.aborted) return { ...outcome, result: 'Aborted', message: 'the pass was stopped before it finished' };
  if (failing.length > 0) {
    // Object errors, conflicts and replacements not allowed: the revision is not converged.
    const f = failing[0];
    return {
      ...outcome,
      message: `${failing.length} object(s) cannot be converged; first: ${f?.key ?? '?'}: ${f?.error ? `${f.error.code}: ${f.error.message}` : (f?.reasons[0] ?? f?.change ?? '')}`,
    };
  }
  if (r && r.failed > 0) {
    const f = r.objects.find((o) => o.outcome === 'failed');
    return {
      ...outcome,
      message: `${r.failed} object(s) failed; first: ${f?.key ?? '?'}: ${f?.error?.code ?? ''} ${f?.error?.message ?? ''}`.trim(),
    };
  }
  const drifted = plan.objects.filter((o) => o.drift === 'reported' || o.drift === 'held').length;
  if (drifted > 0) counts.drifted = drifted;
  const orphaned = plan.summary.orphaned ?? 0;
  if (orphaned > 0) counts.orphaned = orphaned;
  const tail = `${drifted > 0 ? `, ${drifted} drifted` : ''}${orphaned > 0 ? `, ${orphaned} orphaned (requires pruning)` : ''}`;
  let message = r
    ? `applied revision ${revision ?? ''}: ${r.counts.created} created, ${r.counts.configured} configured, ${r.counts.deleted} deleted, ${r.counts.unchanged} unchanged${tail}`
    : `revision ${revision ?? ''} is ${orphaned > 0 ? `applied, but ${orphaned} object(s) require pruning` : 'in sync'}`;
  if (r && r.waiting > 0) message += `; ${r.waiting} waiting on the service, continued by a requeued pass`;
  return { ...outcome, result: 'Succeeded', message };
}
