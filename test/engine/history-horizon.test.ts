/**
 * Regression (fleet-cli no-op, docs/performance.md): with more owned rollouts than the history's
 * cap, every pass recorded the trimmed rollouts again as new and read their install counts again
 * (3,750 extra reads in each no-op of 15,000 deployments). A trimmed rollout is now behind the
 * history's horizon and left alone. Real state directory, real simulator (its journal counts the
 * reads), live state built by hand: 1,300 rollouts through the CLI would take minutes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { recordPassHistory } from '../../src/engine/history-observer.js';
import type { LiveState } from '../../src/live/types.js';
import type { Plan } from '../../src/plan/types.js';
import { ROLLOUT_CAP, findRollout } from '../../src/state/history.js';
import { InventoryStore, loadInventory } from '../../src/state/inventory-store.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const FLOWS = ROLLOUT_CAP + 300;
const id = (kind: string, i: number): string => `00000000-0000-4000-8000-${kind}${String(i).padStart(11, '0')}`;
// Rollouts started an hour apart, all complete: the oldest are the ones the cap drops.
const startedAt = (i: number): string => new Date(Date.UTC(2026, 9, 1) + i * 3_600_000).toISOString();

function liveOf(): LiveState {
  const flows = Array.from({ length: FLOWS }, (_, i) => {
    const deployment = {
      id: id('d', i),
      flowId: id('f', i),
      packageId: id('p', i),
      version: '1.0',
      status: 'Completed',
      currentWave: 1,
      waveCount: 1,
      startedAt: startedAt(i),
      completedAt: startedAt(i + 1),
    };
    const wave = { id: id('w', i), index: 1, tenantIds: [id('t', 1)], delayHours: 0 };
    return { id: id('f', i), name: `flow-${i}`, details: { id: id('f', i), name: `flow-${i}`, waves: [wave], deployments: [deployment] } };
  });
  return {
    apps: [],
    appVersions: {},
    templates: [],
    tenants: [],
    packages: [],
    flows,
    deployments: flows.flatMap((f) => f.details.deployments),
    uploads: {},
    read: { apps: false, templates: false, tenants: false, packages: true, flows: true },
    serviceTime: '2026-11-20T00:00:00.000Z',
  } as unknown as LiveState;
}

const plan = { objects: [], generatedAt: '2026-11-20T00:00:00.000Z', revision: 'r1' } as unknown as Plan;

describe('history beyond its cap', () => {
  let sim: TestSim;
  beforeAll(async () => {
    sim = await startTestSimulator();
  });
  afterAll(async () => sim.close());

  it('does not record trimmed rollouts again, nor read their counts, on the next pass', async () => {
    const dir = await tempDir('packsync-horizon-');
    const store = await InventoryStore.open(dir);
    for (let i = 0; i < FLOWS; i++)
      await store.put({
        kind: 'Flow',
        name: `flow-${i}`,
        id: id('f', i),
        specHash: 'h',
        spec: {},
        revision: 'r1',
        updatedAt: '2026-10-01T00:00:00.000Z',
      });
    const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
    const live = liveOf();

    const j0 = await sim.journalCount();
    const first = await recordPassHistory(store, live, plan, api);
    expect(first).toBe(FLOWS);
    expect(await sim.journalCount()).toBe(j0 + FLOWS);
    await store.flush();

    const bytes = store.stats.bytesAppended;
    const j1 = await sim.journalCount();
    expect(await recordPassHistory(store, live, plan, api)).toBe(0);
    await store.flush();
    expect(await sim.journalCount()).toBe(j1);
    expect(store.stats.bytesAppended).toBe(bytes);
    await store.close();

    // The newest rollouts are the ones kept, and the horizon survives a restart.
    const h = (await loadInventory(dir)).history!;
    expect(h.rollouts.length).toBeLessThanOrEqual(ROLLOUT_CAP + ROLLOUT_CAP / 4);
    expect(findRollout(h, id('d', FLOWS - 1))).toBeDefined();
    expect(findRollout(h, id('d', 0))).toBeUndefined();
    expect(h.horizon).toBeDefined();
    const reopened = await InventoryStore.open(dir);
    expect(await recordPassHistory(reopened, live, plan, api)).toBe(0);
    await reopened.close();
  });
});
