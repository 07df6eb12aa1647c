/**
 * Blast radius figures (plan/reach.ts). Each flow and range of waves is figured once per plan (a
 * flow's new deployments share it): these pin what every action and the summary must still say.
 */
import { describe, expect, it } from 'vitest';
import { annotateReach, movingFlowIds } from '../../src/plan/reach.js';
import { OP } from '../../src/plan/ops.js';
import type { Plan, PlanAction } from '../../src/plan/types.js';
import { D1, F1, live, liveDeployment, liveFlow } from './fixtures.js';

const F2 = 'bbbbbbbb-0000-4000-8000-000000000002';
const wave = (index: number, tenantIds: string[]): { id: string; index: number; tenantIds: string[] } => ({
  id: `w${index}`,
  index,
  tenantIds,
});

function flowWithWaves(id: string, waves: ReturnType<typeof wave>[]): ReturnType<typeof liveFlow> {
  return { ...liveFlow(id, id), waves: waves as never };
}

const add = (key: string, flowId: string, startNow = true): PlanAction =>
  ({ id: key, key, op: OP.addDeployment, description: `add ${key}`, flowRef: { id: flowId }, packageRef: { id: 'p' }, startNow }) as never;
const start = (key: string, deploymentId: string): PlanAction =>
  ({ id: key, key, op: OP.start, description: `start ${key}`, deploymentRef: { id: deploymentId } }) as never;

function planOf(actions: PlanAction[]): Plan {
  const objects = actions.map((a) => ({ key: a.key, actions: [a.id] }));
  return { actions, objects, summary: {} } as never;
}

describe('blast radius', () => {
  // Waves listed out of order on purpose: wave numbers are the index, not the position.
  const f1 = flowWithWaves(F1, [wave(2, ['t2', 't3']), wave(1, ['t1'])]);
  const f2 = flowWithWaves(F2, [wave(1, ['t1', 't4'])]);
  const state = live({
    flows: [
      { ...f1, details: f1 },
      { ...f2, details: f2 },
    ] as never,
    deployments: [liveDeployment(D1, F1, 'p', { currentWave: 2 })],
  });
  const devices = new Map([
    ['t1', 10],
    ['t2', 5],
    ['t3', 7],
    ['t4', 1],
  ]);

  it('gives every action on one flow the same figures and counts a tenant reached twice once', () => {
    const p = planOf([
      add('deployments/a', F1),
      add('deployments/b', F1),
      start('deployments/c', D1),
      add('deployments/d', F2),
      add('deployments/e', F2, false),
    ]);
    expect(movingFlowIds(p, state).sort()).toEqual([F1, F2].sort());
    annotateReach(p, state, devices);
    const [a, b, c, d, e] = p.actions as (PlanAction & { tenants?: number; devices?: number })[];
    expect(a!.description).toBe('add deployments/a: reaches 1 tenant (wave 1 of 2), 10 devices');
    expect(b!.description).toBe('add deployments/b: reaches 1 tenant (wave 1 of 2), 10 devices');
    expect([a!.tenants, a!.devices, b!.tenants, b!.devices]).toEqual([1, 10, 1, 10]);
    expect(c!.description).toBe('start deployments/c: reaches 2 tenants (wave 2 of 2), 12 devices');
    expect([c!.tenants, c!.devices]).toEqual([2, 12]);
    expect(d!.description).toBe('add deployments/d: reaches 2 tenants (wave 1 of 1), 11 devices');
    // Added without starting: it moves nothing, so it reaches no one.
    expect(e!.description).toBe('add deployments/e');
    expect(e!.tenants).toBeUndefined();
    // t1 is reached by both flows and counted once: t1..t4, 10 + 5 + 7 + 1 devices.
    expect(p.summary.tenants).toBe(4);
    expect(p.summary.devices).toBe(23);
    expect(p.objects.map((o) => o.reach)).toEqual([
      ['reaches 1 tenant (wave 1 of 2), 10 devices'],
      ['reaches 1 tenant (wave 1 of 2), 10 devices'],
      ['reaches 2 tenants (wave 2 of 2), 12 devices'],
      ['reaches 2 tenants (wave 1 of 1), 11 devices'],
      undefined,
    ]);
  });
});
