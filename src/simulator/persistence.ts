/**
 * `--data-dir`: the simulator's state survives a restart. Accounts are stored under a digest of
 * their key (the key itself is never written to disk); writes are atomic (temp file + rename).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccountData } from './account.js';

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
