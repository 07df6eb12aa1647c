/**
 * Durable file writes, shared by the state's snapshot (replaced atomically), the lock (created
 * exclusively) and the request queue: the bytes are written and fsynced before the file counts.
 */
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Writes `text` (or its parts, in order) to a file opened with `flags` ('w', 'wx'…) and fsyncs it before closing. */
export async function writeDurably(file: string, text: string | Iterable<string>, flags: string): Promise<void> {
  const fh = await open(file, flags, 0o600);
  try {
    // writeFile at the handle's position, part after part (it finishes partial writes itself).
    for (const part of typeof text === 'string' ? [text] : text) await fh.writeFile(part);
    await fh.sync();
  } finally {
    await fh.close();
  }
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
  await writeDurably(tmp, text, 'w');
  try {
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await syncDir(dirname(file));
}
