/**
 * One writer per state directory (design §4): `<state-dir>/lock` holds `{pid, host, since}` of the
 * process that writes the state. It is created exclusively (O_EXCL), so two processes cannot both
 * win; a lock whose process is gone (same host, pid not alive) is taken over with a warning, since
 * a crash (SIGKILL, OOM kill) leaves the file behind and must not need a human to clear it.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { link, mkdir, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { holderText, pidAlive } from './holder.js';
import type { Holder } from './holder.js';
import { writeDurably } from './durable-file.js';
import { onProcessEnd } from './release-on-exit.js';
import { StateError } from './state-errors.js';

export const LOCK_FILE = 'lock';

export interface HeldLock {
  release(): Promise<void>;
}

export async function lockDirectory(dir: string, warn: (message: string) => void): Promise<HeldLock> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, LOCK_FILE);
  const me: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const text = `${JSON.stringify(me)}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createExclusive(file, text)) return held(file, text);
    const holder = await readHolder(file);
    if (!holder) continue; // released between our create and our read: try again
    if (holder.host !== me.host || pidAlive(holder.pid)) {
      throw new StateError(
        'STATE_LOCKED',
        `the state directory ${dir} is locked by ${holderText(holder)}; wait for it to finish (if that process is gone for good, delete ${file})`,
      );
    }
    // Move the dead holder's file aside under a name only we use, then check it is the one we
    // judged dead: a racing process may have taken it over (and written its own) in between.
    const aside = `${file}.stale-${process.pid}`;
    try {
      await rename(file, aside);
    } catch {
      continue;
    }
    const moved = await readHolder(aside);
    if (moved && moved.pid === holder.pid && moved.since === holder.since) {
      await unlink(aside).catch(() => undefined);
      warn(`taking over the lock of ${dir} from ${holderText(holder)}, which is no longer running`);
      continue;
    }
    // Not the dead one: put the live holder's file back (fails only if yet another process won).
    await link(aside, file).catch(() => undefined);
    await unlink(aside).catch(() => undefined);
  }
  const holder = await readHolder(file);
  throw new StateError('STATE_LOCKED', `the state directory ${dir} is locked by ${holder ? holderText(holder) : 'another process'}`);
}

async function createExclusive(file: string, text: string): Promise<boolean> {
  try {
    await writeDurably(file, text, 'wx');
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new StateError('STATE_WRITE_FAILED', `cannot create ${file}: ${(e as Error).message}`, { cause: e });
  }
}

async function readHolder(file: string): Promise<Holder | null> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const h = JSON.parse(text) as Partial<Holder>;
    return { pid: Number(h.pid), host: String(h.host), since: String(h.since) };
  } catch {
    // A lock file torn by a crash while it was written: its writer died before it held anything.
    return { pid: -1, host: hostname(), since: 'unknown' };
  }
}

function held(file: string, text: string): HeldLock {
  let released = false;
  // Only our own lock is removed: compare the content, so a takeover by another process after a
  // long stall is not undone by us.
  const releaseSync = (): void => {
    if (released) return;
    released = true;
    try {
      if (readFileSyncSafe(file) === text) unlinkSync(file);
    } catch {
      // Nothing to release.
    }
  };
  const off = onProcessEnd(releaseSync);
  return {
    release: () => {
      off();
      releaseSync();
      return Promise.resolve();
    },
  };
}

function readFileSyncSafe(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
