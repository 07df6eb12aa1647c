/**
 * Shared pieces of the benchmarks. The simulator in its own process (`startSimulatorProcess`) and
 * the generated fleets (`writeFleet`) are the tests' own, from test/support.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binCommand } from '../test/support/spawn-cli.js';

export const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
export const RUN = fileURLToPath(new URL('./run.js', import.meta.url));

/**
 * The V8 heap limits the shipped agent manifests set (`NODE_OPTIONS` in
 * deploy/kubernetes/agent-git.yaml and sidecar-git-sync.yaml, next to their 256 MiB memory limit;
 * test/deploy/heap-options.test.ts keeps them equal). Without a limit V8 sizes the heap from the
 * host's memory and lets garbage pile up far past what is live (fleet-10x: 479 MiB RSS for under
 * 130 MiB live), which in a 256 MiB container is an OOM kill.
 */
export const AGENT_NODE_OPTIONS = '--max-old-space-size=112 --max-semi-space-size=4';

/**
 * Where a run's profiles and heap snapshots go: the machine's temp folder, not the run's own
 * (bench/run.ts removes that when the run ends). Its children (fleet-10x runs itself again) are
 * told the same folder through the environment.
 */
export function keptPath(name: string): string {
  return join(process.env.PACKSYNC_BENCH_KEEP || tmpdir(), name);
}

/** Node's flags that write a process's V8 CPU profile into the kept folder `name`, when `on` (`--cpu-profile`, `--sim-cpu-profile`). */
export function profileFlags(on: boolean, name: string): string[] {
  return on ? ['--cpu-prof', `--cpu-prof-dir=${keptPath(name)}`] : [];
}

export const rssMiB = (): number => Math.round((process.memoryUsage().rss / 1048576) * 10) / 10;

/**
 * `--timeline`: what the service saw during one phase, in two-second buckets, the busiest routes of
 * each (ids replaced by `{id}`): where a phase waits, and on what, read from the journal rather
 * than guessed (docs/performance.md). `entries` are the journal's entries from the phase's start.
 */
export function journalTimeline(entries: readonly { time: string; method: string; path: string }[], bucketMs = 2000): string[] {
  if (entries.length === 0) return [];
  const t0 = Date.parse(entries[0]!.time);
  const buckets = new Map<number, Map<string, number>>();
  for (const e of entries) {
    const b = Math.floor((Date.parse(e.time) - t0) / bucketMs);
    const routes = buckets.get(b) ?? new Map<string, number>();
    const route = `${e.method} ${e.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '{id}')}`;
    routes.set(route, (routes.get(route) ?? 0) + 1);
    buckets.set(b, routes);
  }
  return [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, routes]) => {
      const top = [...routes].sort((x, y) => y[1] - x[1]).slice(0, 3);
      return `${String((b * bucketMs) / 1000).padStart(5)} s  ${top.map(([r, n]) => `${r} ×${n}`).join(' | ')}`;
    });
}

/** Where a CLI run's wall time went around its calls, from the simulator's journal (times of arrival). */
export interface CallPhases {
  /** Spawn to the first call's arrival: Node, modules, the state and the manifests. */
  beforeFirstCallMs: number;
  /** Calls in the first second after the first: the rest of the load shares the thread with them. */
  firstSecondCalls: number;
  /** Calls a second after that first second, to the last call: the steady pace (the floor's is 16 ÷ floor ms). */
  paceCallsPerS: number;
  /** The longest stretch between two calls: at 16 in flight, time the run's own CPU held the calls back (a plan, a fold). */
  longestGapMs: number;
  /** The last call's arrival to the exit: its answer, then the run's own work after it. */
  afterLastCallMs: number;
}

/** The phases of one run whose calls are `entries` (the journal's slice of that run), none when it made none. */
export function callPhases(run: Pick<CliRun, 'ms' | 'startedAtMs'>, entries: readonly { time: string }[]): CallPhases | undefined {
  if (entries.length === 0) return undefined;
  const times = entries.map((e) => Date.parse(e.time));
  const first = times[0]!;
  const last = times.at(-1)!;
  let longestGapMs = 0;
  for (let i = 1; i < times.length; i++) longestGapMs = Math.max(longestGapMs, times[i]! - times[i - 1]!);
  const firstSecondCalls = times.filter((t) => t < first + 1000).length;
  const rest = last - first - 1000;
  return {
    beforeFirstCallMs: first - run.startedAtMs,
    firstSecondCalls,
    paceCallsPerS: rest > 0 ? Math.round(((times.length - firstSecondCalls) / rest) * 1000) : 0,
    longestGapMs,
    afterLastCallMs: Math.round(run.startedAtMs + run.ms - last),
  };
}

