/**
 * The request queue's contract, for both places a state lives: a directory and Azure Blob Storage
 * (against Azurite). Exactly one of a pass's claim and a command's withdraw wins; a request a dead
 * holder claimed is offered again; results are read once.
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import type { ContainerClient } from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobRequestQueue } from '../../src/state/azblob-requests.js';
import { DirectoryRequestQueue } from '../../src/state/request-queue.js';
import type { RequestQueue } from '../../src/state/request-queue.js';
import { startAzurite } from '../support/azurite.js';
import type { Azurite } from '../support/azurite.js';
import { tempDir } from '../support/repo.js';

const req = (id: string) => ({ id, command: 'promote' as const, key: 'Deployment/a', at: '2026-11-23T00:00:00Z', pid: 1 });

let azurite: Azurite;
let container: ContainerClient;
let prefixes = 0;
beforeAll(async () => {
  azurite = await startAzurite();
  container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient('packsync-requests');
  await container.createIfNotExists();
}, 60_000);
afterAll(async () => {
  await azurite?.stop();
});

const blobNames = async (prefix: string): Promise<string[]> => {
  const names: string[] = [];
  for await (const b of container.listBlobsFlat({ prefix })) names.push(b.name.slice(prefix.length));
  return names.sort();
};

const QUEUES: [string, () => Promise<RequestQueue>][] = [
  ['directory', async () => new DirectoryRequestQueue(await tempDir('packsync-requests-'))],
  ['azure blob', () => Promise.resolve(new BlobRequestQueue(() => Promise.resolve(container), `team/p${++prefixes}`))],
];

describe.each(QUEUES)('request queue (%s)', (_where, make) => {
  it('a request claimed by a holder that died is offered again to the next one (regression: it stayed claimed forever)', async () => {
    const q = await make();
    await q.put(req('2026-a'));
    await q.put(req('2026-b'));
    expect(await q.pending()).toEqual(['2026-a', '2026-b']);
    expect(await q.claim('2026-a')).toMatchObject({ id: '2026-a' });
    // The claiming process dies here: no outcome is written.
    expect(await q.pending()).toEqual(['2026-a', '2026-b']);
    expect(await q.claim('2026-a')).toMatchObject({ id: '2026-a' });
    expect(await q.withdraw('2026-a')).toBe(false);
    await q.finish('2026-a', { ok: true, lines: ['done'] });
    expect(await q.pending()).toEqual(['2026-b']);
    expect(await q.outcome('2026-a')).toEqual({ ok: true, lines: ['done'] });
    expect(await q.outcome('2026-a')).toBeNull();
  });

  it('withdraw and claim: exactly one wins; a withdrawn request is never claimed', async () => {
    const q = await make();
    await q.put(req('2026-c'));
    expect(await q.withdraw('2026-c')).toBe(true);
    expect(await q.claim('2026-c')).toBeNull();
    expect(await q.pending()).toEqual([]);
    await q.put(req('2026-d'));
    expect(await q.claim('2026-d')).not.toBeNull();
    expect(await q.withdraw('2026-d')).toBe(false);
    expect(await q.pending()).toEqual(['2026-d']);
  });

  it('a claim and a withdraw at the same moment: one of them wins, every time', async () => {
    const q = await make();
    for (let i = 0; i < 20; i++) {
      const id = `2026-race-${String(i).padStart(2, '0')}`;
      await q.put(req(id));
      const [claimed, withdrawn] = await Promise.all([q.claim(id), q.withdraw(id)]);
      expect([claimed !== null, withdrawn], id).toSatisfy(([c, w]: boolean[]) => c !== w);
      if (claimed) await q.finish(id, { ok: true, lines: [] });
    }
    expect(await q.pending()).toEqual([]);
  });
});

describe('request queue (directory)', () => {
  it('ignores temporary files and results when listing', async () => {
    const dir = await tempDir('packsync-requests-');
    const q = new DirectoryRequestQueue(dir);
    await q.put(req('2026-e'));
    await writeFile(join(dir, 'requests', '2026-e.json.tmp-1-x'), '{');
    await writeFile(join(dir, 'requests', '2026-f.result.json'), '{}');
    expect(await q.pending()).toEqual(['2026-e']);
    expect((await readdir(join(dir, 'requests'))).length).toBe(3);
  });
});

describe('request queue (azure blob)', () => {
  it('keeps its blobs under the state prefix and leaves none once a request is answered and read', async () => {
    const q = new BlobRequestQueue(() => Promise.resolve(container), 'tenant-x/prod');
    await q.put(req('2026-g'));
    expect(await blobNames('tenant-x/prod/requests/')).toEqual(['2026-g.json']);
    await q.claim('2026-g');
    expect(await blobNames('tenant-x/prod/requests/')).toEqual(['2026-g.claim', '2026-g.json']);
    await q.finish('2026-g', { ok: false, code: 'GATE_HELD', lines: ['held'] });
    expect(await blobNames('tenant-x/prod/requests/')).toEqual(['2026-g.result.json']);
    expect(await q.outcome('2026-g')).toEqual({ ok: false, code: 'GATE_HELD', lines: ['held'] });
    expect(await blobNames('tenant-x/')).toEqual([]);
  });

  it('a request its command withdrew but did not delete (it died) is cleaned up by the next claim', async () => {
    const q = new BlobRequestQueue(() => Promise.resolve(container), 'died');
    await q.put(req('2026-h'));
    // What withdraw writes first; the command dies before deleting the request.
    await container.getBlockBlobClient('died/requests/2026-h.claim').upload('withdrawn', 9);
    expect(await q.pending()).toEqual(['2026-h']);
    expect(await q.claim('2026-h')).toBeNull();
    expect(await q.pending()).toEqual([]);
    expect(await blobNames('died/')).toEqual([]);
  });
});
