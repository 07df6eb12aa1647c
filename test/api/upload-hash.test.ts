/**
 * A large upload hashes on a worker thread that reads the buffers the requests send (hashing on
 * the sending thread held the event loop and halved the upload rate: docs/performance.md "upload").
 * What must hold: the same digests as hashing here, files and empty files in order, each buffer's
 * bytes unchanged until its request answered and its hash finished, and a changed file refused.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uploadContentDirectory } from '../../src/api/upload.js';
import type { ChunkClient } from '../../src/api/upload.js';
import { chunkHasher, WORKER_HASH_MIN_BYTES } from '../../src/api/upload-hash.js';
import { digestContentDir } from '../../src/manifests/content.js';
import { tempDir } from '../support/temp-dir.js';

const CHUNK = 4 * 1024 * 1024;
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Copies each body when its answer is sent, as a socket would; records the files' bytes by index. */
function recordingClient(): ChunkClient & { files: Map<number, Buffer[]>; finalized: number } {
  const out = {
    files: new Map<number, Buffer[]>(),
    finalized: 0,
    uploadContentChunk: async (_id: string, meta: { index: number }, body: Uint8Array): Promise<void> => {
      for (let i = 0; i < 2; i++) await tick();
      out.files.set(meta.index, [...(out.files.get(meta.index) ?? []), Buffer.from(body)]);
    },
    finalizeContent: (): Promise<void> => {
      out.finalized++;
      return Promise.resolve();
    },
  };
  return out;
}

async function hashAll(thread: 'this' | 'worker', parts: Buffer[][]): Promise<string[]> {
  const hasher = chunkHasher(CHUNK, thread === 'worker' ? WORKER_HASH_MIN_BYTES : 1);
  // One core: a large upload hashes here too, by design (a second thread would only compete).
  expect(hasher.thread).toBe(availableParallelism() < 2 ? 'this' : thread);
  try {
    const digests: string[] = [];
    for (const file of parts) {
      for (const [i, part] of file.entries()) {
        const slot = i % 2 === 0 ? 0 : 1;
        part.copy(hasher.bufs[slot]);
        await hasher.update(slot, part.length);
      }
      digests.push(await hasher.digest());
    }
    return digests;
  } finally {
    await hasher.close();
  }
}

describe('upload hashing', () => {
  it('the worker answers the same digests as this thread, an empty file included', async () => {
    const parts = [[randomBytes(CHUNK), randomBytes(17)], [], [randomBytes(1)]];
    expect(await hashAll('worker', parts)).toEqual(await hashAll('this', parts));
  });

  it('a large upload sends every byte in order and digests what it sent, on the worker', async () => {
    const dir = await tempDir('packsync-upload-hash-');
    const big = randomBytes(WORKER_HASH_MIN_BYTES + CHUNK + 5);
    const small = randomBytes(3000);
    await writeFile(join(dir, 'a-setup.bin'), big);
    await writeFile(join(dir, 'b-empty.txt'), '');
    await writeFile(join(dir, 'c-config.json'), small);
    const { digest } = await digestContentDir(dir);
    const client = recordingClient();
    await uploadContentDirectory(client, 'id', dir, { chunkSize: CHUNK, expectDigest: digest });
    expect(Buffer.concat(client.files.get(0)!).equals(big)).toBe(true);
    expect(Buffer.concat(client.files.get(1)!)).toHaveLength(0);
    expect(Buffer.concat(client.files.get(2)!).equals(small)).toBe(true);
    expect(client.finalized).toBe(1);
  });

  it('a large upload whose bytes differ from the plan finalizes nothing', async () => {
    const dir = await tempDir('packsync-upload-hash-');
    await writeFile(join(dir, 'setup.bin'), randomBytes(WORKER_HASH_MIN_BYTES));
    const { digest } = await digestContentDir(dir);
    await writeFile(join(dir, 'setup.bin'), randomBytes(WORKER_HASH_MIN_BYTES));
    const client = recordingClient();
    await expect(uploadContentDirectory(client, 'id', dir, { chunkSize: CHUNK, expectDigest: digest })).rejects.toThrow(
      'changed since the plan was made',
    );
    expect(client.finalized).toBe(0);
  });
});
