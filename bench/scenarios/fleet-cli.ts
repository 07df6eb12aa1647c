/**
 * fleet-cli (issue 21): `packsync apply` as a user runs it — the built CLI as a child process with
 * no Node flag from the user (the bin's own heap policy, its shebang), its output to a pipe — over 3,750 flows × 4 deployments of the large fleet,
 * against a simulator in its own process at 20 ms latency, 16 requests in flight
 * (`--api-concurrency 16`). Then the same apply again (a no-op). Each phase's bound is
 * `calls × 20 ms ÷ 16` (no rate limit); peak RSS is the CLI process's own high-water mark (VmHWM from
 * /proc, sampled until it exits), with no tuning flag. `--flows N` runs another size.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFleet } from '../../test/support/fleet.js';
import { startSimulatorProcess } from '../../test/support/sim.js';
import type { Scenario } from './types.js';
import { callPhases, journalTimeline, nodeFlagsOf, phaseMetrics, profileFlags, runCliProcess, simFloorMsPerCall } from '../support.js';
import type { CliRun } from '../support.js';
import { round } from './types.js';

const LATENCY_MS = 20;
const IN_FLIGHT = 16;
const bound = (calls: number): number => (calls * LATENCY_MS) / IN_FLIGHT;

/** One CLI run (bench/support.ts): its stdout drained from a pipe as a CI log collector would, its peak RSS and CPU sampled. */
const runCli = (args: string[], env: Record<string, string>, nodeFlags: string[] = []): Promise<CliRun> =>
  runCliProcess(args, env, { nodeFlags });

