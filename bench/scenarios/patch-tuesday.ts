/**
 * patch-tuesday (issue 22): the week the patch stream exists for. A 3,000-flow fleet (4 deployments
 * each, 1,000 packages of 250 catalog apps) is converged, then 500 new versions are published at once
 * (two per app), and the 500 newest-version packages that follow the catalog (`update: { track:
 * latest, group: patch-tuesday }`) move: `packsync update --commit` (the built CLI as a process) and
 * the `apply` that follows, which imports the new packages and starts every new deployment. Against a
 * simulator in its own process at 20 ms latency, 16 in flight; each phase's bound is calls × 20 ms ÷ 16.
 * Figures: update wall and CPU time and its reads (goal: ≤ followed apps + 1), apply against its bound
 * (goal ≤ 1.25×), peak RSS of both (goal ≤ 200 MiB). `--flows N` runs another size.
 */
import { execFileSync } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fleetApps, writeFleet } from '../../test/support/fleet.js';
import { startSimulatorProcess } from '../../test/support/sim.js';
import { tempDir } from '../../test/support/temp-dir.js';
import type { Scenario } from './types.js';
import { callPhases, journalTimeline, nodeFlagsOf, phaseMetrics, profileFlags, runCliProcess, simFloorMsPerCall } from '../support.js';
import type { CliRun } from '../support.js';
import { round } from './types.js';

const LATENCY_MS = 20;
const IN_FLIGHT = 16;
const bound = (calls: number): number => (calls * LATENCY_MS) / IN_FLIGHT;
/** The CLI as a user runs it (bench/support.ts), in the fleet's repository, its output kept. */
const cli = (args: string[], env: Record<string, string>, cwd: string, okCodes = [0], nodeFlags: string[] = []): Promise<CliRun> =>
  runCliProcess(args, env, { cwd, okCodes, nodeFlags, keepStdout: true });

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'bench',
      GIT_AUTHOR_EMAIL: 'b@example.com',
      GIT_COMMITTER_NAME: 'bench',
      GIT_COMMITTER_EMAIL: 'b@example.com',
    },
  });
}

/** Gives the newest-version packages (variants 0 and 2: machine and user scope) a version policy. */
async function follow(dir: string): Promise<number> {
  let followed = 0;
  for (const f of await readdir(join(dir, 'packages'))) {
    const file = join(dir, 'packages', f);
    const docs = (await readFile(file, 'utf8')).split('---\n').map((d) => {
      const n = Number(/name: pkg-(\d+)/.exec(d)?.[1] ?? -1);
      if (n % 4 !== 0 && n % 4 !== 2) return d;
      followed++;
      return `${d}    update: { track: latest, group: patch-tuesday }\n`;
    });
    await writeFile(file, docs.join('---\n'));
  }
  return followed;
}

