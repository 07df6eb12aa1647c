/**
 * fleet-10x (issue #12): an empty account converged to 3,000 flows / 15,000 deployments / 1,000
 * catalog packages, then a no-op pass, over a simulator in its own process (`--fleet large`,
 * `--rate-limit 200`, 20 ms latency), client concurrency 16 and the same 200/s token bucket.
 * `boundMs = max(calls ÷ 200/s, calls × 20 ms ÷ 16)` (docs/performance.md) for each phase. `peakRssMiB` is the
 * process's high-water mark (getrusage maxrss) over generation, converge and no-op, in a child
 * process with the agent's heap limits (AGENT_NODE_OPTIONS). `--flows N` runs another size
 * (packages = min(1,000, 2 × flows)). fleet-growth runs 300, 1,000 and 3,000 flows, each in its own
 * process, and reports time per call at each.
 *
 * The simulator's CPU time over each phase is reported too (`simCpuShare`: its CPU seconds per wall
 * second), so a run can tell whether the simulator, not packsync, set the pace.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { writeHeapSnapshot } from 'node:v8';
import { createApiClient } from '../../src/api/client.js';
import { applyPlanned, planPass, reconcile } from '../../src/engine/reconcile.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import { AGENT_NODE_OPTIONS, keptPath, RUN } from '../support.js';
import { writeFleet } from '../../test/support/fleet.js';
import { startSimulatorProcess } from '../../test/support/sim.js';
import type { ScenarioArgs, Scenario } from './types.js';
import { round } from './types.js';

const RATE = 200;
const LATENCY_MS = 20;
const CONCURRENCY = 16;

const bound = (calls: number): number => Math.max((calls / RATE) * 1000, (calls * LATENCY_MS) / CONCURRENCY);
const peakRssMiB = (): number => round(process.resourceUsage().maxRSS / 1024);

/** CPU milliseconds a process has used (Linux /proc; 0 elsewhere). */
async function cpuMs(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 10;
}

export async function runFleet(flows: number, log: (s: string) => void, args: ScenarioArgs): Promise<Record<string, number>> {
  const shape = { flows, deploymentsPerFlow: 5, packages: Math.min(1000, flows * 2) };
  const sim = await startSimulatorProcess({ fleet: 'large', latencyMs: LATENCY_MS, rateLimit: RATE, timeScale: 3600 });
  const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key, concurrency: CONCURRENCY, rateLimit: { perSecond: RATE } });
  try {
    const repo = (await writeFleet(shape)).dir;
    const stateDir = await mkdtemp(join(tmpdir(), 'packsync-bench-'));
    log(`${flows} flows, ${flows * 5} deployments, ${shape.packages} packages: converging…`);
    const j0 = await sim.journalCount();
    const c0 = await cpuMs(sim.child.pid);
    const t0 = performance.now();
    // Only the count survives the converge: its plan and desired model are not kept alive into the
    // no-op pass (a process runs one or the other, or the agent drops a pass's result).
    const failed = await reconcile({
      path: repo,
      api,
      stateDir,
      planOptions: DEFAULT_PLAN_OPTIONS,
      apply: true,
      readConcurrency: CONCURRENCY,
      applyOptions: { concurrency: CONCURRENCY },
    }).then((first) => (first.kind === 'planned' ? (first.result?.failed ?? 0) : -1));
    const convergeMs = performance.now() - t0;
    const convergeSimCpu = (await cpuMs(sim.child.pid)) - c0;
    const convergeCalls = (await sim.journalCount()) - j0;
    if (failed !== 0) throw new Error(`the fleet did not converge (${failed} failed)`);
    const afterConverge = peakRssMiB();
    log(
      `converge: ${round(convergeMs)} ms, ${convergeCalls} calls, bound ${round(bound(convergeCalls))} ms (×${round(convergeMs / bound(convergeCalls), 2)}), peak RSS ${afterConverge} MiB, simulator CPU ${round(convergeSimCpu / convergeMs, 2)} of a core`,
    );
    if (args['heap-snapshot'] === true)
      log(`heap snapshot after converge: ${writeHeapSnapshot(keptPath(`fleet-${flows}-after-converge.heapsnapshot`))}`);

    const profiler = args['cpu-profile'] === true ? new Session() : null;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const j1 = await sim.journalCount();
    const c1 = await cpuMs(sim.child.pid);
    const t1 = performance.now();
    // planPass + applyPlanned is what reconcile() runs; split here so a heap snapshot can be taken
    // at the no-op pass's peak (desired model, live state, inventory and plan all alive).
    const planned = await planPass({ path: repo, api, stateDir, planOptions: DEFAULT_PLAN_OPTIONS, readConcurrency: CONCURRENCY });
    if (planned.kind !== 'planned') throw new Error('no-op pass: invalid manifests');
    if (args['heap-snapshot'] === true)
      log(`heap snapshot in the no-op pass: ${writeHeapSnapshot(keptPath(`fleet-${flows}-noop.heapsnapshot`))}`);
    const result = await applyPlanned(planned, api, { concurrency: CONCURRENCY });
    const pass = { kind: 'planned' as const, result };
    const noopMs = performance.now() - t1;
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      const file = keptPath(`fleet-${flows}-noop.cpuprofile`);
      await writeFile(file, JSON.stringify(profile));
      profiler.disconnect();
      log(`CPU profile of the no-op pass: ${file}`);
    }
    const noopSimCpu = (await cpuMs(sim.child.pid)) - c1;
    const noopReads = (await sim.journalCount()) - j1;
    if (!pass.result) throw new Error('no-op pass failed');
    if (pass.result.writes !== 0) throw new Error(`the no-op pass wrote ${pass.result.writes} times`);
    const peak = peakRssMiB();
    log(
      `no-op: ${round(noopMs)} ms, ${noopReads} reads, bound ${round(bound(noopReads))} ms (×${round(noopMs / bound(noopReads), 2)}), peak RSS ${peak} MiB, simulator CPU ${round(noopSimCpu / noopMs, 2)} of a core`,
    );
    return {
      convergeMs: round(convergeMs),
      convergeCalls,
      convergeBoundMs: round(bound(convergeCalls)),
      convergeRatio: round(convergeMs / bound(convergeCalls), 2),
      convergeMsPerCall: round(convergeMs / convergeCalls, 2),
      noopMs: round(noopMs),
      noopReads,
      noopBoundMs: round(bound(noopReads)),
      noopRatio: round(noopMs / bound(noopReads), 2),
      peakRssMiB: peak,
      simCpuShareConverge: round(convergeSimCpu / convergeMs, 2),
      simCpuShareNoop: round(noopSimCpu / noopMs, 2),
    };
  } finally {
    await api.close();
    await sim.close();
  }
}

