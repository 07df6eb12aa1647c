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
import type { Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { ContentError, digestLine, listContentFiles } from './content-files.js';
import { ApiError } from './errors.js';
import type { PacksyncApi, UploadDirectoryOptions } from './operations.js';
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
  bufs: [Buffer, Buffer];
  /** The digest of exactly the bytes sent (hashed from the buffer that is sent, before it is sent). */
  sent: Hash;
  callOpts: { signal?: AbortSignal };
}

/**
 * One file's chunks, in order and one request at a time, with the next chunk read and hashed while
 * the previous one is on the wire (hashing 1 GiB costs seconds of CPU that otherwise added to the
 * transfer: docs/performance.md "upload"). A buffer is refilled only after its request answered.
 */
async function sendChunks(c: FileChunks, sentOne: (length: number, last: boolean) => void): Promise<void> {
  let inFlight: Promise<void> | undefined;
  try {
    for (let chunk = 0, offset = 0; offset < c.size; chunk++) {
      const length = Math.min(c.chunkSize, c.size - offset);
      const buf = c.bufs[chunk % 2]!;
      await readFully(c.fh, buf, length, offset, c.relPath);
      c.sent.update(buf.subarray(0, length));
      await inFlight;
      const meta = { index: c.index, size: length, offset, chunk };
      const last = offset + length >= c.size;
      const request = c.client.uploadContentChunk(c.id, meta, buf.subarray(0, length), c.callOpts).then(() => sentOne(length, last));
      // Awaited at the next chunk or below; until then a failure must not count as unhandled.
      request.catch(() => undefined);
      inFlight = request;
      offset += length;
    }
    await inFlight;
  } catch (e) {
    // Never leave a request running past the file's close (the caller closes it).
    await inFlight?.catch(() => undefined);
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
  const bufSize = Math.min(chunkSize, largest);
  const bufs: [Buffer, Buffer] = [Buffer.allocUnsafe(bufSize), Buffer.allocUnsafe(bufSize)];
  let bytesDone = 0;
  const progress = (filesDone: number, currentFile: string | null): void => {
    opts.onProgress?.({ packageId: id, bytesDone, bytesTotal, filesDone, filesTotal: files.length, currentFile });
  };

  const outer = createHash('sha256');
  for (const [index, f] of files.entries()) {
    if (opts.signal?.aborted)
      throw new ApiError('API_ABORTED', 'uploadContentDirectory: aborted', {
        operation: 'uploadContentDirectory',
        cause: opts.signal.reason,
      });
    const fh = await open(f.absPath, 'r');
    const sent = createHash('sha256');
    try {
      const size = (await fh.stat()).size;
      if (size !== f.size) throw new ContentError('content.changed', `${f.relPath} changed while it was uploaded`);
      if (size === 0) {
        await client.uploadContentChunk(id, { index, size: 0, offset: 0, chunk: 0 }, new Uint8Array(0), callOpts);
        progress(index + 1, f.relPath);
        outer.update(digestLine(f.relPath, 0, sent.digest('hex')));
        continue;
      }
      await sendChunks({ client, id, index, fh, size, relPath: f.relPath, chunkSize, bufs, sent, callOpts }, (length, last) => {
        bytesDone += length;
        progress(last ? index + 1 : index, f.relPath);
      });
      outer.update(digestLine(f.relPath, size, sent.digest('hex')));
    } finally {
      await fh.close();
    }
  }
  const digest = `sha256:${outer.digest('hex')}`;
  if (opts.expectDigest !== undefined && digest !== opts.expectDigest) {
    throw new ContentError(
      'content.changed',
      `changed since the plan was made`,
      `content ${dir} changed since the plan was made (planned ${opts.expectDigest.slice(0, 19)}…, on disk ${digest.slice(0, 19)}…); nothing was finalized: run packsync plan again and review the change`,
    );
  }
  await client.finalizeContent(id, { files: infos }, callOpts);
  return infos;
}