export const patchTuesday: Scenario = async (log, args) => {
  const flows = typeof args.flows === 'string' ? Number(args.flows) : 3000;
  const shape = { flows, deploymentsPerFlow: 4, packages: Math.min(1000, flows * 2 - ((flows * 2) % 4)) };
  // `--sim-cpu-profile`: the simulator's own V8 profile of the whole scenario (it shares the two cores with the CLI).
  const simProfile = profileFlags(args['sim-cpu-profile'] === true, 'packsync-patch-tuesday-sim-profiles');
  const sim = await startSimulatorProcess({ fleet: 'large', latencyMs: LATENCY_MS, timeScale: 3600 }, simProfile);
  try {
    const fleet = await writeFleet(shape);
    const repo = fleet.dir;
    const followed = await follow(repo);
    git(repo, 'init', '-q', '--initial-branch=main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'the fleet');
    const stateDir = await tempDir('packsync-patch-tuesday-');
    const env = { PACKSYNC_API_KEY: sim.key, PACKSYNC_API_URL: sim.url, PACKSYNC_STATE_DIR: stateDir, NODE_OPTIONS: '' };
    const common = ['--api-concurrency', String(IN_FLIGHT)];
    log(`${flows} flows × 4 deployments, ${shape.packages} packages (${followed} follow the catalog): converging first…`);
    await cli(['apply', '.', '--auto-approve', ...common], env, repo);

    const apps = fleetApps().slice(0, Math.ceil(shape.packages / 4));
    const now = Date.parse(((await sim.admin('GET', '/_sim/clock')) as { now: string }).now);
    for (const a of apps)
      for (const [i, suffix] of ['1', '2'].entries())
        await sim.admin('POST', '/_sim/releases', {
          app: a.name,
          version: `${a.versions[0]}.${suffix}`,
          releasedAt: new Date(now - (2 - i) * 3_600_000).toISOString(),
        });
    log(`published ${apps.length * 2} versions of ${apps.length} apps; packsync update --commit…`);

    // `--node-flags "..."`: try a heap policy for the measured update and apply without changing the CLI.
    const nodeFlags = nodeFlagsOf(args);
    // `--cpu-profile`: V8's profiles of the measured update and apply (in that order of their names'
    // times), for docs/performance.md's "what dominates".
    const prof = profileFlags(args['cpu-profile'] === true, 'packsync-patch-tuesday-profiles');
    const j0 = await sim.journalCount();
    const update = await cli(['update', '.', '--commit', '--detailed-exitcode', ...common], env, repo, [2], [...nodeFlags, ...prof]);
    const updateReads = (await sim.journalCount()) - j0;
    const changed = update.stdout.split('\n').filter((l) => l.includes(' → ')).length;
    log(
      `update: ${round(update.ms)} ms wall, ${round(update.cpuMs)} ms CPU, ${updateReads} reads (≤ ${apps.length + 1}), ${changed} packages moved, peak RSS ${update.peakMiB} MiB`,
    );

    const j1 = await sim.journalCount();
    const apply = await cli(['apply', '.', '--auto-approve', ...common], env, repo, [0], [...nodeFlags, ...prof]);
    const applyCalls = (await sim.journalCount()) - j1;
    // `--timeline`: the apply's calls in two-second buckets (where it waits, and on what).
    const applyJournal = (await sim.journal()).slice(j1);
    if (args.timeline === true) for (const l of journalTimeline(applyJournal)) log(l);
    // Where the apply's time goes around its calls: the longest gap is the plan's (docs/performance.md, patch-tuesday).
    const applyPhases = callPhases(apply, applyJournal);
    const newest = new Set(apps.map((a) => `${a.versions[0]}.2`));
    const started = (await sim.state()).deployments.filter((d) => newest.has(d.version ?? '') && d.status !== 'Pending').length;
    log(
      `apply: ${round(apply.ms)} ms, ${applyCalls} calls, bound ${round(bound(applyCalls))} ms (×${round(apply.ms / bound(applyCalls), 2)}), ${started} new deployments started, peak RSS ${apply.peakMiB} MiB`,
    );
    // The floor: what a client doing nothing else gets from this simulator in these minutes (bench/support.ts).
    const floorMs = await simFloorMsPerCall(sim, IN_FLIGHT);
    const floor = (calls: number): number => (calls * floorMs) / IN_FLIGHT;
    const bothFloor = round((update.ms + apply.ms) / (floor(applyCalls) + floor(updateReads)), 2);
    log(`floor: ${round(floorMs, 2)} ms per call at ${IN_FLIGHT} in flight (a bare client); update + apply ×${bothFloor} of it`);
    return {
      metrics: {
        floorMsPerCall: round(floorMs, 2),
        updatePlusApplyFloorRatio: bothFloor,
        followedPackages: followed,
        releases: apps.length * 2,
        updateMs: round(update.ms),
        updateCpuMs: round(update.cpuMs),
        updateReads,
        updateReadsAllowed: apps.length + 1,
        updateBoundMs: round(bound(updateReads)),
        updatePeakRssMiB: update.peakMiB,
        packagesMoved: changed,
        applyMs: round(apply.ms),
        applyCalls,
        applyBoundMs: round(bound(applyCalls)),
        applyRatio: round(apply.ms / bound(applyCalls), 2),
        updatePlusApplyRatio: round((update.ms + apply.ms) / (bound(applyCalls) + bound(updateReads)), 2),
        newDeploymentsStarted: started,
        applyPeakRssMiB: apply.peakMiB,
        ...phaseMetrics('apply', applyPhases),
      },
      baseline: {},
    };
  } finally {
    await sim.close();
  }
};
