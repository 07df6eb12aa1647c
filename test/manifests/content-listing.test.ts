/**
 * The content digest must describe exactly what an upload sends (issue 11, "content listing
 * once"): the digest `inspectContent` computes is recomputed here from nothing but what the
 * uploader put on the wire (the finalize file list and the bytes of every chunk), over a tree with
 * nested and empty directories, symlinks to a file and to a directory, an empty file, and names
 * whose byte order differs from a locale's order. If the two walks ever disagree on a file, its
 * order, its name or its bytes, the digests differ.
 */
import { createHash } from 'node:crypto';
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContentError } from '../../src/api/content-files.js';
import type { ChunkClient } from '../../src/api/upload.js';
import { uploadContentDirectory } from '../../src/api/upload.js';
import type { UploadFileInfoViewModel } from '../../src/api/wire/index.js';
import { inspectContent } from '../../src/manifests/content.js';
import { tempDir } from '../support/repo.js';

const ID = '3c8574eb-c0f6-426f-e557-08de6eb82a5e';

/** A chunk client that keeps what was sent: bytes per file index, and the finalize list. */
function recorder(): { client: ChunkClient; bytes: Map<number, Buffer>; finalized: UploadFileInfoViewModel[] } {
  const bytes = new Map<number, Buffer>();
  const finalized: UploadFileInfoViewModel[] = [];
  const client: ChunkClient = {
    uploadContentChunk: (_id, q, chunk) => {
      const before = bytes.get(q.index) ?? Buffer.alloc(0);
      expect(q.offset).toBe(before.length);
      bytes.set(q.index, Buffer.concat([before, Buffer.from(chunk)]));
      return Promise.resolve();
    },
    finalizeContent: (_id, body) => {
      finalized.push(...body.files);
      return Promise.resolve();
    },
  };
  return { client, bytes, finalized };
}

/** The digest formula of `manifests/content.ts`, fed only with what went over the wire. */
function digestOfUpload(files: UploadFileInfoViewModel[], bytes: Map<number, Buffer>): string {
  const outer = createHash('sha256');
  files.forEach((f, index) => {
    const sent = bytes.get(index) ?? Buffer.alloc(0);
    expect(sent.length, f.fileName).toBe(f.fileSize);
    outer.update(`${f.fileName}\0${f.fileSize}\0${createHash('sha256').update(sent).digest('hex')}\n`);
  });
  return `sha256:${outer.digest('hex')}`;
}

async function repoWithContent(): Promise<{ root: string; content: string }> {
  const root = await tempDir();
  const content = join(root, 'content/tool');
  await mkdir(join(content, 'sub/nested'), { recursive: true });
  await mkdir(join(content, 'sub/empty'), { recursive: true });
  await mkdir(join(content, 'empty-dir'));
  await mkdir(join(content, 'sub-a'));
  await writeFile(join(content, 'a.txt'), 'alpha\n');
  await writeFile(join(content, 'B.txt'), 'upper case sorts before lower case byte-wise\n');
  await writeFile(join(content, '_under.txt'), 'underscore sorts between upper and lower case\n');
  await writeFile(join(content, 'é.txt'), 'non-ASCII sorts after every ASCII name\n');
  await writeFile(join(content, 'zero.dat'), '');
  await writeFile(join(content, 'Setup.exe'), Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251)));
  await writeFile(join(content, 'sub-a/x.txt'), "'-' (0x2d) sorts before '/' (0x2f)\n");
  await writeFile(join(content, 'sub/nested/deep.bin'), Buffer.alloc(37, 7));
  await symlink(join(content, 'a.txt'), join(content, 'link-file'));
  await symlink(join(content, 'sub/nested'), join(content, 'link-dir'));
  return { root, content };
}

describe('content listing: the digest describes exactly the uploaded files', () => {
  it('agrees on names, order, sizes and bytes across symlinks, nested and empty directories', async () => {
    const { root, content } = await repoWithContent();
    const check = await inspectContent(root, await realpath(root), 'content/tool');
    if (!check.ok) throw new Error(check.message);

    const sent = recorder();
    const infos = await uploadContentDirectory(sent.client, ID, content, { chunkSize: 16 });

    expect(sent.finalized).toEqual(infos);
    expect(infos.map((f) => f.fileName)).toEqual([
      'B.txt',
      'Setup.exe',
      '_under.txt',
      'a.txt',
      'link-dir/deep.bin',
      'link-file',
      'sub-a/x.txt',
      'sub/nested/deep.bin',
      'zero.dat',
      'é.txt',
    ]);
    expect(check.content.files).toBe(infos.length);
    expect(check.content.bytes).toBe(infos.reduce((n, f) => n + f.fileSize, 0));
    expect(check.content.digest).toBe(digestOfUpload(infos, sent.bytes));
  });

  it('a symlink that leaves the directory fails both the manifest check and the upload, under one rule', async () => {
    const { root, content } = await repoWithContent();
    await writeFile(join(root, 'secret.txt'), 's');
    await symlink(join(root, 'secret.txt'), join(content, 'escape'));
    const check = await inspectContent(root, await realpath(root), 'content/tool');
    expect(check).toEqual({
      ok: false,
      rule: 'content.symlink',
      message: 'content "content/tool": escape is a symlink to ../../secret.txt, outside the content directory',
    });

    const sent = recorder();
    const e: unknown = await uploadContentDirectory(sent.client, ID, content).then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ContentError);
    expect(e).toMatchObject({
      code: 'UPLOAD_INVALID_CONTENT',
      rule: 'content.symlink',
      message: 'content file escape is a symlink to ../../secret.txt, outside the content directory',
    });
    expect(sent.finalized).toEqual([]);
  });
});
