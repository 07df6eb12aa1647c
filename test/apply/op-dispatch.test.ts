/**
 * The applier dispatches over the op table exhaustively (a `never` check, enforced by tsc); at run
 * time an op outside the table (a hand-edited saved plan) fails its object instead of passing for
 * done, and the actions depending on it do not run.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { applyPlan } from '../../src/apply/executor.js';
import { openStore } from '../../src/state/open-state.js';
import type { InventoryStore } from '../../src/state/inventory-store.js';
import { OP } from '../../src/plan/ops.js';
import type { Plan, PlanAction } from '../../src/plan/types.js';
import { dep, desired, flow, live, pkg, run } from '../plan/fixtures.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let store: InventoryStore;

beforeEach(async () => {
  const e = await simEnv();
  sim = e.sim;
  store = await openStore(e.stateDir);
});
afterEach(async () => {
  await store.close();
  await sim.close();
});

describe('op dispatch', () => {
  it('fails an action whose op is not in the table with INTERNAL, and skips what depends on it', async () => {
    const base = run(desired({ packages: [pkg('zip')], flows: [flow('zip')], deployments: [dep('zip', 'zip', 'zip')] }), live());
    const bogus = { id: '0001:Package/zip:teleport', key: 'Package/zip', op: 'teleport', dependsOn: [], description: 'teleport' };
    const record: PlanAction = {
      id: '0002:Package/zip:record',
      key: 'Package/zip',
      op: OP.record,
      dependsOn: [bogus.id],
      description: 'record',
      entry: { kind: 'Package', name: 'zip', id: 'p1', specHash: 'h', spec: {}, revision: null, updatedAt: 'x' },
      resolvesIntent: false,
    };
    const plan: Plan = {
      ...base,
      objects: [
        { key: 'Package/zip', kind: 'Package', name: 'zip', change: 'update', reasons: [], fields: [], actions: [bogus.id, record.id] },
      ],
      actions: [bogus as unknown as PlanAction, record],
    };
    const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
    const result = await applyPlan(plan, api, store);
    expect(result.failed).toBe(1);
    expect(result.objects[0]).toMatchObject({ key: 'Package/zip', outcome: 'failed', error: { code: 'INTERNAL' } });
    expect(result.objects[0]?.error?.message).toMatch(/unknown plan action op teleport/);
    expect(result.writes).toBe(0);
    expect(await sim.writes()).toEqual([]);
    expect(store.inventory.objects['Package/zip']).toBeUndefined();
  });
});
