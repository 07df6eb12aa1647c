/**
 * noop-large, converge-large and noop-growth: generated fleets (noop-large and converge-large: 300
 * flows, 1,500 deployments, 600 packages) over a simulator in its own process with 20 ms latency per
 * call.
 */
import { createApiClient } from '../../src/api/client.js';
import { loadInventory } from '../../src/state/inventory-store.js';
import { reconcile } from '../../src/engine/reconcile.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { rssMiB } from '../support.js';
import { fleetApps, writeFleet } from '../../test/support/fleet.js';
import { startSimulatorProcess } from '../../test/support/sim.js';
import { convergeFirst, timedPass } from './passes.js';
import type { Scenario } from './types.js';
import { round } from './types.js';
import { tempDir } from '../../test/support/temp-dir.js';

const SHAPE = { flows: 300, deploymentsPerFlow: 5, packages: 600 };
const LATENCY_MS = 20;

export const noopLarge: Scenario = async (log) => {
  const sim = await startSimulatorProcess({ fleet: 'large', latencyMs: LATENCY_MS, timeScale: 3600 });
  const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key, concurrency: 16 });
  try {
    const repo = (await writeFleet(SHAPE)).dir;
    const stateDir = await tempDir('packsync-bench-');
    log('converging the fleet first (not timed)…');
    await convergeFirst(api, repo, stateDir, 16);

    const { pass, wallMs, calls } = await timedPass(sim, api, repo, stateDir, 16, 'no-op pass');
    const rss = rssMiB();
    log(`no-op pass: ${round(wallMs)} ms, ${calls} calls, ${pass.result.writes} writes, rss ${rss} MiB`);

    // Baseline: refresh one object at a time with one GET each, as imperative scripts do.
    const inv = await loadInventory(stateDir);
    const b0 = await sim.journalCount();
    const tb = performance.now();
    for (const e of Object.values(inv.objects)) {
      if (e.kind === 'Package') await api.getPackage(e.id);
      else if (e.kind === 'Flow') await api.getFlow(e.id);
      else if (e.kind === 'Deployment') await api.getDeployment(e.id);
    }
    const baseMs = performance.now() - tb;
    const baseReads = (await sim.journalCount()) - b0;
    log(`baseline sequential refresh: ${round(baseMs)} ms, ${baseReads} reads (ratio ${round(baseMs / wallMs, 1)}×)`);
    return {
      metrics: { wallMs: round(wallMs), reads: pass.plan.reads ?? calls, writes: pass.result.writes, rssMiB: rss },
      baseline: { wallMs: round(baseMs), reads: baseReads, ratio: round(baseMs / wallMs, 1) },
    };
  } finally {
    await api.close();
    await sim.close();
  }
};

export const convergeLarge: Scenario = async (log) => {
  const RATE = 200;
  const CONCURRENCY = 16;
  const sim = await startSimulatorProcess({ fleet: 'large', latencyMs: LATENCY_MS, rateLimit: RATE, timeScale: 3600 });
  const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key, concurrency: CONCURRENCY, rateLimit: { perSecond: RATE } });
  try {
    const repo = (await writeFleet(SHAPE)).dir;
    const stateDir = await tempDir('packsync-bench-');
    const j0 = await sim.journalCount();
    const t0 = performance.now();
    const out = await reconcile({
      path: repo,
      api,
      stateDir,
      planOptions: DEFAULT_PLAN_OPTIONS,
      apply: true,
      readConcurrency: CONCURRENCY,
      applyOptions: { concurrency: CONCURRENCY },
    });
    const wallMs = performance.now() - t0;
    const calls = (await sim.journalCount()) - j0;
    const boundMs = Math.max((calls / RATE) * 1000, (calls * LATENCY_MS) / CONCURRENCY);
    const failed = out.kind === 'planned' ? (out.result?.failed ?? 0) : -1;
    log(
      `converge: ${round(wallMs)} ms for ${calls} calls; bound ${round(boundMs)} ms (ratio ${round(wallMs / boundMs, 2)}), ${failed} failed`,
    );
    return {
      metrics: { wallMs: round(wallMs), calls, boundMs: round(boundMs), failed, ratioToBound: round(wallMs / boundMs, 2) },
      baseline: {},
    };
  } finally {
    await api.close();
    await sim.close();
  }
};

/**
 * noop-growth: API calls of a no-op reconcile as the fleet doubles (50 → 100 → 200 flows, five
 * deployments each), then 50 flows again with 4 instead of 50 tenants, and with three waves per flow
 * instead of one. Reads should grow with flows only: whole lists plus one detail read per flow.
 */
export const noopGrowth: Scenario = async (log) => {
  const cases: { name: string; flows: number; fleet: 'large' | 'small'; waves3?: boolean }[] = [
    { name: '50', flows: 50, fleet: 'large' },
    { name: '100', flows: 100, fleet: 'large' },
    { name: '200', flows: 200, fleet: 'large' },
    { name: '50Tenants4', flows: 50, fleet: 'small' },
    { name: '50Waves3', flows: 50, fleet: 'large', waves3: true },
  ];
  const metrics: Record<string, number> = {};
  for (const c of cases) {
    const sim = await startSimulatorProcess({ fleet: c.fleet, latencyMs: LATENCY_MS, timeScale: 3600 });
    const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key, concurrency: 16 });
    try {
      const shape = {
        flows: c.flows,
        deploymentsPerFlow: 5,
        packages: c.flows * 2,
        ...(c.waves3 ? { patchGroup: () => fixtureId(1, 'patch-group', 'Pilot first') } : {}),
      };
      const repo = (await writeFleet(shape, fleetApps(c.fleet))).dir;
      const stateDir = await tempDir('packsync-bench-');
      await convergeFirst(api, repo, stateDir, 16, `${c.name}: the fleet`);
      const { pass, wallMs, calls } = await timedPass(sim, api, repo, stateDir, 16, `${c.name}: no-op pass`);
      if (pass.result.writes !== 0) throw new Error(`${c.name}: the no-op pass wrote ${pass.result.writes} times`);
      log(
        `${c.flows} flows, ${c.flows * 5} deployments, ${shape.packages} packages (${c.fleet} fleet${c.waves3 ? ', 3 waves' : ''}): ${calls} calls, ${round(wallMs)} ms`,
      );
      metrics[`calls${c.name}`] = calls;
      metrics[`wallMs${c.name}`] = round(wallMs);
    } finally {
      await api.close();
      await sim.close();
    }
  }
  const per = (a: string, b: string): number => round((metrics[`calls${a}`] ?? 0) / (metrics[`calls${b}`] ?? 1), 2);
  metrics.growth50To100 = per('100', '50');
  metrics.growth100To200 = per('200', '100');
  return { metrics, baseline: {} };
};
