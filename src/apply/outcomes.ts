import type { Change, ObjectPlan } from '../plan/types.js';

/** The closed outcome vocabulary: one entry per object, after apply. */
export type Outcome = 'created' | 'configured' | 'unchanged' | 'deleted' | 'skipped' | 'failed';

export const OUTCOME_OF_CHANGE: Record<Change, Outcome> = {
  create: 'created',
  update: 'configured',
  replace: 'configured',
  adopt: 'configured',
  delete: 'deleted',
  move: 'configured',
  // A forget is a state write only: counted as the plan counts it (a change), never as a delete.
  forget: 'configured',
  none: 'unchanged',
  orphan: 'unchanged',
  waiting: 'unchanged',
  skipped: 'skipped',
  conflict: 'skipped',
  'requires-replacement': 'skipped',
  drift: 'skipped',
  error: 'failed',
};

/** What applying an object's plan makes of it: a replaced deployment is a new one (its delete counts from `destroys`). */
export function plannedOutcome(o: Pick<ObjectPlan, 'change' | 'kind'>): Outcome {
  return o.change === 'replace' && o.kind === 'Deployment' ? 'created' : OUTCOME_OF_CHANGE[o.change];
}
