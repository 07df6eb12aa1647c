/**
 * The last valid load's result kept beside the manifest cache (src/manifests/desired-snapshot.ts):
 * a load of exactly the files of the last valid load returns what the full load returns (desired
 * set, warnings, counts, revision), read back from the snapshot; anything that could make the two
 * differ (another key, another loader, a torn or edited snapshot, a Baseline, a content directory)
 * leaves it to the full load.
 */
import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import type { LoadResult } from '../../src/manifests/load.js';
import { ManifestCache } from '../../src/manifests/parse-cache.js';
import { readSnapshot, writeSnapshot } from '../../src/manifests/desired-snapshot.js';
import { Turns } from '../../src/util/turns.js';
import { tempDir } from '../support/temp-dir.js';
import { writeFleet } from '../support/fleet.js';

const EXAMPLES = new URL('../../examples/', import.meta.url).pathname;

/** A fleet whose load has warnings too (a wave on a pending deployment). */
async function fleet(): Promise<string> {
  return (await writeFleet({ flows: 30, deploymentsPerFlow: 5, packages: 60, wave: (_i, k) => (k === 4 ? 2 : undefined) })).dir;
}

async function cacheIn(): Promise<ManifestCache> {
  return new ManifestCache(join(await tempDir('packsync-snapshot-'), 'cache', 'manifests-v1.jsonl'));
}

const load = (dir: string, cache?: ManifestCache): Promise<LoadResult> =>
  loadManifests(dir, { revision: true, ...(cache ? { cache } : {}) });

