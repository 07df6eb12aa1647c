/**
 * One writer per state directory (docs/reconcile.md, "Inventory and crash safety"): `<state-dir>/lock`
 * is a lease. It holds `{pid, host, since, renewed, token}` of the process that writes the state, is
 * created exclusively (O_EXCL) so two processes cannot both win, and is renewed by its holder every
 * quarter of the lease timeout. A lock not renewed within the timeout (default 120 s,
 * `PACKSYNC_LOCK_TIMEOUT` in seconds) is taken over with a warning whoever wrote it: a container
 * restarted with the same pid, or a new pod on another host, finds it stale by time, never needs a
 * person to delete it. A lock of a dead process on this host (or of this very pid: a restart that got
 * the same pid) is taken over at once.
 *
 * Fencing: a holder that lost its lease (taken over, deleted, or not renewed in time) stops before its
 * next state write. Every durable write (an intent, written before each create) re-reads the lock and
 * compares its token; every other write checks the last renewal's verdict. A deleted lock or a takeover
 * therefore never lets two writers create the same object twice.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, mkdir, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { holderText, pidAlive } from './holder.js';
import type { Holder } from './holder.js';
import { writeAtomic, writeDurably } from './durable-file.js';
import { onProcessEnd } from './release-on-exit.js';
import { StateError } from './state-errors.js';

export const LOCK_FILE = 'lock';

/** The tokens of the leases this process holds: a lock naming our pid but none of these is a previous life's. */
const heldTokens = new Set<string>();
export const DEFAULT_LOCK_TIMEOUT_MS = 120_000;

export interface HeldLock {
  release(): Promise<void>;
  /** Throws STATE_LOCK_LOST when the lease is no longer ours; `deep` re-reads the lock file first. */
  assertHeld(deep: boolean): Promise<void>;
}

interface LeaseHolder extends Holder {
  renewed?: string;
  token?: string;
}

export function lockTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env.PACKSYNC_LOCK_TIMEOUT);
  return Number.isFinite(s) && s >= 5 && s <= 86_400 ? s * 1000 : DEFAULT_LOCK_TIMEOUT_MS;
}

export async function lockDirectory(dir: string, warn: (message: string) => void, timeoutMs = lockTimeoutMs()): Promise<HeldLock> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, LOCK_FILE);
  const now = new Date().toISOString();
  const me: LeaseHolder = { pid: process.pid, host: hostname(), since: now, renewed: now, token: randomBytes(12).toString('hex') };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createExclusive(file, `${JSON.stringify(me)}\n`)) return held(file, me, timeoutMs);
    const holder = await readHolder(file);
    if (!holder) continue; // released between our create and our read: try again
    const stale = staleness(holder, me, timeoutMs);
    if (!stale) {
      throw new StateError(
        'STATE_LOCKED',
        `the state directory ${dir} is locked by ${holderText(holder)}${renewedText(holder)}; wait for it to finish (a lock not renewed for ${timeoutMs / 1000} s is taken over by itself)`,
      );
    }
    if (await takeOver(file, holder)) warn(`taking over the lock of ${dir} from ${holderText(holder)}: ${stale}`);
  }
  const holder = await readHolder(file);
  throw new StateError('STATE_LOCKED', `the state directory ${dir} is locked by ${holder ? holderText(holder) : 'another process'}`);
}

/** Why the holder's lock may be taken over, or null while it is held. */
function staleness(holder: LeaseHolder, me: LeaseHolder, timeoutMs: number): string | null {
  if (holder.host === me.host && holder.pid === me.pid && !(holder.token !== undefined && heldTokens.has(holder.token)))
    return 'it names this very process id, which is not holding it (a restarted container)';
  if (holder.host === me.host && !pidAlive(holder.pid)) return 'that process is no longer running';
  const renewed = Date.parse(holder.renewed ?? holder.since);
  if (!Number.isFinite(renewed) || Date.now() - renewed > timeoutMs) return `it was not renewed for more than ${timeoutMs / 1000} s`;
  return null;
}

function renewedText(h: LeaseHolder): string {
  return h.renewed && h.renewed !== h.since ? `, renewed ${h.renewed}` : '';
}

/**
 * Moves the stale holder's file aside under a name only we use, then checks it is the one we judged:
 * a racing process may have taken it over (and written its own) in between; that one is put back.
 */
async function takeOver(file: string, holder: LeaseHolder): Promise<boolean> {
  const aside = `${file}.stale-${process.pid}`;
  try {
    await rename(file, aside);
  } catch {
    return false;
  }
  const moved = await readHolder(aside);
  if (moved && moved.pid === holder.pid && moved.since === holder.since && moved.token === holder.token) {
    await unlink(aside).catch(() => undefined);
    return true;
  }
  await link(aside, file).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
  return false;
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

async function readHolder(file: string): Promise<LeaseHolder | null> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return null;
  return parseHolder(text);
}

function parseHolder(text: string): LeaseHolder {
  try {
    const h = JSON.parse(text) as Partial<LeaseHolder>;
    return {
      pid: Number(h.pid),
      host: String(h.host),
      since: String(h.since),
      ...(typeof h.renewed === 'string' ? { renewed: h.renewed } : {}),
      ...(typeof h.token === 'string' ? { token: h.token } : {}),
    };
  } catch {
    // A lock file torn by a crash while it was written: its writer died before it held anything.
    return { pid: -1, host: hostname(), since: 'unknown' };
  }
}

function held(file: string, me: LeaseHolder, timeoutMs: number): HeldLock {
  let released = false;
  let lost: string | null = null;
  let lastRenewal = Date.now();
  heldTokens.add(me.token ?? '');
  const ours = (text: string | null): boolean => text !== null && parseHolder(text).token === me.token;
  const renew = async (): Promise<void> => {
    if (released || lost) return;
    const text = await readFile(file, 'utf8').catch(() => null);
    if (!ours(text)) {
      lost = text === null ? 'the lock file was deleted' : `the lock was taken over by ${holderText(parseHolder(text))}`;
      return;
    }
    await writeAtomic(file, `${JSON.stringify({ ...me, renewed: new Date().toISOString() })}\n`).then(
      () => (lastRenewal = Date.now()),
      () => undefined,
    );
  };
  const timer = setInterval(() => void renew(), Math.max(1000, Math.floor(timeoutMs / 4)));
  timer.unref();
  // Only our own lock is removed: compare the token, so a takeover by another process after a long
  // stall is not undone by us.
  const releaseSync = (): void => {
    if (released) return;
    released = true;
    clearInterval(timer);
    heldTokens.delete(me.token ?? '');
    try {
      if (ours(readFileSyncSafe(file))) unlinkSync(file);
    } catch {
      // Nothing to release.
    }
  };
  const off = onProcessEnd(releaseSync);
  const lostError = (why: string): StateError =>
    new StateError('STATE_LOCK_LOST', `this process no longer holds the state lock (${why}); it stopped before writing the state again`);
  return {
    release: () => {
      off();
      releaseSync();
      return Promise.resolve();
    },
    assertHeld: (deep) => {
      if (!lost && Date.now() - lastRenewal > timeoutMs) lost = `the lease was not renewed for more than ${timeoutMs / 1000} s`;
      // Read synchronously: a file of one line, re-read before every durable append (each batch of
      // intents of an apply), where the promise API's open/stat/read/close hops through the thread
      // pool were ~5 % of a 6,000-deployment apply's main thread (docs/performance.md, patch-tuesday).
      if (!lost && deep && !ours(readFileSyncSafe(file))) lost = 'the lock file was deleted or taken over';
      return lost ? Promise.reject(lostError(lost)) : Promise.resolve();
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
