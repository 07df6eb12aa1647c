/**
 * The real simulator on port 0, with helpers to read its journal and state over HTTP: in this
 * process (`startTestSimulator`), or in its own (`startSimulatorProcess`, the built CLI) when a
 * measurement must see this process alone or a test must kill it. One options shape for both.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startSimulator } from '../../src/simulator/server.js';
import type { SimulatorOptions } from '../../src/simulator/server.js';
import { simulatorAdmin } from '../../src/simulator/admin-client.js';
import type { JournalEntry } from '../../src/simulator/admin.js';
import { until } from './poll.js';
import { freePort } from './port.js';
import { tempDir } from './repo.js';
import { spawnCli } from './spawn-cli.js';

export type { JournalEntry } from '../../src/simulator/admin.js';

export interface SimStartOptions extends Omit<SimulatorOptions, 'port'> {
  /** The account the helpers use (added to `apiKeys`); default a fresh random key. */
  key?: string;
}

export interface TestSim {
  url: string;
  key: string;
  journal: (writesOnly?: boolean) => Promise<JournalEntry[]>;
  /** Entries in the journal, counted by the simulator (no transfer of the journal itself). */
  journalCount: () => Promise<number>;
  writes: () => Promise<string[]>;
  state: () => Promise<SimState>;
  advance: (seconds: number) => Promise<void>;
  admin: (method: string, path: string, body?: unknown) => Promise<unknown>;
  close: () => Promise<void>;
}

export interface SimProcess extends TestSim {
  child: ChildProcess;
}

/** Defaults of both starters: those of a standalone `packsync simulator` (small fleet, time x600). */
function withDefaults(opts: SimStartOptions): SimStartOptions & { key: string } {
  return { fleet: 'small', timeScale: 600, ...opts, key: opts.key ?? `test-${randomBytes(8).toString('hex')}` };
}

export async function startTestSimulator(options: SimStartOptions = {}): Promise<TestSim> {
  const { key, ...opts } = withDefaults(options);
  const sim = await startSimulator({ ...opts, port: 0, apiKeys: [key, ...(opts.apiKeys ?? [])] });
  return handle(sim.url, key, () => sim.close());
}

/** The simulator as `packsync simulator` in a child process (needs the build: test/global-setup.ts, or bench's dist/). */
export async function startSimulatorProcess(options: SimStartOptions = {}, nodeFlags: readonly string[] = []): Promise<SimProcess> {
  const { key, ...o } = withDefaults(options);
  if (o.maxBodyBytes !== undefined || (o.faults !== undefined && typeof o.faults !== 'string'))
    throw new Error('startSimulatorProcess: maxBodyBytes and a parsed fault spec have no command-line flag');
  const flag = (name: string, value: string | number | undefined): string[] => (value === undefined ? [] : [name, String(value)]);
  const port = await freePort();
  const args = [
    ...['simulator', '--port', String(port)],
    ...[key, ...(o.apiKeys ?? [])].flatMap((k) => ['--api-key', k]),
    ...flag('--host', o.host),
    ...flag('--fleet', o.fleet),
    ...flag('--seed', o.seed),
    ...flag('--latency', o.latencyMs),
    ...flag('--faults', o.faults),
    ...flag('--rate-limit', o.rateLimit),
    ...flag('--time-scale', o.timeScale),
    ...flag('--data-dir', o.dataDir),
    ...flag('--response-style', o.responseStyle),
  ];
  // `nodeFlags`: a benchmark's `--sim-cpu-profile` (the simulator's own profile, written when it stops).
  const p = spawnCli(args, {}, 'pipe', process.cwd(), nodeFlags);
  const sim = handle(`http://${o.host ?? '127.0.0.1'}:${port}`, key, async () => {
    p.child.kill('SIGTERM');
    await p.done;
  });
  // A simulator that never answers fails here instead of at its first call.
  await until('the simulator to start', async () => (await sim.admin('GET', '/_sim/clock'), true), 10_000, {
    intervalMs: 50,
    giveUp: async () => (p.child.exitCode !== null ? `the simulator exited: ${(await p.done).stderr}` : undefined),
  });
  return { ...sim, child: p.child };
}

function handle(url: string, key: string, close: () => Promise<void>): TestSim {
  const admin = simulatorAdmin(url, key);
  const journal = async (writesOnly = false): Promise<JournalEntry[]> =>
    (await admin('GET', `/_sim/journal${writesOnly ? '?writes=true' : ''}`)) as JournalEntry[];
  return {
    url,
    key,
    journal,
    journalCount: async () => ((await admin('GET', '/_sim/journal?count=true')) as { count: number }).count,
    writes: async () =>
      (await journal(true)).filter((e) => e.status >= 200 && e.status < 300).map((e) => `${e.method} ${normalisePath(e.path)}`),
    state: async () => (await admin('GET', '/_sim/state')) as SimState,
    advance: async (seconds) => {
      await admin('POST', '/_sim/clock', { advanceSeconds: seconds });
    },
    admin,
    close,
  };
}

export interface SimState {
  packages: { id: string; productName: string; productVersion: string; state: string; isCustom: boolean; appId: string | null }[];
  flows: { id: string; name: string; deleted: boolean; scope: number; patchGroupId: string | null }[];
  deployments: { id: string; flowId: string; packageId: string; version: string; status: string; currentWave: number }[];
  uploads: { id: string; tenantId: string; packageId: string; state: string }[];
}

/** Replaces ids in a path with `{id}` so journal assertions read like the API's route table. */
export function normalisePath(path: string): string {
  return path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '{id}');
}

export function countBy(xs: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}

export interface SimEnv {
  sim: TestSim;
  /** PACKSYNC_API_URL, PACKSYNC_API_KEY and PACKSYNC_STATE_DIR for the CLI. */
  env: Record<string, string>;
  stateDir: string;
}

/** A fresh simulator, a fresh state directory and the CLI environment pointing at both. */
export async function simEnv(opts: SimStartOptions = {}): Promise<SimEnv> {
  const sim = await startTestSimulator(opts);
  const stateDir = await tempDir('packsync-state-');
  return { sim, stateDir, env: { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir } };
}