describe('the desired-set snapshot', () => {
  it('gives a load of the last valid load’s files exactly the full load’s result, in this process and the next', async () => {
    const dir = await fleet();
    const full = await load(dir);
    expect(full.desired).not.toBeNull();
    expect(full.problems.some((p) => p.rule === 'deployment.wave-ignored')).toBe(true);
    const cache = await cacheIn();
    expect(await load(dir, cache)).toEqual(full);
    // Written by the first load with a cache file, read by the next (a new process reads the file).
    const file = cache.snapshotFile!;
    expect((await readFile(file, 'utf8')).length).toBeGreaterThan(1000);
    expect(await load(dir, cache)).toEqual(full);
    expect(await load(dir, new ManifestCache(cache.file))).toEqual(full);
  });

  it('is what such a load returns (read back, not built again)', async () => {
    const dir = await fleet();
    const cache = await cacheIn();
    await load(dir, cache);
    const file = cache.snapshotFile!;
    const text = await readFile(file, 'utf8');
    const nl = text.indexOf('\n');
    const header = JSON.parse(text.slice(0, nl)) as { body: string };
    // The first line holds all but the object lists (which follow in parts, one per line).
    const lines = text.slice(nl + 1).split('\n');
    const first = JSON.parse(lines[0]!) as { documents: number };
    // A snapshot that says 7 documents, with its digest made to match: the load returns it.
    lines[0] = JSON.stringify({ ...first, documents: 7 });
    const edited = lines.join('\n');
    const { createHash } = await import('node:crypto');
    header.body = createHash('sha256').update(edited).digest('hex');
    await writeFile(file, `${JSON.stringify(header)}\n${edited}`);
    expect((await load(dir, new ManifestCache(cache.file))).documents).toBe(7);
  });

  it('is read in parts of at most 500 objects, giving way to the event loop after each', async () => {
    const dir = (await writeFleet({ flows: 120, deploymentsPerFlow: 5, packages: 60 })).dir;
    const cache = await cacheIn();
    const full = await load(dir, cache);
    const file = cache.snapshotFile!;
    const text = await readFile(file, 'utf8');
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { identity: string; key: string };
    // The header, the rest of the result, then 60 packages, 120 flows and 600 deployments in four parts.
    expect(text.split('\n')).toHaveLength(6);
    let turnsTaken = 0;
    class Counting extends Turns {
      override next(): Promise<void> {
        turnsTaken++;
        return super.next();
      }
    }
    const kept = await readSnapshot(file, header.identity, header.key, new Counting(0));
    expect(kept?.desired).toEqual(full.desired);
    expect(turnsTaken).toBe(5);
  });

  it('is written a part at a time, giving way to the event loop, and not at all when JSON would change a value', async () => {
    const dir = (await writeFleet({ flows: 120, deploymentsPerFlow: 5, packages: 60 })).dir;
    const full = await load(dir);
    const stateDir = await tempDir('packsync-snapshot-');
    const file = join(stateDir, 'cache', 'manifests-v1.jsonl.desired');
    const kept = { desired: full.desired!, problems: full.problems, files: full.files, documents: full.documents };
    let turnsTaken = 0;
    class Counting extends Turns {
      override next(): Promise<void> {
        turnsTaken++;
        return super.next();
      }
    }
    expect(await writeSnapshot(file, 'loader', 'key', kept, new Counting(0))).toBe(true);
    // One turn before each of the four parts (60 packages, 120 flows, 600 deployments in two).
    expect(turnsTaken).toBe(4);
    expect((await readSnapshot(file, 'loader', 'key'))?.desired).toEqual(full.desired);
    // -0 reads back as 0: such a set is left to the full load, and the snapshot there is not replaced.
    const deployments = full.desired!.deployments.map((d, i) => (i === 599 ? { ...d, spec: { ...d.spec, minusZero: -0 } } : d));
    const inexact = { ...kept, desired: { ...full.desired!, deployments } };
    expect(await writeSnapshot(file, 'loader', 'other', inexact, new Counting(0))).toBe(false);
    expect(await readSnapshot(file, 'loader', 'key')).toBeDefined();
  });

  it('is ignored when torn or edited, when another loader wrote it, or when a file changed', async () => {
    const dir = await fleet();
    const cache = await cacheIn();
    const full = await load(dir);
    await load(dir, cache);
    const file = cache.snapshotFile!;
    const text = await readFile(file, 'utf8');
    // Edited without its digest: the full load decides.
    await writeFile(file, text.replace('"documents":', '"documents":1'));
    expect(await load(dir, new ManifestCache(cache.file))).toEqual(full);
    // Torn.
    await writeFile(file, text.slice(0, text.length >> 1));
    expect(await load(dir, new ManifestCache(cache.file))).toEqual(full);
    // Another loader's (another identity).
    await load(dir, new ManifestCache(cache.file));
    const again = await readFile(file, 'utf8');
    await writeFile(file, again.replace(/"identity":"[0-9a-f]+"/, `"identity":"${'0'.repeat(64)}"`));
    expect(await load(dir, new ManifestCache(cache.file))).toEqual(full);
    // A file changed: its own load, and then its own snapshot.
    const flow = join(dir, 'flows', 'flow-0.yaml');
    await writeFile(flow, (await readFile(flow, 'utf8')).replace('name: Fleet flow 0', 'name: Fleet flow zero'));
    const changed = await load(dir);
    expect(changed.desired!.flows.find((f) => f.metadata.name === 'flow-0')!.spec.name).toBe('Fleet flow zero');
    expect(await load(dir, new ManifestCache(cache.file))).toEqual(changed);
    expect(await load(dir, new ManifestCache(cache.file))).toEqual(changed);
  });

  it('is not kept for a repository with a Baseline or a package content directory (time and bytes outside the files)', async () => {
    const dir = await tempDir('packsync-snapshot-examples-');
    for (const d of ['packages', 'flows', 'deployments', 'baselines', 'content'])
      await cp(join(EXAMPLES, d), join(dir, d), { recursive: true });
    const cache = await cacheIn();
    expect((await load(dir, cache)).desired?.baselines?.length).toBeGreaterThan(0);
    await load(dir, cache);
    expect(await readdir(join(cache.file!, '..'))).not.toContain('manifests-v1.jsonl.desired');
    // Without the Baseline, the content package still keeps it out.
    const { rm } = await import('node:fs/promises');
    await rm(join(dir, 'baselines'), { recursive: true });
    const loaded = await load(dir, cache);
    expect(loaded.desired?.packages.some((p) => p.content !== undefined)).toBe(true);
    expect(await readdir(join(cache.file!, '..'))).not.toContain('manifests-v1.jsonl.desired');
  });

  it('never creates the state directory it would be kept in (a plan in a fresh checkout leaves no trace)', async () => {
    const dir = await fleet();
    const state = join(await tempDir('packsync-snapshot-none-'), 'state');
    const cache = new ManifestCache(join(state, 'cache', 'manifests-v1.jsonl'));
    expect((await load(dir, cache)).desired).not.toBeNull();
    await expect(readdir(state)).rejects.toThrow();
  });

  it('is not kept for an empty folder, whose warning names the path as it was typed (`.` and the full path share a key)', async () => {
    const dir = await tempDir('packsync-snapshot-empty-');
    const cache = await cacheIn();
    const loaded = await load(dir, cache);
    expect(loaded.problems.map((p) => p.rule)).toEqual(['manifest.none']);
    await load(dir, cache);
    expect(await readdir(join(cache.file!, '..'))).not.toContain('manifests-v1.jsonl.desired');
  });
});
