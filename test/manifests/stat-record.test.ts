/**
 * The last valid load's files by their stat (src/manifests/stat-record.ts): a load of files whose
 * size, times, inode and device did not change reads none of them and returns what the full load
 * returns; any change the bytes could have undergone (a rewrite that keeps the size and sets the
 * mtime back, a file added or removed, a file written as it was read) makes the load read them.
 */
import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import type { LoadResult } from '../../src/manifests/load.js';
import { ManifestCache } from '../../src/manifests/parse-cache.js';
import { LOCAL_RACY_MS, RACY_MS, racyMsOf, racyWindow } from '../../src/manifests/stat-record.js';
import { tempDir } from '../support/temp-dir.js';
import { writeFleet } from '../support/fleet.js';

async function fleet(): Promise<string> {
  return (await writeFleet({ flows: 12, deploymentsPerFlow: 3, packages: 36 })).dir;
}

/** A cache whose clock is `aheadMs` past the wall clock: files written by the test are that much older to it. */
async function cacheIn(aheadMs = 2 * RACY_MS): Promise<ManifestCache> {
  const file = join(await tempDir('packsync-stat-'), 'cache', 'manifests-v1.jsonl');
  return new ManifestCache(file, { now: () => Date.now() + aheadMs });
}

const load = (dir: string, cache?: ManifestCache): Promise<LoadResult> =>
  loadManifests(dir, { revision: true, ...(cache ? { cache } : {}) });

/** The same files loaded with `cache` once more: whether it read none of them, and what it returned. */
async function again(dir: string, cache: ManifestCache): Promise<{ byStat: boolean; result: LoadResult }> {
  const before = cache.knownByStat;
  const result = await load(dir, cache);
  return { byStat: cache.knownByStat === before + 1, result };
}

describe('files known by their stat', () => {
  it('are not read again, and the load returns the full load’s result, in this process and the next', async () => {
    const dir = await fleet();
    const full = await load(dir);
    const cache = await cacheIn();
    expect(await again(dir, cache)).toEqual({ byStat: false, result: full });
    expect(await again(dir, cache)).toEqual({ byStat: true, result: full });
    expect(await again(dir, new ManifestCache(cache.file, { now: cache.now }))).toEqual({ byStat: true, result: full });
  });

  it('are read again when one was rewritten with the same size and its mtime set back, and its new bytes are checked', async () => {
    const dir = await fleet();
    const file = join(dir, 'flows', 'flow-3.yaml');
    // A whole second, so that setting it back gives the very same nanoseconds.
    const mtime = Math.floor(Date.now() / 1000) - 60;
    await utimes(file, mtime, mtime);
    const cache = await cacheIn();
    await load(dir, cache);
    expect((await again(dir, cache)).byStat).toBe(true);
    const before = await stat(file, { bigint: true });
    const text = await readFile(file, 'utf8');
    // Same length, now invalid: a state the schema does not know.
    const edited = text.replace('state: running', 'state: runnin!');
    expect(edited).not.toBe(text);
    expect(edited.length).toBe(text.length);
    await writeFile(file, edited);
    await utimes(file, mtime, mtime);
    const now = await stat(file, { bigint: true });
    expect([now.size, now.mtimeNs, now.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
    const after = await again(dir, cache);
    expect(after.byStat).toBe(false);
    expect(after.result.desired).toBeNull();
    expect(after.result.problems.some((p) => p.file === 'flows/flow-3.yaml' && p.severity === 'error')).toBe(true);
  });

  it('are read again when a file was added or removed', async () => {
    const dir = await fleet();
    const cache = await cacheIn();
    const first = await load(dir, cache);
    const extra = join(dir, 'flows', 'flow-extra.yaml');
    await writeFile(extra, 'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: flow-extra\nspec:\n  app: ""\n');
    const added = await again(dir, cache);
    expect(added.byStat).toBe(false);
    expect(added.result.files).toContain('flows/flow-extra.yaml');
    await rm(extra);
    await rm(join(dir, 'flows', 'flow-0.yaml'));
    const removed = await again(dir, cache);
    expect(removed.byStat).toBe(false);
    expect(removed.result.files).not.toContain('flows/flow-0.yaml');
    expect(removed.result.files.length).toBe(first.files.length - 1);
  });

  it('are read again while written as recently as the read (racily clean), and known by their stat once older', async () => {
    const dir = await fleet();
    const last = await stat(join(dir, 'flows', 'flow-11.yaml'), { bigint: true });
    const newest = Number(last.ctimeNs / 1_000_000n);
    // The window of the file system the test writes on (100 ms on a local Linux one, else 3 s).
    const windowMs = racyWindow(dir)(last);
    // To this clock the files were written a moment before the read.
    const file = join(await tempDir('packsync-stat-'), 'cache', 'manifests-v1.jsonl');
    const early = new ManifestCache(file, { now: () => newest + windowMs / 2 });
    await load(dir, early);
    expect((await again(dir, early)).byStat).toBe(false);
    // The next process, later: the files are read once more, then known by their stat.
    const later = new ManifestCache(file, { now: () => newest + 2 * windowMs });
    expect((await again(dir, later)).byStat).toBe(false);
    expect((await again(dir, later)).byStat).toBe(true);
  });

  it('are read when the last valid load’s result is no longer kept, and the load gives the full result', async () => {
    const dir = await fleet();
    const full = await load(dir);
    const cache = await cacheIn();
    await load(dir, cache);
    await rm(cache.snapshotFile!);
    expect(await again(dir, new ManifestCache(cache.file, { now: cache.now }))).toEqual({ byStat: false, result: full });
  });

  it('are settled after 100 ms on a local Linux file system, after 3 s on any other or an unknown one', () => {
    expect([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630].map(racyMsOf)).toEqual(Array(5).fill(LOCAL_RACY_MS));
    // NFS, SMB, FAT, and a file system statfs could not name.
    expect([0x6969, 0xfe534d42, 0x4d44, undefined].map(racyMsOf)).toEqual(Array(4).fill(RACY_MS));
  });

  it('are not taken from a record cut short or of another loader', async () => {
    const dir = await fleet();
    const cache = await cacheIn();
    await load(dir, cache);
    const record = `${cache.file!}.stat`;
    const text = await readFile(record, 'utf8');
    await writeFile(record, text.slice(0, -1));
    expect((await again(dir, new ManifestCache(cache.file, { now: cache.now }))).byStat).toBe(false);
    await writeFile(record, text.replace(/^(\S+) \S+/, '$1 another-loader'));
    expect((await again(dir, new ManifestCache(cache.file, { now: cache.now }))).byStat).toBe(false);
    await writeFile(record, text);
    expect((await again(dir, new ManifestCache(cache.file, { now: cache.now }))).byStat).toBe(true);
  });
});
