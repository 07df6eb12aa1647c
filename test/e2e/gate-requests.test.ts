/**
 * `promote` and `resume` while the agent holds the state lock (docs/reconcile.md: one writer): the command
 * queues a request, the running agent (the built CLI, a real process) carries it out at the start
 * of its next pass, and the command prints the outcome. Assertions on the simulator's journal and
 * packsync's state.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockDirectory } from '../../src/state/dir-lock.js';
import type { Inventory } from '../../src/state/inventory-types.js';
import { cli } from '../support/cli.js';
import { until } from '../support/poll.js';
import { gatedYaml } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';
import type { Spawned } from '../support/spawn-cli.js';

const KEY = 'Deployment/seven-zip-24-08';
let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
let repo: string;
let agent: Spawned | null = null;

beforeEach(async () => {
  sim = await startTestSimulator({ timeScale: 60 });
  stateDir = await tempDir('packsync-state-');
  env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
  repo = await tempDir('packsync-repo-');
  await writeFile(join(repo, 'all.yaml'), gatedYaml('soak: 6h'));
  expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
  expect((await sim.state()).deployments[0]).toMatchObject({ status: 'Running', currentWave: 1 });
});
afterEach(async () => {
  agent?.child.kill('SIGTERM');
  await agent?.done;
  agent = null;
  await sim.close();
});

const entry = async (): Promise<Inventory['objects'][string]> =>
  (JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory).objects[KEY]!;
const requestFiles = async (): Promise<string[]> => readdir(join(stateDir, 'requests')).catch(() => []);

/** The agent, started and holding the lock (an hour's interval: only the request wakes it). */
async function startAgent(): Promise<void> {
  agent = spawnCli(['run', '--source', repo, '--interval', '1h', '--log-level', 'silent'], env);
  const pid = agent.child.pid!;
  await until('the agent holds the lock', async () =>
    (await readFile(join(stateDir, 'lock'), 'utf8').catch(() => '')).includes(`"pid":${pid}`),
  );
}

describe('promote and resume while the agent holds the state', () => {
  it('promote is queued for the running agent, which skips the wave at once and records it; the command exits 0', async () => {
    await startAgent();
    const writes = (await sim.writes()).length;
    const r = await cli(['promote', KEY, '--reason', 'urgent fix'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Promoted Deployment\/seven-zip-24-08: wave 1\/3 → wave 2\/3/);
    expect((await sim.writes()).slice(writes)).toEqual(['POST /v1/flow/deployment/{id}/skip-wave']);
    expect((await sim.state()).deployments[0]).toMatchObject({ status: 'Running', currentWave: 2 });
    // The agent recorded it (in its journal; its snapshot at the end of the pass) with the request id.
    await until('the promote in the state', async () =>
      (await entry()).gateLog?.some((e) => e.action === 'promote' && e.request !== undefined),
    );
    expect(await requestFiles()).toEqual([]);
  });

  it('a refusal the state decides comes at once and queues nothing; the agent’s refusal is the command’s exit 1', async () => {
    await startAgent();
    const notHeld = await cli(['resume', KEY, '--reason', 'nothing to release'], env);
    expect(notHeld.code).toBe(1);
    expect(notHeld.stderr).toContain('GATE_NOT_HELD');
    expect(await requestFiles()).toEqual([]);

    // Stopped by hand in the console: only the agent's live read can tell promote it is not running.
    const id = (await sim.state()).deployments[0]!.id;
    await sim.admin('POST', `/_sim/deployments/${id}/status`, { status: 'Stopped' });
    const writes = (await sim.writes()).length;
    const stopped = await cli(['promote', KEY], env);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain('GATE_NOT_RUNNING');
    expect((await sim.writes()).slice(writes)).toEqual([]);
  });

  it('a deployment not in the state is GATE_NO_DEPLOYMENT with the closest key, lock free or held, nothing queued (regression: it was STATE_KEY)', async () => {
    const writes = (await sim.writes()).length;
    const free = await cli(['promote', 'Deployment/seven-zip-24-8'], env);
    expect(free.code).toBe(1);
    expect(free.stderr).toContain('GATE_NO_DEPLOYMENT');
    expect(free.stderr).not.toContain('STATE_KEY');
    expect(free.stderr).toContain(`did you mean "${KEY}"?`);
    // One sentence after the code, naming how to see the keys (docs review: the wording was checked, not changed).
    expect(free.stderr).toMatch(
      /^Error: GATE_NO_DEPLOYMENT: Deployment "seven-zip-24-8" is not in the state in \S+ \(did you mean "[^"]+"\?\); `packsync state list` shows every key\n$/,
    );
    const held = await lockDirectory(stateDir, () => undefined);
    try {
      for (const args of [
        ['promote', 'Deployment/nope'],
        ['resume', 'Deployment/seven-zip-24-8', '--reason', 'x'],
      ]) {
        const r = await cli(args, env);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain('GATE_NO_DEPLOYMENT');
        expect(r.stderr).not.toContain('queued');
      }
      expect(await requestFiles()).toEqual([]);
    } finally {
      await held.release();
    }
    expect((await sim.writes()).slice(writes)).toEqual([]);
    expect((await entry()).gateLog ?? []).toEqual([]);
  });

  it('a request no pass takes within --wait is withdrawn: exit 1, no call, nothing left queued', async () => {
    // A holder that never passes: this test process.
    const held = await lockDirectory(stateDir, () => undefined);
    try {
      const writes = (await sim.writes()).length;
      const r = await cli(['promote', KEY, '--wait', '1'], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('GATE_REQUEST_TIMEOUT');
      expect((await sim.writes()).slice(writes)).toEqual([]);
      expect(await requestFiles()).toEqual([]);
      expect((await entry()).gateLog ?? []).toEqual([]);
    } finally {
      await held.release();
    }
  });
});
