/**
 * The problem lines' closing count (src/cli/print-problems.ts). Regression of the operator audit:
 * `packsync update` printed "0 errors: no manifest was changed." above the edits it then made,
 * when its only problems were warnings.
 */
import { describe, expect, it } from 'vitest';
import { problemLines } from '../../src/cli/print-problems.js';
import type { Problem } from '../../src/manifests/model.js';

const warning: Problem = {
  file: 'base.yaml',
  line: 12,
  column: 14,
  pointer: '',
  rule: 'update.unknown-skip',
  message: 'skip "1.0" is not a version',
  severity: 'warning',
};
const error: Problem = { ...warning, line: 3, message: 'catalog app "x" was not found', severity: 'error' };

describe('problem lines', () => {
  it('warnings alone are counted, never followed by "nothing was changed"', () => {
    for (const command of ['validate', 'plan', 'apply', 'update'] as const) {
      const text = problemLines([warning], command);
      expect(text).toBe('base.yaml:12:14: warning: skip "1.0" is not a version\n0 errors, 1 warning.');
    }
  });

  it('an error says what the command did not do', () => {
    expect(problemLines([warning, error], 'update').split('\n').at(-1)).toBe('1 error: no manifest was changed.');
    expect(problemLines([error], 'plan').split('\n').at(-1)).toBe('1 error: nothing was planned.');
  });
});
