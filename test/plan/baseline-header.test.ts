/** The plan's header line for a Baseline (docs/baselines.md): how it tells exceptions and their expiry. */
import { describe, expect, it } from 'vitest';
import { headerLine } from '../../src/plan/baselines.js';
import type { BaselineException, BaselineSummary } from '../../src/manifests/model.js';

const at = { file: 'b.yaml', line: 1, column: 1 };
const exception = (expires?: string): BaselineException => ({
  app: 'X',
  action: 'omit',
  owner: 'o',
  reason: 'r',
  expired: false,
  source: at,
  ...(expires ? { expires } : {}),
});
const summary = (exceptions: BaselineException[]): BaselineSummary => ({
  name: 'std',
  source: at,
  apps: 2,
  rings: 2,
  overrides: 0,
  exceptions,
  flows: 4,
  deployments: 4,
  maxRemoved: 5,
  keys: [],
});
const NOW = new Date('2026-11-29T12:00:00Z');

describe('the Baseline header line', () => {
  it('exceptions-expiry-told-as-soonest: with several exceptions it names the soonest expiry as the next, not as all of them expiring then', () => {
    // Before: "2 exceptions expiring in 1 day" for one expiring in 1 day and one in 7 (or none).
    expect(headerLine(summary([exception('2026-11-29'), exception('2026-12-05')]), NOW)).toBe(
      'Baseline std: 2 apps × 2 rings (2 exceptions, the next expiring in 1 day) → 4 flows',
    );
    expect(headerLine(summary([exception('2026-11-29'), exception()]), NOW)).toContain('(2 exceptions, the next expiring in 1 day)');
    expect(headerLine(summary([exception('2026-12-05')]), NOW)).toContain('(1 exception expiring in 7 days)');
    expect(headerLine(summary([exception(), exception()]), NOW)).toContain('(2 exceptions)');
  });
});
