/**
 * Chunked upload of a content directory (api-notes §5, as `Publish-RobopackPackage.ps1` does it):
 * files sorted by relative path, `index` = position in that order, each file streamed from disk in
 * `chunkSize` pieces through one reused buffer, then `finalize` with the file list.
 *
 * A chunk is idempotent (same index, offset and bytes rewrite the same range), so the transport
 * repeats a failed chunk by itself; nothing before it is sent again.
 */
import type { FileHandle } from 'node:fs/promises';
import { open, readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ApiError } from './errors.js';
import type { PacksyncApi, UploadDirectoryOptions } from './operations.js';
import type { UploadFileInfoViewModel, Uuid } from './wire-types.js';

/** 4 MiB, the chunk size public clients use. */
export const DEFAULT_CHUNK_SIZE = 4 * 1024 * 1024;

export class ContentError extends Error {
  readonly code = 'UPLOAD_INVALID_CONTENT';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ContentError';
  }
}

export interface ContentFile {
  /** Relative to the content root, forward slashes. */
  relPath: string;
  /** Where to read the bytes (a symlink's target inside the root). */
  absPath: string;
  size: number;
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Every regular file below `dir`, sorted byte-wise by relative path. Symlinks are followed only
 * while their target stays inside `dir`; one that leaves it, dangles or loops is an error, as is
 * any other special file (a socket or a FIFO has no content to upload).
 */
export async function listContentFiles(dir: string): Promise<ContentFile[]> {
  let root: string;
  try {
    root = await realpath(dir);
  } catch (e) {
    throw new ContentError(`content directory ${dir} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { cause: e });
  }
  if (!(await stat(root)).isDirectory()) throw new ContentError(`content path ${dir} is not a directory`);
  const out: ContentFile[] = [];

  const walk = async (absDir: string, rel: string, ancestors: ReadonlySet<string>): Promise<void> => {
    const entries = await readdir(absDir, { withFileTypes: true });
    for (const e of entries) {
      const abs = join(absDir, e.name);
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      let target = abs;
      if (e.isSymbolicLink()) {
        try {
          target = await realpath(abs);
        } catch (err) {
          throw new ContentError(`content file ${relPath} is a broken symlink`, { cause: err });
        }
        if (!inside(root, target)) throw new ContentError(`content file ${relPath} is a symlink that leaves the content directory`);
      }
      const st = e.isSymbolicLink() ? await stat(target) : e;
      if (st.isDirectory()) {
        const real = e.isSymbolicLink() ? target : abs;
        if (ancestors.has(real)) throw new ContentError(`content directory ${relPath} is a symlink loop`);
        await walk(real, relPath, new Set([...ancestors, real]));
      } else if (st.isFile()) {
        out.push({ relPath, absPath: target, size: (await stat(target)).size });
      } else {
        throw new ContentError(`content file ${relPath} is not a regular file`);
      }
    }
  };
  await walk(root, '', new Set([root]));
  out.sort((a, b) => byteCompare(a.relPath, b.relPath));
  return out;
}

/** Reads exactly `length` bytes at `position`, or fails: the file must not shrink under us. */
async function readFully(fh: FileHandle, buf: Buffer, length: number, position: number, relPath: string): Promise<void> {
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, position + got);
    if (bytesRead === 0) throw new ContentError(`content file ${relPath} changed while it was uploaded`);
    got += bytesRead;
  }
}

export type ChunkClient = Pick<PacksyncApi, 'uploadContentChunk' | 'finalizeContent'>;

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
  // One buffer for the whole upload, never larger than a chunk or than the largest file.
  const buf = Buffer.allocUnsafe(Math.min(chunkSize, largest));
  let bytesDone = 0;
  const progress = (filesDone: number, currentFile: string | null): void => {
    opts.onProgress?.({ packageId: id, bytesDone, bytesTotal, filesDone, filesTotal: files.length, currentFile });
  };

  for (const [index, f] of files.entries()) {
    if (opts.signal?.aborted) throw new ApiError('API_ABORTED', 'uploadContentDirectory: aborted', { operation: 'uploadContentDirectory', cause: opts.signal.reason });
    const fh = await open(f.absPath, 'r');
    try {
      const size = (await fh.stat()).size;
      if (size !== f.size) throw new ContentError(`content file ${f.relPath} changed while it was uploaded`);
      if (size === 0) {
        await client.uploadContentChunk(id, { index, size: 0, offset: 0, chunk: 0 }, new Uint8Array(0), callOpts);
        progress(index + 1, f.relPath);
        continue;
      }
      for (let chunk = 0, offset = 0; offset < size; chunk++) {
        const length = Math.min(chunkSize, size - offset);
        await readFully(fh, buf, length, offset, f.relPath);
        await client.uploadContentChunk(id, { index, size: length, offset, chunk }, buf.subarray(0, length), callOpts);
        offset += length;
        bytesDone += length;
        progress(offset >= size ? index + 1 : index, f.relPath);
      }
    } finally {
      await fh.close();
    }
  }
  await client.finalizeContent(id, { files: infos }, callOpts);
  return infos;
}
