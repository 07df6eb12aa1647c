/**
 * stop-latency: an emergency stop while the agent has a package import processing (docs/reconcile.md:
 * "a commit that stops a deployment reaches the service within seconds even while other objects
 * wait"; operator review row 17 measured 31.8 s when a pass blocked in `wait for processing`).
 *
 * The agent (`packsync run`, default options) follows a fleet repository (`--flows N`, default 10,
 * five deployments each) against a simulator in real time (20 ms latency). Each run commits
 * `state: stopped` for one running deployment and times git push + signed webhook until the
 * simulator's journal shows the stop call; a second, untimed commit starts it again.
 *
 * - baseline: the same runs with nothing processing.
 * - ours: after a commit that adds a new catalog package with its flow and deployment, whose import
 *   the simulator holds in `Running` (admin call) for the whole phase, so every run lands while the
 *   agent is waiting on it. Afterwards the import is released and the time until the waiting
 *   deployment is added by the agent's own requeued pass is reported too.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fleetAppCount, fleetApps, writeFleet } from '../../test/support/fleet.js';
import { catalogPackageDoc, deploymentDoc, flowDoc, yamlDocs } from '../../test/support/manifests.js';
import { startSimulatorProcess } from '../../test/support/sim.js';
import type { JournalEntry } from '../../test/support/sim.js';
import { git } from '../../test/support/git.js';
import { agentFleetArgs, commitState, deploymentId, lastSeq, percentile, sleep, startBenchAgent, writeSeen } from './agent-bench.js';
import type { BenchAgent } from './agent-bench.js';
import type { Scenario } from './types.js';
import { round } from './types.js';

const LATENCY_MS = 20;
const TARGET = 'dep-0-0';
const TARGET_FILE = join('flows', 'flow-0.yaml');

const ok = (e: JournalEntry): boolean => e.status >= 200 && e.status < 300;

interface SimPackage {
  id: string;
  appId: string | null;
  state: string;
}

export const stopLatency: Scenario = async (log, args) => {
  const { runs, flows, shape } = agentFleetArgs(args, { runs: 15, flows: 10 });
  const sim = await startSimulatorProcess({ fleet: 'large', latencyMs: LATENCY_MS, timeScale: 1 });
  let agent: BenchAgent | undefined;
  try {
    const appCount = fleetAppCount(shape);
    const apps = fleetApps();
    const extra = apps[appCount];
    if (!extra) throw new Error('the catalog has too few apps for the processing package');
    const work = (await writeFleet(shape, apps.slice(0, appCount))).dir;
    agent = await startBenchAgent(sim, work);
    const a = agent;
    const head = await git(work, 'rev-parse', 'HEAD');
    log(
      `converging ${flows} flows, ${flows * 5} deployments, ${shape.packages} packages through the agent (not timed; the clock is advanced past the imports)…`,
    );
    for (const until = Date.now() + 90_000; ;) {
      const s = await a.status();
      if (s?.lastAppliedRevision === head && s.conditions.find((c) => c.type === 'Reconciling')?.status === 'False') break;
      if (Date.now() > until) throw new Error(`the agent did not converge the fleet: ${JSON.stringify(s?.conditions)}`);
      await sim.admin('POST', '/_sim/clock', { advanceSeconds: 60 });
      await a.reconcile().catch(() => undefined); // not listening yet on the first round
      await sleep(500);
    }
    const id = await deploymentId(a.stateDir, TARGET);
    const stopPath = `/v1/flow/deployment/${id}/stop`;
    const startPath = `/v1/flow/deployment/${id}/start`;
    const commit = (state: string): Promise<string> => commitState(work, TARGET_FILE, TARGET, state);
    /** One timed stop (push → webhook → stop call in the journal), then an untimed restart. */
    const stopOnce = async (): Promise<number> => {
      await commit('stopped');
      const seen = await lastSeq(sim);
      const t0 = performance.now();
      await git(work, 'push', '-q', 'origin', 'main');
      await a.webhook();
      const ms = await writeSeen(sim, seen, (e) => ok(e) && e.path === stopPath, t0, 60_000, 'the stop call');
      const again = await commit('running');
      const seen2 = await lastSeq(sim);
      await git(work, 'push', '-q', 'origin', 'main');
      await a.webhook();
      await writeSeen(sim, seen2, (e) => ok(e) && e.path === startPath, performance.now(), 60_000, 'the start call');
      await a.waitApplied(again, 60_000);
      return ms;
    };

    const baseline: number[] = [];
    for (let r = 0; r < runs; r++) {
      baseline.push(await stopOnce());
      log(`baseline run ${r + 1}: stop visible after ${round(baseline[r]!)} ms (nothing processing)`);
    }

    // A new package, flow and deployment; the import is held Running for the whole phase.
    await writeFile(
      join(work, 'processing.yaml'),
      yamlDocs(
        catalogPackageDoc('processing', JSON.stringify(extra.name), extra.versions[0]),
        flowDoc('processing', JSON.stringify(extra.name)),
        deploymentDoc('processing', 'processing', 'running'),
      ),
    );
    await git(work, 'add', '-A');
    await git(work, 'commit', '-q', '-m', 'add a package that will be processing');
    const seenAdd = await lastSeq(sim);
    await git(work, 'push', '-q', 'origin', 'main');
    await a.webhook();
    await writeSeen(sim, seenAdd, (e) => ok(e) && e.path.startsWith('/v1/app/import/'), performance.now(), 30_000, 'the import');
    const appId = (await sim.journal(true))
      .find((e) => e.seq > seenAdd && ok(e) && e.path.startsWith('/v1/app/import/'))
      ?.path.split('/')
      .pop();
    const pkgs = ((await sim.admin('GET', '/_sim/state')) as { packages: SimPackage[] }).packages;
    const imported = pkgs.find((p) => p.appId === appId && (p.state === 'Pending' || p.state === 'Running'));
    if (!imported)
      throw new Error(`the new import of app ${appId ?? '?'} is not processing: ${JSON.stringify(pkgs.filter((p) => p.appId === appId))}`);
    await sim.admin('POST', `/_sim/packages/${imported.id}/state`, { state: 'Running' });
    log(`package ${imported.id} held Running (import of ${extra.name})`);

    const ours: number[] = [];
    for (let r = 0; r < runs; r++) {
      ours.push(await stopOnce());
      log(`run ${r + 1}: stop visible after ${round(ours[r]!)} ms while an import is processing`);
    }
    const added = async (): Promise<boolean> =>
      (await sim.journal(true)).some((e) => e.seq > seenAdd && ok(e) && /\/v1\/flow\/[^/]+\/add-deployment$/.test(e.path));
    const still = ((await sim.admin('GET', '/_sim/state')) as { packages: SimPackage[] }).packages.find((p) => p.id === imported.id)?.state;
    if (still !== 'Running' || (await added()))
      throw new Error(`the import did not stay processing for the whole phase (state ${still ?? '?'})`);

    // Release it: the agent's own requeued pass (no trigger from here) adds the waiting deployment.
    const seenRelease = await lastSeq(sim);
    const t1 = performance.now();
    await sim.admin('POST', `/_sim/packages/${imported.id}/state`, { state: 'Completed' });
    const releaseMs = await writeSeen(
      sim,
      seenRelease,
      (e) => ok(e) && /\/v1\/flow\/[^/]+\/add-deployment$/.test(e.path),
      t1,
      30_000,
      'the waiting deployment',
    );
    const imports = (await sim.journal(true)).filter((e) => e.seq > seenAdd && ok(e) && e.path.startsWith('/v1/app/import/')).length;
    if (imports !== 1) throw new Error(`the processing package was imported ${imports} times`);

    const p50 = percentile(ours, 50);
    const p95 = percentile(ours, 95);
    const b50 = percentile(baseline, 50);
    const b95 = percentile(baseline, 95);
    log(
      `push → stop call while an import is processing: p50 ${round(p50)} ms, p95 ${round(p95)} ms; nothing processing: p50 ${round(b50)} ms, p95 ${round(b95)} ms (${runs} runs each)`,
    );
    log(
      `released import → waiting deployment added by the requeued pass: ${round(releaseMs)} ms; imports of the processing package: ${imports}`,
    );
    return {
      metrics: {
        p50Ms: round(p50),
        p95Ms: round(p95),
        maxMs: round(Math.max(...ours)),
        p95VsBaseline: round(p95 / b95, 2),
        p50VsBaseline: round(p50 / b50, 2),
        releaseToAddMs: round(releaseMs),
        runs,
        flows,
      },
      baseline: { p50Ms: round(b50), p95Ms: round(b95), maxMs: round(Math.max(...baseline)) },
    };
  } finally {
    await agent?.stop();
    await sim.close();
  }
};
