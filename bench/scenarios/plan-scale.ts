/**
 * The pure planner on 1k, 10k and 100k synthetic objects (20% packages, 20% flows, 60% deployments,
 * all to be created against a catalog of 1,000 apps): the planner's whole path (name resolution,
 * hashing, action graph, summary, input digests) with no I/O. Medians of 7, 7 and 5 runs in one
 * process; at 100k a plan retains ~120 MiB, so garbage collection is part of what is measured.
 */
import { emptyInventory } from '../../src/state/inventory-types.js';
import { emptyLiveState } from '../../src/live/types.js';
import type { LiveState } from '../../src/live/types.js';
import type { DesiredModel } from '../../src/manifests/model.js';
import { plan } from '../../src/plan/planner.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import { catalogApp, dep, desired as desiredModel, flow, pkg } from '../../test/plan/fixtures.js';
import type { Scenario } from './types.js';
import { median, round } from './types.js';

export function synthetic(n: number): { desired: DesiredModel; live: LiveState } {
  const live = emptyLiveState();
  for (let i = 0; i < 1000; i++) live.apps.push(catalogApp(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, `App ${i}`));
  const P = Math.max(1, Math.round(n * 0.2));
  const F = Math.max(1, Math.round(n * 0.2));
  const D = n - P - F;
  return {
    desired: desiredModel({
      packages: Array.from({ length: P }, (_, i) => pkg(`p${i}`, `App ${i % 1000}`, `${i}.0`)),
      flows: Array.from({ length: F }, (_, i) => flow(`f${i}`, { app: `App ${i % 1000}`, flags: ['radarTracking'] })),
      deployments: Array.from({ length: D }, (_, i) => dep(`d${i}`, `f${i % F}`, `p${(i * 7) % P}`, { state: 'running', wave: 2 })),
    }),
    live,
  };
}

function timePlan(n: number, runs: number): number {
  const { desired, live } = synthetic(n);
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    plan({ desired, live, inventory: emptyInventory(), options: DEFAULT_PLAN_OPTIONS, now: new Date(0), revision: null });
    times.push(performance.now() - t);
  }
  return median(times);
}

export const planScale: Scenario = (log) => {
  timePlan(1000, 3); // warm the JIT so 1k is not measuring compilation
  const ms1k = timePlan(1000, 7);
  log(`1k objects: ${round(ms1k)} ms`);
  const ms10k = timePlan(10_000, 7);
  log(`10k objects: ${round(ms10k)} ms`);
  const ms100k = timePlan(100_000, 5);
  log(`100k objects: ${round(ms100k)} ms`);
  return Promise.resolve({
    metrics: { ms1k: round(ms1k), ms10k: round(ms10k), ms100k: round(ms100k), growth10kTo100k: round(ms100k / ms10k, 2) },
    baseline: {},
  });
};
