/**
 * Remote state on Azure Blob Storage (`--state-url azblob://CONTAINER/PREFIX`), against Azurite, with
 * the built CLI as real processes: apply records into the container (nothing in the local state
 * directory), a second writer is refused while the lease is held, a SIGKILLed apply is followed by a
 * clean one with no duplicate in the service, a broken lease stops writes with STATE_LEASE_LOST,
 * and the connection string never appears in any output.
 */
import { readdir } from 'node:fs/promises';
import { BlobServiceClient } from '@azure/storage-blob';
import type { ContainerClient } from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAzurite } from '../support/azurite.js';
import type { Azurite } from '../support/azurite.js';
import { STANDARD_KEYS, writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { finishAdvancing, spawnCli } from '../support/spawn-cli.js';
import type { Spawned } from '../support/spawn-cli.js';
import { duplicates } from '../reliability/support/state.js';

let azurite: Azurite;
let sim: TestSim;
let repo: string;
let container: ContainerClient;
const outputs: string[] = [];

beforeAll(async () => {
  azurite = await startAzurite();
  sim = await startTestSimulator({ timeScale: 1, latencyMs: 20 });
  repo = await writeRepo();
  container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient('packsync-state');
}, 60_000);
afterAll(async () => {
  await sim?.close();
  await azurite?.stop();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function envFor(prefix: string): Promise<Record<string, string>> {
  return {
    PACKSYNC_API_URL: sim.url,
    PACKSYNC_API_KEY: sim.key,
    PACKSYNC_STATE_URL: `azblob://packsync-state/${prefix}`,
    AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString,
    PACKSYNC_STATE_DIR: await tempDir('packsync-local-'),
  };
}

function run(args: string[], env: Record<string, string>): Spawned {
  const p = spawnCli(args, env);
  void p.done.then((r) => outputs.push(r.stdout, r.stderr));
  return p;
}

const finish = (p: Spawned): ReturnType<typeof finishAdvancing> => finishAdvancing(p, sim);

const journal = (prefix: string) => container.getAppendBlobClient(`${prefix}/journal.jsonl`);
const blobText = async (name: string): Promise<string> => (await container.getBlobClient(name).downloadToBuffer()).toString('utf8');

/** Starts an apply and returns once it holds the lease and has appended its first intent. */
async function startApply(prefix: string, env: Record<string, string>): Promise<Spawned> {
  const p = run(['apply', '--auto-approve', repo, '--log-level', 'silent'], env);
  for (let i = 0; i < 600; i++) {
    const props = await journal(prefix)
      .getProperties()
      .catch(() => null);
    if (props?.leaseState === 'leased' && props.metadata?.packsync_pid === String(p.child.pid) && (props.contentLength ?? 0) > 0) return p;
    await sleep(25);
  }
  p.child.kill('SIGKILL');
  throw new Error(`apply never wrote remote state: ${(await p.done).stderr}`);
}

describe('remote state (azblob, Azurite)', () => {
  it('applies into the container, refuses a second writer, releases the lease, and plans from it', async () => {
    await sim.admin('POST', '/_sim/reset');
    const env = await envFor('team-a');
    const first = await startApply('team-a', env);
    const second = await run(['apply', '--auto-approve', repo, '--log-level', 'debug'], env).done;
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`STATE_LOCKED: azblob://packsync-state/team-a is locked by pid ${first.child.pid} on host`);
    const done = await finish(first);
    expect(done.code, done.stderr).toBe(0);

    const props = await journal('team-a').getProperties();
    expect(props.leaseState).toBe('available');
    // Compacted at the end of the apply: the snapshot holds everything, the journal is empty.
    expect(props.contentLength).toBe(0);
    const snap = JSON.parse(await blobText('team-a/inventory.json')) as {
      version: number;
      objects: Record<string, { id: string }>;
      intents: object;
    };
    expect(snap.version).toBe(1);
    expect(Object.keys(snap.objects).sort()).toEqual(STANDARD_KEYS);
    expect(snap.intents).toEqual({});
    // Nothing of the state went to the local directory.
    expect(await readdir(env.PACKSYNC_STATE_DIR!)).toEqual([]);

    const plan = await run(['plan', repo, '--detailed-exitcode'], env).done;
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);

    // The offline state commands read and edit the remote state too (mv under the blob lease).
    const offline = { PACKSYNC_STATE_URL: env.PACKSYNC_STATE_URL!, AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString };
    const list = await run(['state', 'list', '--output', 'json'], offline).done;
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { objects: { key: string }[] }).objects.map((o) => o.key)).toEqual(Object.keys(snap.objects).sort());
    const mv = await run(['state', 'mv', 'Deployment/pwsh-7-4-6', 'Deployment/powershell'], offline).done;
    expect(mv.code, mv.stderr).toBe(0);
    expect(Object.keys((JSON.parse(await blobText('team-a/inventory.json')) as typeof snap).objects)).toContain('Deployment/powershell');
    expect((await journal('team-a').getProperties()).leaseState).toBe('available');
  }, 120_000);

  it('after SIGKILL during apply, the next apply takes over the dead lease and converges with no duplicate', async () => {
    await sim.admin('POST', '/_sim/reset');
    const env = await envFor('crash');
    const p = await startApply('crash', env);
    p.child.kill('SIGKILL');
    expect((await p.done).signal).toBe('SIGKILL');
    expect((await journal('crash').getProperties()).leaseState).toBe('leased');

    const next = await finish(run(['apply', '--auto-approve', repo, '--log-level', 'silent'], env));
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`taking over the lock of azblob://packsync-state/crash from pid ${p.child.pid}`);
    const state = await sim.state();
    expect(duplicates(state)).toEqual([]);
    expect(state.flows.filter((f) => !f.deleted)).toHaveLength(2);
    expect(state.deployments).toHaveLength(2);
    // Exactly one create per object in the service's journal, across both runs.
    const writes = await sim.writes();
    expect(writes.filter((w) => w === 'POST /v1/flow/create')).toHaveLength(2);
    expect(writes.filter((w) => w === 'POST /v1/flow/{id}/add-deployment')).toHaveLength(2);
    expect(writes.filter((w) => w === 'POST /v1/app/import/{id}')).toHaveLength(2);
    const again = await run(['plan', repo, '--detailed-exitcode'], env).done;
    expect(again.code, again.stdout).toBe(0);
  }, 120_000);

  it('stops writing when the lease is lost, with STATE_LEASE_LOST, and a later apply converges cleanly', async () => {
    await sim.admin('POST', '/_sim/reset');
    const env = await envFor('lost');
    const p = await startApply('lost', env);
    // Someone breaks the lease (an operator, or a lease that expired and was taken).
    await journal('lost').getBlobLeaseClient().breakLease(0);
    const lengthAtBreak = (await journal('lost').getProperties()).contentLength;
    const end = await finish(p);
    expect(end.code).toBe(1);
    expect(end.stderr).toContain('STATE_LEASE_LOST');
    // Not one record was appended after the break.
    expect((await journal('lost').getProperties()).contentLength).toBe(lengthAtBreak);

    const next = await finish(run(['apply', '--auto-approve', repo, '--log-level', 'silent'], env));
    expect(next.code, next.stderr).toBe(0);
    expect(duplicates(await sim.state())).toEqual([]);
  }, 120_000);

  it('a missing container is an error for state, export and promote, never an empty state (regression: a mistyped --state-url listed nothing and exported every owned object again)', async () => {
    const typo = {
      PACKSYNC_API_URL: sim.url,
      PACKSYNC_API_KEY: sim.key,
      PACKSYNC_STATE_URL: 'azblob://packsync-stat/team-a',
      AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString,
      PACKSYNC_STATE_DIR: await tempDir('packsync-local-'),
    };
    const service = BlobServiceClient.fromConnectionString(azurite.connectionString);
    const out = await tempDir('packsync-export-');
    for (const args of [
      ['state', 'list'],
      ['state', 'rm', 'Flow/pwsh'],
      ['export', '--out', `${out}/x`],
      ['promote', 'Deployment/pwsh-7-4-6', '--reason', 'typo'],
    ]) {
      const r = await run(args, typo).done;
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.stderr).toContain('the container "packsync-stat" does not exist');
    }
    expect(await readdir(out)).toEqual([]);
    expect(await service.getContainerClient('packsync-stat').exists()).toBe(false);
    // plan reads it as a new state and says so; apply makes the new state and says that too.
    const plan = await run(['plan', repo], typo).done;
    expect(plan.stderr).toContain('does not exist yet: read as a new, empty state');
    const apply = await run(['apply', repo, '--auto-approve'], typo).done;
    expect(apply.code).toBe(1); // the account holds what team-a owns: an empty state never adopts it
    // A JSON log line under the default (piped) log format: the quotes are escaped there.
    expect(apply.stderr).toMatch(/created the container \\?"packsync-stat\\?"/);
  }, 120_000);

  // Regression (issue 20.9, operator review 3 row 20): a mistyped prefix read as a valid empty state, silently.
  it('a mistyped prefix: state list says the state is empty and names the states the container holds', async () => {
    const r = await run(['state', 'list'], {
      PACKSYNC_STATE_URL: 'azblob://packsync-state/team-aa',
      AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString,
    }).done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('The state in azblob://packsync-state/team-aa is empty');
    expect(r.stderr).toMatch(/Hint: the container holds other states: .*azblob:\/\/packsync-state\/team-a\b/);
  }, 60_000);

  it('a wrong account key says the credentials were refused, and never prints them', async () => {
    const wrongKey = Buffer.from('not the account key of devstoreaccount1, 64 bytes long at least!!').toString('base64');
    const r = await run(['state', 'list'], {
      PACKSYNC_STATE_URL: 'azblob://packsync-state/team-a',
      AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString.replace(azurite.accountKey, wrongKey),
    }).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/STATE_REMOTE_ERROR: .*403.*refused the credentials; check AZURE_STORAGE_CONNECTION_STRING/);
    expect(r.stdout + r.stderr).not.toContain(wrongKey);
  }, 60_000);

  it('never prints the connection string or its account key', () => {
    expect(outputs.length).toBeGreaterThan(0);
    for (const text of outputs) {
      expect(text).not.toContain(azurite.accountKey);
      expect(text).not.toContain('AccountKey=');
    }
  });
});
