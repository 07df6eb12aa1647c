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
import { handId, hourlyStart, liveStateOf, storeOwningFlows } from '../support/live-state.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const FLOWS = ROLLOUT_CAP + 300;

/** Rollouts started an hour apart (`hourlyStart`), all complete: the oldest are the ones the cap drops. */
function liveOf(count = FLOWS): LiveState {
  const flows = Array.from({ length: count }, (_, i) => {
    const deployment = {
      id: handId('d', i),
      flowId: handId('f', i),
      packageId: handId('p', i),
      version: '1.0',
      status: 'Completed',
      currentWave: 1,
      waveCount: 1,
      startedAt: hourlyStart(i),
      completedAt: hourlyStart(i + 1),
    };
    const wave = { id: handId('w', i), index: 1, tenantIds: [handId('t', 1)], delayHours: 0 };
    return {
      id: handId('f', i),
      name: `flow-${i}`,
      details: { id: handId('f', i), name: `flow-${i}`, waves: [wave], deployments: [deployment] },
    };
  });
  return liveStateOf(flows, '2026-11-20T00:00:00.000Z');
}

const plan = { objects: [], generatedAt: '2026-11-20T00:00:00.000Z', revision: 'r1' } as unknown as Plan;

describe('history beyond its cap', () => {
  let sim: TestSim;
  beforeAll(async () => {
    sim = await startTestSimulator();
  });
  afterAll(async () => sim.close());

  /** Runs one pass's recording; returns its count reads, as the simulator's journal saw them, and the journal bytes it wrote. */
  async function pass(store: InventoryStore, live: LiveState): Promise<{ reads: number; journaled: number; bytes: number }> {
    const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
    const j0 = await sim.journalCount();
    const b0 = store.stats.bytesAppended;
    const reads = await recordPassHistory(store, live, plan, api);
    await store.flush();
    return { reads, journaled: (await sim.journalCount()) - j0, bytes: store.stats.bytesAppended - b0 };
  }

  it('does not record trimmed rollouts again, nor read their counts, on the next pass', async () => {
    const { dir, store } = await storeOwningFlows(FLOWS, 'packsync-horizon-');
    // The history fills up to its cap, then more rollouts arrive: the oldest are trimmed away.
    expect((await pass(store, liveOf(ROLLOUT_CAP))).reads).toBe(ROLLOUT_CAP);
    const more = await pass(store, liveOf());
    expect(more.reads).toBe(FLOWS - ROLLOUT_CAP);
    const again = await pass(store, liveOf());
    expect(again).toEqual({ reads: 0, journaled: 0, bytes: 0 });
    await store.close();

    // The newest rollouts are the ones kept, and the horizon survives a restart.
    const h = (await loadInventory(dir)).history!;
    expect(h.rollouts.length).toBeLessThanOrEqual(ROLLOUT_CAP + ROLLOUT_CAP / 4);
    expect(findRollout(h, handId('d', FLOWS - 1))).toBeDefined();
    expect(findRollout(h, handId('d', 0))).toBeUndefined();
    expect(h.horizon).toBeDefined();
    const reopened = await InventoryStore.open(dir);
    expect((await pass(reopened, liveOf())).reads).toBe(0);
    await reopened.close();
  });

  it('records only the newest cap of rollouts first seen all at once, and reads only their counts', async () => {
    const { dir, store } = await storeOwningFlows(FLOWS, 'packsync-horizon-');
    const first = await pass(store, liveOf());
    expect(first.reads).toBe(ROLLOUT_CAP);
    expect(first.journaled).toBe(ROLLOUT_CAP);
    expect(await pass(store, liveOf())).toEqual({ reads: 0, journaled: 0, bytes: 0 });
    await store.close();
    const h = (await loadInventory(dir)).history!;
    expect(h.rollouts.map((r) => r.deploymentId).sort()).toEqual(
      Array.from({ length: ROLLOUT_CAP }, (_, i) => handId('d', FLOWS - ROLLOUT_CAP + i)).sort(),
    );
    expect(h.horizon).toBe(hourlyStart(FLOWS - ROLLOUT_CAP - 1));
  });
});
