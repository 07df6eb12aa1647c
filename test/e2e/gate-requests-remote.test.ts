/**
 * `promote` while the agent holds a remote state's lease (`--state-url azblob://…`, against
 * Azurite): the command queues its request as blobs beside the state, the running agent (the built
 * CLI, a real process) carries it out, and the command exits 0 with the wave skipped once. A request
 * no pass takes is withdrawn with nothing left behind. Assertions on the simulator's journal, the
 * remote state and the container's blobs.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import type { ContainerClient } from '@azure/storage-blob';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openState } from '../../src/state/open-state.js';
import { startAzurite } from '../support/azurite.js';
import type { Azurite } from '../support/azurite.js';
import { cli } from '../support/cli.js';
import { gatedYaml } from '../support/manifests.js';
import { until } from '../support/poll.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';
import type { Spawned } from '../support/spawn-cli.js';

const KEY = 'Deployment/seven-zip-24-08';
let azurite: Azurite;
let container: ContainerClient;
let sim: TestSim;
let agent: Spawned | null = null;

beforeAll(async () => {
  azurite = await startAzurite();
  container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient('packsync-state');
}, 60_000);
afterAll(async () => {
  await azurite?.stop();
});
afterEach(async () => {
  agent?.child.kill('SIGTERM');
  await agent?.done;
  agent = null;
  await sim?.close();
});

/** A gated deployment applied into remote state under `prefix`; returns the env that reaches it. */
async function setUp(prefix: string): Promise<{ env: Record<string, string>; repo: string; localDir: string }> {
  sim = await startTestSimulator({ timeScale: 60 });
  const localDir = await tempDir('packsync-local-');
  const env = {
    PACKSYNC_API_URL: sim.url,
    PACKSYNC_API_KEY: sim.key,
    PACKSYNC_STATE_URL: `azblob://packsync-state/${prefix}`,
    AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString,
    PACKSYNC_STATE_DIR: localDir,
  };
  const repo = await tempDir('packsync-repo-');
  await writeFile(join(repo, 'all.yaml'), gatedYaml('soak: 6h'));
  const applied = await cli(['apply', '--auto-approve', repo], env);
  expect(applied.code, applied.stderr).toBe(0);
  expect((await sim.state()).deployments[0]).toMatchObject({ status: 'Running', currentWave: 1 });
  return { env, repo, localDir };
}

const leaseHolder = async (prefix: string): Promise<string | undefined> => {
  const props = await container
    .getAppendBlobClient(`${prefix}/journal.jsonl`)
    .getProperties()
    .catch(() => null);
  return props?.leaseState === 'leased' ? props.metadata?.packsync_pid : undefined;
};

const requestBlobs = async (prefix: string): Promise<string[]> => {
  const names: string[] = [];
  for await (const b of container.listBlobsFlat({ prefix: `${prefix}/requests/` })) names.push(b.name);
  return names;
};

describe('promote while the agent holds a remote state', () => {
  it('is queued in the container, carried out by the agent once, and the command exits 0', async () => {
    const { env, repo, localDir } = await setUp('agent-promote');
    agent = spawnCli(['run', '--source', repo, '--interval', '1h', '--log-level', 'silent'], env);
    const pid = String(agent.child.pid);
    await until('the agent holds the lease', async () => (await leaseHolder('agent-promote')) === pid);
    const writes = (await sim.writes()).length;

    const r = await cli(['promote', KEY, '--reason', 'urgent fix'], env);
    expect(r.code, r.stderr).toBe(0);
    expect((await sim.writes()).slice(writes)).toEqual(['POST /v1/flow/deployment/{id}/skip-wave']);
    expect((await sim.state()).deployments[0]).toMatchObject({ status: 'Running', currentWave: 2 });
    expect(await requestBlobs('agent-promote')).toEqual([]);
    // Recorded by the agent in the remote state, with the request's id.
    const state = openState({ stateDir: localDir, stateUrl: env.PACKSYNC_STATE_URL, env, warn: () => undefined });
    const entry = (await state.read()).objects[KEY]!;
    expect(entry.gateLog?.filter((e) => e.action === 'promote').map((e) => e.request !== undefined)).toEqual([true]);
    // The agent still holds the lease: the command never took it.
    expect(await leaseHolder('agent-promote')).toBe(pid);
  }, 120_000);

  it('a request no pass takes within --wait is withdrawn: exit 1, no call, no blob left', async () => {
    const { env, localDir } = await setUp('no-pass');
    // A holder that never passes: this test process holds the lease.
    const holder = openState({ stateDir: localDir, stateUrl: env.PACKSYNC_STATE_URL, env, warn: () => undefined });
    await holder.lock();
    try {
      const writes = (await sim.writes()).length;
      const r = await cli(['promote', KEY, '--wait', '2'], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('GATE_REQUEST_TIMEOUT');
      expect((await sim.writes()).slice(writes)).toEqual([]);
      expect(await requestBlobs('no-pass')).toEqual([]);
      expect((await holder.read()).objects[KEY]?.gateLog ?? []).toEqual([]);
    } finally {
      await holder.close();
    }
  }, 60_000);
});
