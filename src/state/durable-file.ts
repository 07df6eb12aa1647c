/**
 * Durable file writes, shared by the state's snapshot (replaced atomically), the lock (created
 * exclusively) and the request queue: the bytes are written and fsynced before the file counts.
 */
import { writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Writes `text` (or its parts, in order) to a file opened with `flags` ('w', 'wx'…) and fsyncs it before closing. */
export async function writeDurably(file: string, text: string | Iterable<string>, flags: string): Promise<void> {
  const fh = await open(file, flags, 0o600);
  try {
    if (typeof text === 'string') await fh.writeFile(text);
    else for (const part of text) writeAllSync(fh.fd, Buffer.from(part));
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Written here, not on the thread pool: a part awaited across its write lives long enough to be
 * promoted to the old generation, so a snapshot of 12 MB in parts would still grow the heap by as
 * much at the end of an apply. Made and written at once, each part dies young; the fsync still
 * runs off-thread.
 */
function writeAllSync(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** Makes a directory's entries (a created or renamed file's name) durable. */
export async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

/** Replaces `file` so that a crash at any moment leaves the old or the new content, never a torn one. */
export async function writeAtomic(file: string, text: string | Iterable<string>): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    // A write that fails half way (a full disk) leaves no temporary file behind either.
    await writeDurably(tmp, text, 'w');
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await syncDir(dirname(file));
}
