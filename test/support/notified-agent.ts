/**
 * A real agent (`packsync run --notifications`) following a test git repository against a test
 * simulator, its notification config and the secret files it names written into a fresh folder:
 * the start-up the agent notification tests share.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startAgent } from './agent-process.js';
import type { RunningAgent } from './agent-process.js';
import type { TestRepo } from './git.js';
import { tempDir } from './repo.js';
import type { TestSim } from './sim.js';

export interface NotifiedAgent {
  agent: RunningAgent;
  /** The notifications file the agent runs with (for `packsync notify test`). */
  notifications: string;
  /** Its state directory (`notifications.json` is there); a restart with the same one continues it. */
  stateDir: string;
  /** Starts another agent with the same source, notifications and state directory (after `agent.stop()`): a restart. */
  restart: () => Promise<RunningAgent>;
}

/** `config` is the notifications YAML; `secrets` maps file names under `secrets/` (as it names them) to their contents. */
export async function startNotifiedAgent(
  sim: TestSim,
  repo: TestRepo,
  config: string,
  secrets: Record<string, string>,
): Promise<NotifiedAgent> {
  const dir = await tempDir('packsync-notified-agent-');
  await mkdir(join(dir, 'secrets'));
  for (const [name, text] of Object.entries(secrets)) await writeFile(join(dir, 'secrets', name), `${text}\n`);
  const notifications = join(dir, 'notifications.yaml');
  await writeFile(notifications, config);
  const stateDir = await tempDir('packsync-agent-state-');
  const start = (): Promise<RunningAgent> =>
    startAgent(
      ['--source', repo.fileUrl, '--ref', 'main', '--notifications', notifications],
      { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir },
      stateDir,
    );
  return { agent: await start(), notifications, stateDir, restart: start };
}
