/**
 * When the two-person rule asks for approvals (docs/policy.md), pure: above `tenantsAbove`, and for
 * a move whose reach cannot be told (a flow the same change creates), never for a plan that changes
 * nothing. Regression guard: a new flow must not slip past the rule by having no waves to read yet.
 */
import { describe, expect, it } from 'vitest';
import { approvalVerdict, approvalsNeeded } from '../../src/agent/approvals.js';
import type { Plan, PlanAction } from '../../src/plan/types.js';

const policy = { approvals: { required: 2, tenantsAbove: 3 } };

function planWith(actions: Partial<PlanAction>[], tenants?: number): Plan {
  return {
    actions: actions.map((a, i) => ({ id: String(i), key: 'Deployment/x', dependsOn: [], description: 'd', ...a }) as PlanAction),
    summary: {
      create: 0,
      change: 1,
      delete: 0,
      unchanged: 0,
      waiting: 0,
      blocked: 0,
      drifted: 0,
      ...(tenants !== undefined ? { tenants, devices: 0 } : {}),
    },
  } as unknown as Plan;
}

describe('approvalsNeeded', () => {
  it('asks above tenantsAbove only', () => {
    expect(approvalsNeeded(policy, planWith([{ op: 'start', deploymentRef: { id: 'd' }, tenants: 3 }], 3))).toBe(false);
    expect(approvalsNeeded(policy, planWith([{ op: 'start', deploymentRef: { id: 'd' }, tenants: 4 }], 4))).toBe(true);
  });

  it('asks for a move whose reach is unknown (a flow this change creates), and says so', () => {
    const p = planWith([{ op: 'add-deployment', startNow: true, flowRef: { key: 'Flow/new' } }]);
    expect(approvalsNeeded(policy, p)).toBe(true);
    expect(approvalVerdict(policy, p, { signers: ['a@example.com'] }, 'A..B').message).toContain('reaches an unknown number of tenants');
  });

  it('never asks for a plan that changes nothing', () => {
    expect(approvalsNeeded(policy, planWith([], 40))).toBe(false);
  });
});
