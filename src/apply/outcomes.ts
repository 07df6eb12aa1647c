import type { Change } from '../plan/types.js';

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
