/**
 * The simulator in its own process (the built CLI), for measurements of this process alone: the
 * in-process simulator's journal grows with every call and would read as a leak.
 */
import { randomBytes } from 'node:crypto';
import { until } from '../../support/poll.js';
import { freePort } from '../../support/port.js';
import { spawnCli } from '../../support/spawn-cli.js';
import type { Spawned } from '../../support/spawn-cli.js';
import { simulatorAdmin } from '../../../src/simulator/admin-client.js';

export interface ExternalSim {
  url: string;
  key: string;
  admin: (method: string, path: string, body?: unknown) => Promise<unknown>;
  stop: () => Promise<void>;
}

export async function startExternalSim(args: string[]): Promise<ExternalSim> {
  const port = await freePort();
  const key = `soak-${randomBytes(8).toString('hex')}`;
  const p: Spawned = spawnCli(['simulator', '--port', String(port), '--api-key', key, ...args], {});
  const url = `http://127.0.0.1:${port}`;
  const admin = simulatorAdmin(url, key);
  await until('the simulator to start', async () => (await admin('GET', '/_sim/clock'), true), 10_000, {
    intervalMs: 50,
    giveUp: async () => (p.child.exitCode !== null ? `the simulator exited: ${(await p.done).stderr}` : undefined),
  });
  return {
    url,
    key,
    admin,
    stop: async () => {
      p.child.kill('SIGTERM');
      await p.done;
    },
  };
}
