/**
 * `--data-dir`: the simulator's state survives a restart. Accounts are stored under a digest of
 * their key (the key itself is never written to disk); writes are atomic (temp file + rename).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Account, AccountData } from './account.js';

export interface PersistedState {
  version: 1;
  virtualNow: number;
  accounts: Record<string, AccountData>;
}

export function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

export async function loadState(dir: string): Promise<PersistedState | null> {
  try {
    const s = JSON.parse(await readFile(join(dir, 'simulator-state.json'), 'utf8')) as PersistedState;
    return s.version === 1 ? s : null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`cannot read ${join(dir, 'simulator-state.json')}: ${(e as Error).message}`);
  }
}

export async function saveState(dir: string, state: PersistedState): Promise<void> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'simulator-state.json');
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(state));
  await rename(tmp, file);
}

/** The accounts to save and the virtual time to save with them, read afresh at every save. */
export interface SaveSource {
  accounts: () => Iterable<Account>;
  virtualNow: () => number;
}

export interface SaveLoop {
  /** Saves now if any account changed since the last save; resolves when every save so far is written. */
  persist: () => Promise<void>;
  /** Stops the timer (a last `persist()` is the caller's, on close). */
  stop: () => void;
}

/**
 * Saves every `intervalMs` while something changed. Accounts count their changes (`version`), and
 * the loop writes only when the sum moved. Saves are chained, so two never write the file at once
 * and the newest always lands last. The timer is unref'd: it never keeps the process alive.
 */
export function startSaveLoop(dir: string, source: SaveSource, intervalMs = 250): SaveLoop {
  let saving: Promise<void> = Promise.resolve();
  let savedVersion = -1;
  const versionSum = (): number => [...source.accounts()].reduce((n, a) => n + a.version, 0);
  const persist = (): Promise<void> => {
    const v = versionSum();
    if (v === savedVersion) return saving;
    savedVersion = v;
    const state: PersistedState = { version: 1, virtualNow: source.virtualNow(), accounts: {} };
    for (const a of source.accounts()) state.accounts[a.name] = a.dump();
    saving = saving.then(() => saveState(dir, state));
    return saving;
  };
  const timer = setInterval(
    () => void persist().catch((e: unknown) => process.emitWarning(`simulator: cannot save state: ${String(e)}`)),
    intervalMs,
  );
  timer.unref();
  return { persist, stop: () => clearInterval(timer) };
}