/** `callPhases` as flat metrics named after their run (`noopBeforeFirstCallMs`, …). */
export function phaseMetrics(prefix: string, phases: CallPhases | undefined): Record<string, number> {
  if (!phases) return {};
  return Object.fromEntries(Object.entries(phases).map(([k, v]) => [`${prefix}${k[0]!.toUpperCase()}${k.slice(1)}`, Math.round(v)]));
}

const TICK_MS = 10; // USER_HZ 100: /proc/PID/stat counts CPU time in 10 ms ticks

/** A process's peak RSS (VmHWM) and CPU time (utime + stime) so far, from /proc. */
async function procStats(pid: number): Promise<{ hwmKiB: number; cpuMs: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { hwmKiB: Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0), cpuMs: (Number(f[11] ?? 0) + Number(f[12] ?? 0)) * TICK_MS };
}

export interface CliRun {
  ms: number;
  /** Wall-clock time (`Date.now()`) of the spawn, to place the simulator's journal in the run. */
  startedAtMs: number;
  /** utime + stime, sampled every 25 ms until the process exits (the last few ms may be missed). */
  cpuMs: number;
  peakMiB: number;
  stdout: string;
  stdoutBytes: number;
}

/**
 * The CLI as a user runs it: a process started as its bin (its own heap policy, no flag from the
 * user, plus any `nodeFlags` to try), output to a pipe and drained as a CI log collector would;
 * peak RSS and CPU sampled until it exits. `keepStdout` keeps the text (else only its size).
 */
export async function runCliProcess(
  args: string[],
  env: Record<string, string>,
  o: { cwd?: string; okCodes?: number[]; nodeFlags?: string[]; keepStdout?: boolean } = {},
): Promise<CliRun> {
  const t0 = performance.now();
  const startedAtMs = Date.now();
  const bin = binCommand(o.nodeFlags ?? []);
  const child = spawn(bin.command, [...bin.args, ...args], {
    ...(o.cwd ? { cwd: o.cwd } : {}),
    env: { ...process.env, ...bin.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stdoutBytes = 0;
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => {
    stdoutBytes += b.length;
    if (o.keepStdout) stdout += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
  let peak = 0;
  let cpu = 0;
  const sampler = setInterval(() => {
    if (child.pid === undefined) return;
    void procStats(child.pid).then((s) => {
      peak = Math.max(peak, s.hwmKiB);
      cpu = Math.max(cpu, s.cpuMs);
    });
  }, 25);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearInterval(sampler);
  if (!(o.okCodes ?? [0]).includes(code ?? -1)) throw new Error(`packsync ${args[0]} exited ${code}: ${stderr}`);
  return { ms: performance.now() - t0, startedAtMs, cpuMs: cpu, peakMiB: Math.round((peak / 1024) * 10) / 10, stdout, stdoutBytes };
}

/**
 * What the simulator itself allows at `inFlight` calls: `calls` cheap reads (one package's details)
 * through undici with nothing else done, `inFlight` at a time, as ms per call. At 20 ms of
 * latency this was ~21.5 ms here (the timer ~0.25 ms late, the rest two event loops and loopback
 * TCP on two shared cores), so `calls × 20 ms ÷ 16` is a bound no client reaches; a scenario
 * reports its ratio to this floor beside its ratio to the bound (docs/performance.md, fleet-cli).
 */
export async function simFloorMsPerCall(sim: { url: string; key: string }, inFlight: number, calls = 3000): Promise<number> {
  const { Agent, request } = await import('undici');
  const agent = new Agent({ connections: inFlight, pipelining: 1 });
  const headers = { 'x-api-key': sim.key };
  // One package's details (a lookup by id): a list is sorted and paged per call, which a big account makes slow.
  const page = await request(`${sim.url}/v1/package?page=1&itemsPerPage=1`, { dispatcher: agent, headers });
  const id = (JSON.parse(await page.body.text()) as { id: string }[])[0]?.id;
  if (page.statusCode !== 200 || id === undefined) throw new Error(`the floor needs a package in the account (list: ${page.statusCode})`);
  const url = `${sim.url}/v1/package/${id}`;
  let started = 0;
  const t0 = performance.now();
  try {
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (started < calls) {
          started++;
          const r = await request(url, { dispatcher: agent, headers });
          await r.body.text();
          if (r.statusCode !== 200) throw new Error(`the floor's read answered ${r.statusCode}`);
        }
      }),
    );
  } finally {
    await agent.close();
  }
  return ((performance.now() - t0) / calls) * inFlight;
}

/** `--node-flags "..."`: Node flags for a scenario's measured CLI runs (a heap policy to try without changing the CLI). */
export function nodeFlagsOf(args: Record<string, unknown>): string[] {
  const v = args['node-flags'];
  return typeof v === 'string' ? v.split(' ').filter(Boolean) : [];
}
