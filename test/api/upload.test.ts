import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiClient } from '../../src/api/client.js';
import type { UploadProgress } from '../../src/api/operations.js';
import { listContentFiles } from '../../src/api/content-files.js';
import { json, makeClient, problem, rejection, startServer, UUID } from './helpers.js';
import type { TestServer } from './helpers.js';
import { tempDir as freshTempDir } from '../support/temp-dir.js';

const MiB = 1024 * 1024;

let server: TestServer | undefined;
let client: ApiClient | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A temp directory removed after each test. */
async function tempDir(): Promise<string> {
  const d = await freshTempDir('packsync-upload-');
  dirs.push(d);
  return d;
}

describe('uploadContentDirectory', () => {
  it('streams sorted files in 4 MiB chunks, retries a failed chunk alone, then finalizes', async () => {
    const dir = await tempDir();
    const big = randomBytes(9 * MiB + 5);
    const nested = Buffer.from('nested content\n');
    await writeFile(join(dir, 'setup.bin'), big);
    await writeFile(join(dir, 'empty.txt'), '');
    await mkdir(join(dir, 'sub', 'dir'), { recursive: true });
    await writeFile(join(dir, 'sub', 'dir', 'nested.txt'), nested);
    await writeFile(join(dir, 'Zeta.txt'), 'Z');

    let failed = false;
    server = await startServer((req, res) => {
      if (req.path.endsWith('/finalize')) return json(res, 200, undefined);
      // The second chunk of the big file fails once.
      if (!failed && req.query.get('index') === '2' && req.query.get('chunk') === '1') {
        failed = true;
        return problem(res, 503, 'Service Unavailable');
      }
      json(res, 200, undefined);
    });
    const h = makeClient(server.url);
    client = h.client;
    const progress: UploadProgress[] = [];
    const files = await h.client.uploadContentDirectory(UUID, dir, { onProgress: (p) => progress.push(p) });

    // Byte-wise order: 'Z' (0x5a) sorts before lower case.
    const expected = [
      { fileName: 'Zeta.txt', fileSize: 1 },
      { fileName: 'empty.txt', fileSize: 0 },
      { fileName: 'setup.bin', fileSize: big.length },
      { fileName: 'sub/dir/nested.txt', fileSize: nested.length },
    ];
    expect(files).toEqual(expected);

    const chunks = server.requests.filter((r) => !r.path.endsWith('/finalize'));
    expect(chunks.every((r) => r.path === `/v1/package/content/${UUID}` && r.headers['content-type'] === 'application/octet-stream')).toBe(
      true,
    );
    expect(chunks.map((r) => r.rawQuery)).toEqual([
      'index=0&size=1&offset=0&chunk=0',
      'index=1&size=0&offset=0&chunk=0',
      `index=2&size=${4 * MiB}&offset=0&chunk=0`,
      `index=2&size=${4 * MiB}&offset=${4 * MiB}&chunk=1`,
      `index=2&size=${4 * MiB}&offset=${4 * MiB}&chunk=1`,
      `index=2&size=${MiB + 5}&offset=${8 * MiB}&chunk=2`,
      `index=3&size=${nested.length}&offset=0&chunk=0`,
    ]);
    expect(h.delays).toHaveLength(1);

    // Reassemble what the server accepted (the failed attempt's bytes are not kept).
    const accepted = chunks.filter((_r, i) => i !== 3);
    const bigParts = accepted.filter((r) => r.query.get('index') === '2').map((r) => r.body);
    expect(Buffer.compare(Buffer.concat(bigParts), big)).toBe(0);
    expect(chunks[1]!.body.length).toBe(0);
    expect(chunks[1]!.headers['content-length']).toBe('0');
    expect(accepted.at(-1)!.body.toString()).toBe(nested.toString());

    const finalize = server.requests.at(-1)!;
    expect(finalize.path).toBe(`/v1/package/content/${UUID}/finalize`);
    expect(JSON.parse(finalize.body.toString())).toEqual({ files: expected });

    expect(progress).toHaveLength(6);
    expect(progress.at(-1)).toEqual({
      packageId: UUID,
      bytesDone: big.length + nested.length + 1,
      bytesTotal: big.length + nested.length + 1,
      filesDone: 4,
      filesTotal: 4,
      currentFile: 'sub/dir/nested.txt',
    });
    expect(progress.map((p) => p.filesDone)).toEqual([1, 2, 2, 2, 3, 4]);
  });

  it('follows symlinks inside the directory and rejects ones that leave it', async () => {
    const dir = await tempDir();
    const outside = await tempDir();
    await writeFile(join(dir, 'a.txt'), 'a');
    await symlink(join(dir, 'a.txt'), join(dir, 'b-link.txt'));
    expect((await listContentFiles(dir)).map((f) => [f.relPath, f.size])).toEqual([
      ['a.txt', 1],
      ['b-link.txt', 1],
    ]);
    await writeFile(join(outside, 'secret'), 's');
    await symlink(join(outside, 'secret'), join(dir, 'escape'));
    const e = await rejection(listContentFiles(dir));
    expect(e.code).toBe('UPLOAD_INVALID_CONTENT');
    expect(e.message).toMatch(/^content file escape is a symlink to .*secret, outside the content directory$/);
  });

  it('aborts between chunks when the signal fires, without finalizing', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.bin'), randomBytes(10));
    await writeFile(join(dir, 'b.bin'), randomBytes(10));
    const ac = new AbortController();
    server = await startServer((_req, res) => json(res, 200, undefined));
    const h = makeClient(server.url);
    client = h.client;
    const e = await rejection(
      h.client.uploadContentDirectory(UUID, dir, { chunkSize: 4, signal: ac.signal, onProgress: () => ac.abort() }),
    );
    expect(e.code).toBe('API_ABORTED');
    expect(server.requests).toHaveLength(1);
  });
});
