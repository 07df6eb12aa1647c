import { describe, expect, expectTypeOf, it } from 'vitest';
import { ACTION_OPS, OP, isWaitOp } from '../../src/plan/ops.js';
import type { ActionOp } from '../../src/plan/ops.js';
import { isChangeAction } from '../../src/plan/types.js';
import type { PlanAction } from '../../src/plan/types.js';
import { dep, desired, flow, live, pkg, run } from './fixtures.js';

describe('the op table', () => {
  it('has an action shape for every op and no action with another op (checked by tsc)', () => {
    expectTypeOf<PlanAction['op']>().toEqualTypeOf<ActionOp>();
    expectTypeOf<(typeof ACTION_OPS)[number]>().toEqualTypeOf<ActionOp>();
  });

  it('spells each op once, with the names saved plans and docs/reconcile.md use', () => {
    expect(new Set(ACTION_OPS).size).toBe(ACTION_OPS.length);
    expect([...ACTION_OPS].sort()).toEqual(
      [
        'add-deployment',
        'create-flow',
        'create-package',
        'delete-deployment',
        'delete-flow',
        'forget',
        'gate',
        'import-package',
        'record',
        'skip-wave',
        'start',
        'stop',
        'tenant-upload',
        'update-content',
        'upload-content',
        'wait-package',
        'wait-upload',
      ].sort(),
    );
  });

  it('the planner writes only ops of the table', () => {
    const p = run(desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip', { wave: 2 })] }), live());
    expect(p.actions.length).toBeGreaterThan(0);
    for (const a of p.actions) expect(ACTION_OPS).toContain(a.op);
  });

  it('waits are the only ops that are never changes by themselves', () => {
    expect(ACTION_OPS.filter(isWaitOp)).toEqual([OP.waitPackage, OP.waitUpload]);
    const wait: PlanAction = {
      id: '1',
      key: 'Package/zip',
      op: OP.waitPackage,
      dependsOn: [],
      description: 'wait',
      packageKey: 'Package/zip',
    };
    const forget: PlanAction = { id: '2', key: 'Package/zip', op: OP.forget, dependsOn: [], description: 'forget' };
    expect(isChangeAction(wait)).toBe(false);
    expect(isChangeAction(forget)).toBe(true);
  });
});