export const fleetCli: Scenario = async (log, args) => {
  const flows = typeof args.flows === 'string' ? Number(args.flows) : 3750;
  const shape = { flows, deploymentsPerFlow: 4, packages: Math.min(1000, flows * 2 - ((flows * 2) % 4)) };
  // `--sim-cpu-profile`: the simulator's own V8 profile of both runs (it shares the two cores with the CLI).
  const simProfile = profileFlags(args['sim-cpu-profile'] === true, 'packsync-fleet-cli-sim-profiles');
  const sim = await startSimulatorProcess({ fleet: 'large', latencyMs: LATENCY_MS, timeScale: 3600 }, simProfile);
  try {
    const repo = (await writeFleet(shape)).dir;
    const stateDir = await mkdtemp(join(tmpdir(), 'packsync-fleet-cli-'));
    const env = { PACKSYNC_API_KEY: sim.key, NODE_OPTIONS: '' };
    const cliArgs = (cmd: string): string[] => [
      cmd,
      repo,
      '--auto-approve',
      '--api-url',
      sim.url,
      '--state-dir',
      stateDir,
      '--api-concurrency',
      String(IN_FLIGHT),
      // `--cli-flags "..."`: try a flag without changing the scenario (the goal is met with none).
      ...(typeof args['cli-flags'] === 'string' ? args['cli-flags'].split(' ') : []),
    ];
    log(
      `${flows} flows × 4 deployments, ${shape.packages} packages: apply (the built CLI as its bin starts, no flag from the user, stdout to a pipe)…`,
    );
    const j0 = await sim.journalCount();
    // `--node-flags "..."`: try a heap policy without changing the CLI (the goal is met with none).
    const nodeFlags = nodeFlagsOf(args);
    const converge = await runCli(cliArgs('apply'), env, [
      ...nodeFlags,
      ...profileFlags(args['cpu-profile'] === true, 'packsync-fleet-cli-profiles'),
    ]);
    const convergeCalls = (await sim.journalCount()) - j0;
    // `--timeline`: each run's calls in two-second buckets (where it waits, and on what).
    const timeline = (entries: Parameters<typeof journalTimeline>[0]): void => {
      if (args.timeline === true) for (const l of journalTimeline(entries)) log(l);
    };
    const convergeJournal = (await sim.journal()).slice(j0);
    timeline(convergeJournal);
    // Where the converge's time goes around its calls, as for the no-op below.
    const convergePhases = callPhases(converge, convergeJournal);
    log(
      `converge: ${round(converge.ms)} ms, ${convergeCalls} calls, bound ${round(bound(convergeCalls))} ms (×${round(converge.ms / bound(convergeCalls), 2)}), CPU ${round(converge.cpuMs)} ms, peak RSS ${converge.peakMiB} MiB`,
    );
    const j1 = await sim.journalCount();
    // `--cpu-profile`: V8's profile of each run, for docs/performance.md's "what dominates".
    const prof = profileFlags(args['cpu-profile'] === true, 'packsync-fleet-cli-profiles');
    const noop = await runCli(cliArgs('apply'), env, [...nodeFlags, ...prof]);
    const noopAgain = async (): Promise<Record<string, number>> => {
      const j = await sim.journalCount();
      const run = await runCli(cliArgs('apply'), env, nodeFlags);
      const reads = (await sim.journalCount()) - j;
      log(`no-op again: ${round(run.ms)} ms, ${reads} reads (×${round(run.ms / bound(reads), 2)}), peak RSS ${run.peakMiB} MiB`);
      const phases = callPhases(run, (await sim.journal()).slice(j));
      return { noopAgainMs: round(run.ms), noopAgainRatio: round(run.ms / bound(reads), 2), ...phaseMetrics('noopAgain', phases) };
    };
    const noopReads = (await sim.journalCount()) - j1;
    const noopJournal = (await sim.journal()).slice(j1);
    timeline(noopJournal);
    // Where the no-op's time goes around its reads (docs/performance.md, fleet-cli "Eighteenth session").
    const noopPhases = callPhases(noop, noopJournal);
    log(
      `no-op: ${round(noop.ms)} ms, ${noopReads} reads, bound ${round(bound(noopReads))} ms (×${round(noop.ms / bound(noopReads), 2)}), CPU ${round(noop.cpuMs)} ms, peak RSS ${noop.peakMiB} MiB`,
    );
    // `--again`: the no-op once more, as an agent's later passes run (the manifest files, older now,
    // known by their stat; src/manifests/stat-record.ts), with its own phases.
    const again = args.again === true ? await noopAgain() : {};
    // The floor: what a client doing nothing else gets from this simulator in these minutes.
    const floorMs = await simFloorMsPerCall(sim, IN_FLIGHT);
    const floor = (calls: number): number => (calls * floorMs) / IN_FLIGHT;
    log(
      `floor: ${round(floorMs, 2)} ms per call at ${IN_FLIGHT} in flight (a bare client); converge ×${round(converge.ms / floor(convergeCalls), 2)}, no-op ×${round(noop.ms / floor(noopReads), 2)} of it`,
    );
    return {
      metrics: {
        floorMsPerCall: round(floorMs, 2),
        convergeFloorRatio: round(converge.ms / floor(convergeCalls), 2),
        noopFloorRatio: round(noop.ms / floor(noopReads), 2),
        convergeMs: round(converge.ms),
        convergeCalls,
        convergeBoundMs: round(bound(convergeCalls)),
        convergeRatio: round(converge.ms / bound(convergeCalls), 2),
        convergePeakRssMiB: converge.peakMiB,
        convergeCpuMs: round(converge.cpuMs),
        convergeStdoutKiB: round(converge.stdoutBytes / 1024),
        ...phaseMetrics('converge', convergePhases),
        noopMs: round(noop.ms),
        noopReads,
        noopBoundMs: round(bound(noopReads)),
        noopRatio: round(noop.ms / bound(noopReads), 2),
        noopPeakRssMiB: noop.peakMiB,
        noopCpuMs: round(noop.cpuMs),
        ...phaseMetrics('noop', noopPhases),
        ...again,
      },
      baseline: {},
    };
  } finally {
    await sim.close();
  }
};
