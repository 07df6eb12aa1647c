/**
 * What a plan means for exit codes and pass results, decided once for every entry point (docs/errors.md
 * "exit codes"): errors (plan errors, object errors, conflicts, blocked replacements) make plan, apply and
 * the agent's pass fail; changes or reported drift without errors make `plan --detailed-exitcode`
 * exit 2.
 */
import { isChangeAction } from '../types.js';
import { windowHeldKeys } from '../windows/window-types.js';
import type { Change, ObjectPlan, Plan } from '../types.js';

/** Object changes that mean the repository cannot be converged as it stands. */
export const FAILING_CHANGES: ReadonlySet<Change> = new Set<Change>(['error', 'conflict', 'requires-replacement']);

export interface PlanVerdict {
  /** Problems that stop the whole plan (nothing is applied). */
  planErrors: string[];
  /** Objects that cannot be converged (errors, conflicts, replacements not allowed). */
  failing: ObjectPlan[];
  /** True when applying would write to the service or the state. */
  changes: boolean;
  /** Objects whose live drift is reported (or held), not healed. */
  drifted: ObjectPlan[];
  /** Owned live objects whose manifest left git (no --prune): out of sync, "requires pruning". */
  orphaned: ObjectPlan[];
  /** Deployments whose forward moves a closed change window holds: git wants them, the window has not let them happen yet. */
  held: string[];
}

export function planVerdict(p: Plan): PlanVerdict {
  return {
    planErrors: p.errors,
    failing: p.objects.filter((o) => FAILING_CHANGES.has(o.change)),
    changes: p.actions.some(isChangeAction),
    drifted: p.objects.filter((o) => o.drift === 'reported' || o.drift === 'held'),
    orphaned: p.objects.filter((o) => o.requiresPruning === true),
    held: [...windowHeldKeys(p)],
  };
}

export function planFails(p: Plan): boolean {
  const v = planVerdict(p);
  return v.planErrors.length > 0 || v.failing.length > 0;
}

/**
 * `plan` exit code: 1 on any error; with --detailed-exitcode 2 for changes, reported drift, orphans or
 * moves a closed window holds (the service does not match git yet, even if applying now writes nothing).
 */
export function planExitCode(p: Plan, detailed: boolean): 0 | 1 | 2 {
  const v = planVerdict(p);
  if (v.planErrors.length > 0 || v.failing.length > 0) return 1;
  if (detailed && (v.changes || v.drifted.length > 0 || v.orphaned.length > 0 || v.held.length > 0)) return 2;
  return 0;
}
