/** `npm start` (the `demo` command): converges examples/ against an embedded simulator, then plans clean. */
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { EXAMPLES } from '../support/repo.js';

describe('demo (npm start)', () => {
  it('shows the plan, applies exactly it, and a second plan has no changes', async () => {
    const r = await cli(['demo', '--path', EXAMPLES], {});
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const plan = r.stdout.indexOf('Plan: 23 to create, 0 to change, 0 to delete, 0 unchanged.');
    const applied = r.stdout.indexOf('Apply complete: 23 created, 0 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed');
    const clean = r.stdout.indexOf('Plan: 0 to create, 0 to change, 0 to delete, 23 unchanged.');
    expect(plan).toBeGreaterThanOrEqual(0);
    expect(applied).toBeGreaterThan(plan);
    expect(clean).toBeGreaterThan(applied);
    expect(r.stdout).toMatch(/No changes\. Live state matches the desired state\./);
    // Regression (operator review 3 row 24): the second plan reads, so it needs no writes, not "no calls".
    expect(r.stdout).toContain('a converged repository needs no writes');
    // examples/ has a deployment with promotion: the converged plan shows its gate line.
    expect(r.stdout.slice(clean - 400)).toMatch(
      /Deployment\/contoso-agent-1-2-3 {2}wave 1\/1: soak \d+m\/12h; .*1 excluded \(no admin consent: Tailspin Toys\) → Inconclusive/,
    );
  });
});
