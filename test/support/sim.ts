/** The real simulator on port 0, with helpers to read its journal and state over HTTP. */
import { randomBytes } from 'node:crypto';
import { startSimulator } from '../../src/simulator/server.js';
import type { SimulatorOptions } from '../../src/simulator/server.js';
import { simulatorAdmin } from '../../src/simulator/admin-client.js';
import type { JournalEntry } from '../../src/simulator/admin.js';
import { tempDir } from './repo.js';

export type { JournalEntry } from '../../src/simulator/admin.js';

export interface TestSim {
  url: string;
  key: string;
  journal: (writesOnly?: boolean) => Promise<JournalEntry[]>;
  writes: () => Promise<string[]>;
  state: () => Promise<SimState>;
  advance: (seconds: number) => Promise<void>;
  admin: (method: string, path: string, body?: unknown) => Promise<unknown>;
  close: () => Promise<void>;
}

export interface SimState {
  packages: { id: string; productName: string; productVersion: string; state: string; isCustom: boolean; appId: string | null }[];
  flows: { id: string; name: string; deleted: boolean }[];
  deployments: { id: string; flowId: string; packageId: string; status: string; currentWave: number }[];
  uploads: { id: string; tenantId: string; packageId: string; state: string }[];
}

export async function startTestSimulator(opts: SimulatorOptions = {}): Promise<TestSim> {
  const key = `test-${randomBytes(8).toString('hex')}`;
  const sim = await startSimulator({ port: 0, fleet: 'small', timeScale: 600, ...opts, apiKeys: [key, ...(opts.apiKeys ?? [])] });
  const admin = simulatorAdmin(sim.url, key);
  const journal = async (writesOnly = false): Promise<JournalEntry[]> =>
    (await admin('GET', `/_sim/journal${writesOnly ? '?writes=true' : ''}`)) as JournalEntry[];
  return {
    url: sim.url,
    key,
    journal,
    writes: async () =>
      (await journal(true)).filter((e) => e.status >= 200 && e.status < 300).map((e) => `${e.method} ${normalisePath(e.path)}`),
    state: async () => (await admin('GET', '/_sim/state')) as SimState,
    advance: async (seconds) => {
      await admin('POST', '/_sim/clock', { advanceSeconds: seconds });
    },
    admin,
    close: () => sim.close(),
  };
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
export async function simEnv(opts: SimulatorOptions = {}): Promise<SimEnv> {
  const sim = await startTestSimulator(opts);
  const stateDir = await tempDir('packsync-state-');
  return { sim, stateDir, env: { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir } };
}
