/**
 * crash-10x (issue #12): the fleet-10x converge by the built CLI (`packsync apply`, a real process,
 * concurrency 16, 200/s), killed with SIGKILL part-way (`--kill-after-s`, default 45), then applied
 * again to the end. Zero duplicates: exactly 3,000 flows, 15,000 deployments and 1,000 packages live,
 * no flow name and no (flow, package) pair twice, and a plan afterwards with nothing to do.
 */
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../support.js';
import { writeFleet } from '../../test/support/fleet.js';
import { startSimulatorProcess } from '../../test/support/sim.js';
import type { Scenario } from './types.js';
import { round } from './types.js';

const RATE = 200;

interface SimState {
  packages: { id: string }[];
  flows: { id: string; name: string; deleted: boolean }[];
  deployments: { flowId: string; packageId: string }[];
}

export const crash10x: Scenario = async (log, args) => {
  const flows = typeof args.flows === 'string' ? Number(args.flows) : 3000;
  const killAfterMs = (typeof args['kill-after-s'] === 'string' ? Number(args['kill-after-s']) : 45) * 1000;
  const shape = { flows, deploymentsPerFlow: 5, packages: Math.min(1000, flows * 2) };
  const sim = await startSimulatorProcess({ fleet: 'large', latencyMs: 20, rateLimit: RATE, timeScale: 3600 });
  try {
    const repo = (await writeFleet(shape)).dir;
    const stateDir = await mkdtemp(join(tmpdir(), 'packsync-bench-'));
    const env = { ...process.env, PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
    const args16 = ['--concurrency', '16', '--api-concurrency', '16', '--api-rate-limit', String(RATE), '--log-level', 'silent'];
    const run = (argv: string[], killMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [CLI, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-2000)));
        child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-2000)));
        const timer = killMs !== undefined ? setTimeout(() => child.kill('SIGKILL'), killMs) : null;
        child.once('close', (code, signal) => {
          if (timer) clearTimeout(timer);
          resolve({ code, signal, out });
        });
      });

    const j0 = await sim.journalCount();
    const killed = await run(['apply', '--auto-approve', repo, ...args16], killAfterMs);
    const callsBeforeKill = (await sim.journalCount()) - j0;
    if (killed.signal !== 'SIGKILL') throw new Error(`the first apply ended before the kill (exit ${killed.code}): ${killed.out}`);
    log(`killed after ${killAfterMs / 1000} s and ${callsBeforeKill} calls`);

    const j1 = await sim.journalCount();
    const t1 = performance.now();
    const resumed = await run(['apply', '--auto-approve', repo, ...args16]);
    const resumeMs = performance.now() - t1;
    const resumeCalls = (await sim.journalCount()) - j1;
    if (resumed.code !== 0) throw new Error(`the resumed apply failed (exit ${resumed.code}): ${resumed.out}`);
    const plan = await run(['plan', repo, '--detailed-exitcode', '--log-level', 'silent']);

    const state = (await sim.admin('GET', '/_sim/state')) as SimState;
    const live = state.flows.filter((f) => !f.deleted);
    const flowIds = new Set(live.map((f) => f.id));
    const deployments = state.deployments.filter((d) => flowIds.has(d.flowId));
    const dupFlows = live.length - new Set(live.map((f) => f.name)).size;
    const dupDeployments = deployments.length - new Set(deployments.map((d) => `${d.flowId} ${d.packageId}`)).size;
    const extraPackages = state.packages.length - shape.packages;
    log(
      `resumed: ${round(resumeMs)} ms, ${resumeCalls} calls; live: ${live.length} flows, ${deployments.length} deployments, ${state.packages.length} packages; ` +
        `duplicates: ${dupFlows} flows, ${dupDeployments} deployments, ${extraPackages} extra packages; plan afterwards exits ${plan.code}`,
    );
    return {
      metrics: {
        killAfterMs,
        callsBeforeKill,
        resumeMs: round(resumeMs),
        resumeCalls,
        flows: live.length,
        deployments: deployments.length,
        packages: state.packages.length,
        duplicateFlows: dupFlows,
        duplicateDeployments: dupDeployments,
        extraPackages,
        planExitCode: plan.code ?? -1,
      },
      baseline: {},
    };
  } finally {
    await sim.close();
  }
};
