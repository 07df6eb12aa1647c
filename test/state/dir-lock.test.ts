/**
 * The state directory's lock is a lease that heals and fences (docs/errors.md, STATE_LOCKED and
 * STATE_LOCK_LOST): a restarted container (same pid) or a new pod (another host) takes over a lock
 * that is no longer renewed, a fresh lock of another host is respected, and a holder whose lock was
 * deleted or taken over stops before its next state write.
 */
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockDirectory } from '../../src/state/dir-lock.js';
import { openState } from '../../src/state/open-state.js';
import { tempDir } from '../support/temp-dir.js';

const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

async function stateWithLock(holder: Record<string, unknown>): Promise<string> {
  const dir = await tempDir('packsync-lock-');
  await writeFile(join(dir, 'lock'), `${JSON.stringify(holder)}\n`);
  return dir;
}

describe('the state lock heals', () => {
  it('takes over a lock naming this very pid on this host (regression: a restarted container found "itself" alive and stayed STATE_LOCKED)', async () => {
    const dir = await stateWithLock({ pid: process.pid, host: hostname(), since: ago(1000), renewed: ago(1000), token: 'old' });
    const warnings: string[] = [];
    const lock = await lockDirectory(dir, (w) => warnings.push(w));
    expect(warnings).toEqual([expect.stringContaining('names this very process id')]);
    expect(JSON.parse(await readFile(join(dir, 'lock'), 'utf8'))).toMatchObject({
      pid: process.pid,
      token: expect.not.stringMatching(/^old$/),
    });
    await lock.release();
  });

  it('takes over a lock of another host once it was not renewed within the timeout (regression: a new pod never took over)', async () => {
    const dir = await stateWithLock({ pid: 11432, host: 'packsync-7d9f-aaaaa', since: ago(600_000), renewed: ago(300_000), token: 't' });
    const warnings: string[] = [];
    const lock = await lockDirectory(dir, (w) => warnings.push(w), 120_000);
    expect(warnings).toEqual([expect.stringMatching(/host packsync-7d9f-aaaaa since .*: it was not renewed for more than 120 s/)]);
    await lock.release();
  });

  it('respects a lock another host renewed within the timeout, and says it heals by itself (no advice to delete it)', async () => {
    const dir = await stateWithLock({ pid: 11432, host: 'packsync-7d9f-aaaaa', since: ago(600_000), renewed: ago(10_000), token: 't' });
    const err = await lockDirectory(dir, () => undefined, 120_000).catch((e: unknown) => e as Error);
    expect(err).toMatchObject({ code: 'STATE_LOCKED' });
    expect((err as Error).message).toMatch(/taken over by itself/);
    expect((err as Error).message).not.toMatch(/delete/);
  });
});

describe('the state lock fences', () => {
  it('a holder whose lock file was deleted stops before its next intent (regression: rm lock let two applies create duplicates)', async () => {
    const dir = await tempDir('packsync-lock-');
    const state = openState({ stateDir: dir, env: {}, warn: () => undefined });
    await state.lock();
    const store = await state.openStore();
    await store.setIntent({ key: 'Flow/a', op: 'createFlow', at: ago(0), knownIds: [], match: {} });
    await unlink(join(dir, 'lock'));
    await expect(store.setIntent({ key: 'Flow/b', op: 'createFlow', at: ago(0), knownIds: [], match: {} })).rejects.toMatchObject({
      code: 'STATE_LOCK_LOST',
    });
    const journal = await readFile(join(dir, 'journal.jsonl'), 'utf8');
    expect(journal).toContain('Flow/a');
    expect(journal).not.toContain('Flow/b');
    await state.close();
  });

  it('a holder whose lock was taken over by another process stops too, and its release leaves the new holder’s lock', async () => {
    const dir = await tempDir('packsync-lock-');
    const state = openState({ stateDir: dir, env: {}, warn: () => undefined });
    await state.lock();
    const store = await state.openStore();
    const other = { pid: 99999, host: 'another-pod', since: ago(0), renewed: ago(0), token: 'theirs' };
    await writeFile(join(dir, 'lock'), `${JSON.stringify(other)}\n`);
    await expect(store.setIntent({ key: 'Flow/c', op: 'createFlow', at: ago(0), knownIds: [], match: {} })).rejects.toMatchObject({
      code: 'STATE_LOCK_LOST',
    });
    await state.close();
    expect(JSON.parse(await readFile(join(dir, 'lock'), 'utf8'))).toMatchObject({ token: 'theirs' });
  });
});
