/**
 * gates-300: a pass over 300 running deployments that all have promotion gates (docs/manifests.md cost:
 * one wave live read per running wave per pass), beside the same pass over the same fleet with the
 * gates taken out of the manifests. Large fleet, waves of the "Ring 1" patch group (tenants of 20
 * to 299 devices each), 20 ms latency per call, three virtual hours into wave 1 so every read has
 * reports to count.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createApiClient } from '../../src/api/client.js';
import { reconcile } from '../../src/engine/reconcile.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { rssMiB } from '../support.js';
import { writeFleet } from '../../test/support/fleet.js';
import { startSimulatorProcess } from '../../test/support/sim.js';
import { convergeFirst, timedPass } from './passes.js';
import type { Scenario } from './types.js';
import { round } from './types.js';
import { tempDir } from '../../test/support/temp-dir.js';

const DEPLOYMENTS = 300;
const LATENCY_MS = 20;
const CONCURRENCY = 16;

interface Journal {
  path: string;
}

export const gates300: Scenario = async (log) => {
  const sim = await startSimulatorProcess({ fleet: 'large', latencyMs: LATENCY_MS, timeScale: 1 });
  const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key, concurrency: CONCURRENCY });
  try {
    const plain = await writeFleet({
      flows: DEPLOYMENTS,
      deploymentsPerFlow: 1,
      packages: DEPLOYMENTS,
      patchGroup: () => fixtureId(1, 'patch-group', 'Ring 1'),
    }).then((f) => f.dir);
    const gated = await tempDir('packsync-gates-');
    await cp(plain, gated, { recursive: true });
    for (const f of await readdir(join(gated, 'flows'))) {
      const file = join(gated, 'flows', f);
      await writeFile(
        file,
        (await readFile(file, 'utf8')).replace(
          '  state: running\n',
          '  state: running\n  promotion:\n    soak: 24h\n    minDevices: 50\n    maxFailureRate: 15%\n',
        ),
      );
    }
    const stateDir = await tempDir('packsync-bench-');
    log(`converging ${DEPLOYMENTS} gated deployments first (not timed)…`);
    // Imports finish on the virtual clock: move it while the first apply waits for them.
    const ticker = setInterval(() => void sim.admin('POST', '/_sim/clock', { advanceSeconds: 30 }).catch(() => undefined), 200);
    await convergeFirst(api, gated, stateDir, CONCURRENCY).finally(() => clearInterval(ticker));
    // The pass that first sees every wave current (records the soak clocks), then three hours of reports.
    await reconcile({ path: gated, api, stateDir, planOptions: DEFAULT_PLAN_OPTIONS, apply: true, readConcurrency: CONCURRENCY });
    await sim.admin('POST', '/_sim/clock', { advanceSeconds: 3 * 3600 });

    const timed = async (repo: string): Promise<{ wallMs: number; reads: number; liveReads: number; writes: number; gates: number }> => {
      const { pass, wallMs, journalStart } = await timedPass(sim, api, repo, stateDir, CONCURRENCY);
      const journal = ((await sim.admin('GET', '/_sim/journal')) as Journal[]).slice(journalStart);
      return {
        wallMs,
        reads: pass.plan.reads ?? 0,
        liveReads: journal.filter((e) => e.path.endsWith('/live')).length,
        writes: pass.result.writes,
        gates: pass.plan.gates?.length ?? 0,
      };
    };
    const withGates = await timed(gated);
    const rss = rssMiB();
    const without = await timed(plain);
    log(
      `gated pass: ${round(withGates.wallMs)} ms, ${withGates.reads} reads (${withGates.liveReads} wave live reads), ${withGates.gates} gate lines, ${withGates.writes} writes, rss ${rss} MiB`,
    );
    log(
      `same pass without gates: ${round(without.wallMs)} ms, ${without.reads} reads (ratio ${round(withGates.wallMs / without.wallMs, 2)}×)`,
    );
    return {
      metrics: {
        wallMs: round(withGates.wallMs),
        reads: withGates.reads,
        liveReads: withGates.liveReads,
        gates: withGates.gates,
        writes: withGates.writes,
        rssMiB: rss,
      },
      baseline: { wallMs: round(without.wallMs), reads: without.reads, ratio: round(withGates.wallMs / without.wallMs, 2) },
    };
  } finally {
    await api.close();
    await sim.close();
  }
};
