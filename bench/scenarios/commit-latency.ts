/**
 * commit-latency: git push → signed webhook → the change visible in the service. A bare repository
 * in a temp dir served over file://, the agent (`packsync run`) in its own process against the
 * simulator in another (20 ms latency, time x3600). Each run flips one Deployment's `state`
 * (stopped ↔ running) in a clone, commits, then times push + webhook until the simulator's journal
 * shows the start/stop call for that deployment. The clock starts just before `git push`.
 *
 * The edited deployment starts `stopped` (added, never started): each start restarts its wave clock,
 * so with one-second runs it never reaches Completed (where neither start nor stop applies).
 */
import { join } from 'node:path';
import { writeFleet } from '../../test/support/fleet.js';
import { startSimulatorProcess } from '../../test/support/sim.js';
import { git } from '../../test/support/git.js';
import { agentFleetArgs, commitState, deploymentId, lastSeq, percentile, startBenchAgent, writeSeen } from './agent-bench.js';
import type { BenchAgent } from './agent-bench.js';
import type { Scenario } from './types.js';
import { round } from './types.js';

const LATENCY_MS = 20;
const TARGET = 'dep-0-0';
const TARGET_FILE = join('flows', 'flow-0.yaml');

export const commitLatency: Scenario = async (log, args) => {
  const fleet = agentFleetArgs(args, { runs: 20, flows: 50 });
  const { runs, flows } = fleet;
  const shape = { ...fleet.shape, state: (flow: number, k: number) => (flow === 0 && k === 0 ? ('stopped' as const) : undefined) };
  const sim = await startSimulatorProcess({ fleet: 'large', latencyMs: LATENCY_MS, timeScale: 3600 });
  let agent: BenchAgent | undefined;
  try {
    const work = (await writeFleet(shape)).dir;
    agent = await startBenchAgent(sim, work);
    const { status, waitApplied, stateDir } = agent;
    log(`converging ${flows} flows, ${flows * 5} deployments, ${shape.packages} packages through the agent (not timed)…`);
    // Converged, not only applied: a pass does not block on imports, so the last ones may still
    // be processing when the revision is first applied.
    await agent.waitConverged(await git(work, 'rev-parse', 'HEAD'), 150_000);
    const id = await deploymentId(stateDir, TARGET);

    const times: number[] = [];
    const pushes: number[] = [];
    const passes: number[] = [];
    let state = 'stopped';
    for (let r = 0; r < runs; r++) {
      state = state === 'stopped' ? 'running' : 'stopped';
      const want = `/v1/flow/deployment/${id}/${state === 'running' ? 'start' : 'stop'}`;
      const sha = await commitState(work, TARGET_FILE, TARGET, state);
      const seen = await lastSeq(sim);

      const t0 = performance.now();
      await git(work, 'push', '-q', 'origin', 'main');
      pushes.push(performance.now() - t0);
      await agent.webhook();
      // Counted from the journal's record of the call (status 0 while in flight), not its answer.
      const ms = await writeSeen(sim, seen, (e) => e.path === want && e.status < 300, t0, 30_000, `run ${r + 1}: ${want}`);
      times.push(ms);
      log(`run ${r + 1}: ${state === 'running' ? 'start' : 'stop'} visible after ${round(ms)} ms`);
      // Let the pass finish (record, status) so the next push does not queue behind it.
      await waitApplied(sha, 30_000);
      const pass = (await status())?.history.find((h) => h.revision === sha);
      if (pass) passes.push(pass.durationMs);
    }
    const p50 = percentile(times, 50);
    const p95 = percentile(times, 95);
    log(`commit → change visible: p50 ${round(p50)} ms, p95 ${round(p95)} ms over ${runs} runs`);
    const pushP50 = percentile(pushes, 50);
    const passP50 = percentile(passes, 50);
    log(
      `of which: git push p50 ${round(pushP50)} ms; the agent's whole pass (fetch, load, read, plan, apply, record) p50 ${round(passP50)} ms`,
    );
    return {
      metrics: {
        p50Ms: round(p50),
        p95Ms: round(p95),
        maxMs: round(Math.max(...times)),
        runs,
        flows,
        pushP50Ms: round(pushP50),
        passP50Ms: round(passP50),
      },
      baseline: {},
    };
  } finally {
    await agent?.stop();
    await sim.close();
  }
};
