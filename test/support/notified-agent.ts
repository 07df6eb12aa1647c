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
import { manifestRepo } from './manifests.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';
import { startTestSimulator } from './sim.js';
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

/** A webhook provider `hook` (its URL in `secrets/hook-url`) that gets every error-severity event: failures and their Recovered. */
export const ERROR_HOOK_CONFIG =
  'providers:\n  - name: hook\n    type: webhook\n    addressFile: secrets/hook-url\nalerts:\n  - provider: hook\n    severity: error\n';

export interface HookedAgent extends NotifiedAgent {
  sim: TestSim;
  rx: Receiver;
  repo: TestRepo;
  /** Stops the agent, the receiver and the simulator. */
  close: () => Promise<void>;
}

/**
 * A simulator, a receiver, a manifest repository and an agent sending error events to `${rx.url}/hook`
 * (ERROR_HOOK_CONFIG), returned after its first apply: the start-up of the failure and Recovered tests.
 */
export async function startHookedAgent(): Promise<HookedAgent> {
  const sim = await startTestSimulator();
  const rx = await startReceiver();
  const repo = await manifestRepo();
  const n = await startNotifiedAgent(sim, repo, ERROR_HOOK_CONFIG, { 'hook-url': `${rx.url}/hook` });
  await n.agent.until('first apply', (s) => s.lastAppliedRevision !== null);
  const close = async (): Promise<void> => {
    await n.agent.stop();
    await rx.close();
    await sim.close();
  };
  return { ...n, sim, rx, repo, close };
}
