/**
 * Chunked upload of a content directory (docs/api-model.md, as `Publish-RobopackPackage.ps1` does it):
 * the files of `listContentFiles` (the same listing the manifest digest uses), `index` = position
 * in that order, each file streamed from disk in `chunkSize` pieces through one reused buffer, then
 * `finalize` with the file list.
 *
 * A chunk is idempotent (same index, offset and bytes rewrite the same range), so the transport
 * repeats a failed chunk by itself; nothing before it is sent again.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { ContentError, digestLine, listContentFiles } from './content-files.js';
import type { ContentFile } from './content-files.js';
import { ApiError } from './errors.js';
import type { PacksyncApi, UploadDirectoryOptions } from './operations.js';
import type { ChunkHasher } from './upload-hash.js';
import { chunkHasher } from './upload-hash.js';
import type { UploadFileInfoViewModel, Uuid } from './wire/index.js';

/** 4 MiB, the chunk size public clients use. */
export const DEFAULT_CHUNK_SIZE = 4 * 1024 * 1024;

/** Reads exactly `length` bytes at `position`, or fails: the file must not shrink under us. */
async function readFully(fh: FileHandle, buf: Buffer, length: number, position: number, relPath: string): Promise<void> {
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, position + got);
    if (bytesRead === 0) throw new ContentError('content.changed', `${relPath} changed while it was uploaded`);
    got += bytesRead;
  }
}

export type ChunkClient = Pick<PacksyncApi, 'uploadContentChunk' | 'finalizeContent'>;

interface FileChunks {
  client: ChunkClient;
  id: Uuid;
  index: number;
  fh: FileHandle;
  size: number;
  relPath: string;
  chunkSize: number;
  /** Owns the two buffers; hashes exactly the bytes sent, from the buffer that is sent. */
  hasher: ChunkHasher;
  callOpts: { signal?: AbortSignal };
}

/**
 * One file's chunks, in order and one request at a time, with the next chunk read (and hashed)
 * while the previous one is on the wire. A buffer is refilled only after its request answered and
 * its hash finished.
 */
async function sendChunks(c: FileChunks, sentOne: (length: number, last: boolean) => void): Promise<void> {
  let inFlight: Promise<void> | undefined;
  const hashed: [Promise<void>, Promise<void>] = [Promise.resolve(), Promise.resolve()];
  try {
    for (let chunk = 0, offset = 0; offset < c.size; chunk++) {
      const length = Math.min(c.chunkSize, c.size - offset);
      const slot = chunk % 2 === 0 ? 0 : 1;
      const buf = c.hasher.bufs[slot];
      await hashed[slot];
      await readFully(c.fh, buf, length, offset, c.relPath);
      hashed[slot] = c.hasher.update(slot, length);
      // Awaited before the buffer is refilled or below; until then a failure must not count as unhandled.
      hashed[slot].catch(() => undefined);
      await inFlight;
      const meta = { index: c.index, size: length, offset, chunk };
      const last = offset + length >= c.size;
      const request = c.client.uploadContentChunk(c.id, meta, buf.subarray(0, length), c.callOpts).then(() => sentOne(length, last));
      request.catch(() => undefined);
      inFlight = request;
      offset += length;
    }
    await inFlight;
    await Promise.all(hashed);
  } catch (e) {
    // Never leave a request or a hash running past the file's close (the caller closes it).
    await Promise.allSettled([inFlight, ...hashed]);
    throw e;
  }
}

/** Uploads every file below `dir`, then finalizes; returns the file list sent to finalize. */
export async function uploadContentDirectory(
  client: ChunkClient,
  id: Uuid,
  dir: string,
  opts: UploadDirectoryOptions = {},
): Promise<UploadFileInfoViewModel[]> {
  const chunkSize = opts.chunkSize ?? DEFAULT_CHUNK_SIZE;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError('chunkSize must be a positive whole number');
  const callOpts = opts.signal ? { signal: opts.signal } : {};
  const files = await listContentFiles(dir);
  const infos: UploadFileInfoViewModel[] = files.map((f) => ({ fileName: f.relPath, fileSize: f.size }));
  const bytesTotal = files.reduce((n, f) => n + f.size, 0);
  const largest = files.reduce((n, f) => Math.max(n, f.size), 0);
  // Two buffers for the whole upload, each never larger than a chunk or than the largest file: the
  // next chunk is read and hashed while the previous one is on the wire.
  const hasher = chunkHasher(Math.max(1, Math.min(chunkSize, largest)), bytesTotal);
  try {
    return await sendFiles({ client, id, dir, opts, files, infos, bytesTotal, hasher, callOpts, chunkSize });
  } finally {
    await hasher.close();
  }
}

interface Upload {
  client: ChunkClient;
  id: Uuid;
  dir: string;
  opts: UploadDirectoryOptions;
  files: ContentFile[];
  infos: UploadFileInfoViewModel[];
  bytesTotal: number;
  hasher: ChunkHasher;
  callOpts: { signal?: AbortSignal };
  chunkSize: number;
}

/** Sends every file's chunks, checks the digest of what was sent against the plan's, then finalizes. */
async function sendFiles(u: Upload): Promise<UploadFileInfoViewModel[]> {
  const { client, id, opts, files, callOpts } = u;
  let bytesDone = 0;
  const progress = (filesDone: number, currentFile: string | null): void => {
    opts.onProgress?.({ packageId: id, bytesDone, bytesTotal: u.bytesTotal, filesDone, filesTotal: files.length, currentFile });
  };
  const outer = createHash('sha256');
  for (const [index, f] of files.entries()) {
    if (opts.signal?.aborted)
      throw new ApiError('API_ABORTED', 'uploadContentDirectory: aborted', {
        operation: 'uploadContentDirectory',
        cause: opts.signal.reason,
      });
    const fh = await open(f.absPath, 'r');
    try {
      const size = (await fh.stat()).size;
      if (size !== f.size) throw new ContentError('content.changed', `${f.relPath} changed while it was uploaded`);
      if (size === 0) {
        await client.uploadContentChunk(id, { index, size: 0, offset: 0, chunk: 0 }, new Uint8Array(0), callOpts);
        progress(index + 1, f.relPath);
      } else {
        const chunks = { client, id, index, fh, size, relPath: f.relPath, chunkSize: u.chunkSize, hasher: u.hasher, callOpts };
        await sendChunks(chunks, (length, last) => {
          bytesDone += length;
          progress(last ? index + 1 : index, f.relPath);
        });
      }
      outer.update(digestLine(f.relPath, size, await u.hasher.digest()));
    } finally {
      await fh.close();
    }
  }
  checkSentDigest(u, `sha256:${outer.digest('hex')}`);
  await client.finalizeContent(id, { files: u.infos }, callOpts);
  return u.infos;
}

/** Nothing is finalized when the bytes sent are not the bytes the plan was made from. */
function checkSentDigest(u: Upload, digest: string): void {
  const { expectDigest } = u.opts;
  if (expectDigest !== undefined && digest !== expectDigest) {
    throw new ContentError(
      'content.changed',
      `changed since the plan was made`,
      `content ${u.dir} changed since the plan was made (planned ${expectDigest.slice(0, 19)}…, on disk ${digest.slice(0, 19)}…); nothing was finalized: run packsync plan again and review the change`,
    );
  }
}