export const fleet10x: Scenario = async (log, args) => {
  const flows = typeof args.flows === 'string' ? Number(args.flows) : 3000;
  if (process.env.PACKSYNC_BENCH_CHILD === '1') return { metrics: await runFleet(flows, log, args), baseline: {} };
  const pass = ['heap-snapshot', 'cpu-profile'].filter((k) => args[k] === true).map((k) => `--${k}`);
  return { metrics: await inAgentProcess(['--scenario', 'fleet-10x', '--flows', String(flows), ...pass], log), baseline: {} };
};

/**
 * Runs the scenario again in a child process with the heap limits the agent ships with, so peak
 * RSS is measured as it would be in the container; relays its output and returns its metrics.
 */
async function inAgentProcess(args: string[], log: (s: string) => void): Promise<Record<string, number>> {
  log(`running in a child process with NODE_OPTIONS="${AGENT_NODE_OPTIONS}" (as the agent manifests)`);
  const child = spawn(process.execPath, [RUN, ...args, '--json'], {
    env: { ...process.env, PACKSYNC_BENCH_CHILD: '1', NODE_OPTIONS: AGENT_NODE_OPTIONS },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let last = '';
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (line.startsWith('{"scenario"')) last = line;
    else log(`  ${line}`);
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0 || !last) throw new Error(`the benchmark child process failed (exit ${code})`);
  return (JSON.parse(last) as { metrics: Record<string, number> }).metrics;
}

/** Time per call at 300, 1,000 and 3,000 flows: flat (within 1.25×) when the state costs O(1) per change. */
export const fleetGrowth: Scenario = async (log) => {
  const metrics: Record<string, number> = {};
  for (const flows of [300, 1000, 3000]) {
    const m = await inAgentProcess(['--scenario', 'fleet-10x', '--flows', String(flows)], log);
    for (const [k, v] of Object.entries(m)) metrics[`${k}${flows}`] = v;
  }
  metrics.msPerCallGrowth300To3000 = round((metrics.convergeMsPerCall3000 ?? 0) / (metrics.convergeMsPerCall300 ?? 1), 2);
  return { metrics, baseline: {} };
};
