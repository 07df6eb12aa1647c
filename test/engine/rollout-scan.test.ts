/**
 * The history's rollouts found in each owned flow as its answer arrives (`RolloutScan`,
 * engine/history-observer.ts; docs/architecture.md, "The engine"): a pass given the scan records
 * exactly what a pass without it records (the owners looked up in the plan's state index instead of
 * a walk of the state), and a scan is trusted only while the history holds the rollouts and horizon it judged by. Real state directories and simulator (the count reads).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { RolloutScan, recordPassHistory } from '../../src/engine/history-observer.js';
import type { LiveState } from '../../src/live/types.js';
import type { Plan } from '../../src/plan/types.js';
import { ROLLOUT_CAP, emptyHistory } from '../../src/state/history.js';
import { StateIndex } from '../../src/plan/state-index.js';
import { loadInventory } from '../../src/state/inventory-store.js';
import { handId, hourlyStart, liveStateOf, storeOwningFlows } from '../support/live-state.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const FLOWS = ROLLOUT_CAP + 200;

/** FLOWS owned flows, each with one deployment: running ones, a completed one in ten, a not started one in seven. */
function liveOf(): LiveState {
  const flows = Array.from({ length: FLOWS }, (_, i) => {
    const status = i % 10 === 0 ? 'Completed' : i % 7 === 0 ? 'NotStarted' : 'Running';
    const deployment = {
      id: handId('d', i),
      flowId: handId('f', i),
      packageId: handId('p', i),
      version: '1.0',
      status,
      currentWave: status === 'Running' ? 2 : 1,
      waveCount: 2,
      startedAt: status === 'NotStarted' ? null : hourlyStart(i),
      completedAt: status === 'Completed' ? hourlyStart(i + 1) : null,
    };
    const waves = [2, 1].map((index) => ({ id: handId('w', i * 2 + index), index, tenantIds: [handId('t', index)], delayHours: 1 }));
    return { id: handId('f', i), name: `flow-${i}`, details: { id: handId('f', i), name: `flow-${i}`, waves, deployments: [deployment] } };
  });
  return liveStateOf(flows, '2026-12-20T00:00:00.000Z');
}

const plan = { objects: [], generatedAt: '2026-12-20T00:00:00.000Z', revision: 'r1' } as unknown as Plan;

describe('rollouts found as the answers arrive', () => {
  let sim: TestSim;
  beforeAll(async () => {
    sim = await startTestSimulator();
  });
  afterAll(async () => sim.close());

  /** Two passes over the same live state; with `scanned`, each given a scan of the details as they arrive. */
  async function twoPasses(scanned: boolean): Promise<{ history: unknown; reads: number[] }> {
    const { dir, store } = await storeOwningFlows(FLOWS, 'packsync-scan-');
    // A Deployment manifest's entry for one flow in three (its rollouts are recorded under that
    // key, the others as started by the service), and a superseded entry beside one in nine.
    for (let i = 0; i < FLOWS; i += 3) {
      const entry = { kind: 'Deployment' as const, id: handId('d', i), specHash: 'h', spec: {}, revision: 'r1', updatedAt: hourlyStart(0) };
      await store.put({ ...entry, name: `dep-${i}` });
      if (i % 9 === 0)
        await store.put({ ...entry, name: `dep-${i}#${handId('x', i)}`, id: handId('x', i), superseded: { at: hourlyStart(0) } });
    }
    const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
    const reads: number[] = [];
    for (let pass = 0; pass < 2; pass++) {
      const live = liveOf();
      let scan: RolloutScan | undefined;
      if (scanned) {
        scan = new RolloutScan(store.inventory.history);
        for (const f of live.flows) scan.see(f.details!);
        // The plan's state index, made while the reads were in flight: the owners are looked up in it.
        scan.useIndex(StateIndex.build(store.inventory, () => true));
      }
      reads.push(await recordPassHistory(store, live, plan, api, scan));
    }
    await store.close();
    return { history: (await loadInventory(dir)).history, reads };
  }

  it('a pass given the scan records exactly what a pass without it records, the cap and horizon included', async () => {
    const without = await twoPasses(false);
    const withScan = await twoPasses(true);
    expect(withScan).toEqual(without);
    // What was recorded: the newest cap's worth first seen at once, their counts read once.
    const h = without.history as { rollouts: { key: string }[]; horizon?: string };
    expect(h.rollouts.length).toBeGreaterThan(0);
    // Both ways of finding a rollout's key: its Deployment manifest's, and its flow's for one the service started.
    expect(h.rollouts.some((r) => r.key.startsWith('Deployment/dep-'))).toBe(true);
    expect(h.rollouts.some((r) => r.key.startsWith('Flow/flow-'))).toBe(true);
    expect(h.rollouts.length).toBeLessThanOrEqual(ROLLOUT_CAP);
    expect(h.horizon).toBeDefined();
    expect(without.reads[0]).toBeGreaterThan(0);
    expect(without.reads[1]).toBe(0);
  });

  it('finds in each flow what the walk at recording finds: started, not trimmed away, waves in order', () => {
    const live = liveOf();
    const scan = new RolloutScan(undefined);
    for (const f of live.flows) scan.see(f.details!);
    const found = live.flows.map((f) => scan.of(f.details!)!);
    expect(found.filter((x) => x.length === 1)).toHaveLength(live.flows.filter((f) => f.details!.deployments[0]!.startedAt).length);
    expect(found.flat().every((x) => x.waves.map((w) => w.index).join() === '1,2')).toBe(true);
    // Details it did not see (a flow read again) are not answered from it.
    expect(scan.of(structuredClone(live.flows[1]!.details!))).toBeUndefined();
  });

  it('is trusted only while the history holds the rollouts and horizon it judged by', () => {
    const h = emptyHistory();
    const scan = new RolloutScan(h);
    expect(scan.validFor(h)).toBe(true);
    // A drift record (what a pass writes before the rollouts) changes neither.
    h.drift.push({ at: 'x', key: 'Flow/a', what: 'w', action: 'reported', revision: null });
    expect(scan.validFor(h)).toBe(true);
    expect(new RolloutScan(undefined).validFor(emptyHistory())).toBe(true);
    expect(scan.validFor({ ...h, horizon: hourlyStart(3) })).toBe(false);
    expect(scan.validFor({ ...h, rollouts: [{} as never] })).toBe(false);
    const withRollout = { ...emptyHistory(), rollouts: [{} as never] };
    expect(new RolloutScan(withRollout).validFor(undefined)).toBe(false);
    expect(new RolloutScan(withRollout).validFor(emptyHistory())).toBe(false);
  });

  it("looks the owners up in the plan's state index only when it was made of this very inventory", async () => {
    const { store } = await storeOwningFlows(2, 'packsync-scan-owners-');
    const other = await storeOwningFlows(2, 'packsync-scan-owners-');
    const scan = new RolloutScan(undefined);
    expect(scan.ownersOf(store.inventory)).toBeUndefined();
    scan.useIndex(StateIndex.build(other.store.inventory, () => true));
    expect(scan.ownersOf(store.inventory)).toBeUndefined();
    scan.useIndex(StateIndex.build(store.inventory, () => true));
    const owners = scan.ownersOf(store.inventory)!;
    expect(owners.flowNames.get(handId('f', 1))).toBe('flow-1');
    // A flow's id is not a deployment's.
    expect(owners.byDeploymentId.get(handId('f', 1))).toBeUndefined();
    await Promise.all([store.close(), other.store.close()]);
  });
});
