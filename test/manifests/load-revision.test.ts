/**
 * A directory source's revision is a digest of what the load read (manifests/load-revision.ts):
 * the manifest files' bytes, the content directories, and the documents Baselines generated at
 * the load's time. It replaced a digest of the whole desired set (docs/performance.md, fleet-cli).
 */
import { cp, readdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import { ManifestCache } from '../../src/manifests/parse-cache.js';
import { tempDir } from '../support/temp-dir.js';

const EXAMPLES = new URL('../../examples/', import.meta.url).pathname;
// The example Baseline's KeePass exception expires on 2027-06-30 (docs/baselines.md).
const BEFORE = new Date('2027-06-01T00:00:00Z');
const AFTER = new Date('2027-07-02T00:00:00Z');

async function copyExamples(): Promise<string> {
  const dir = await tempDir('packsync-revision-');
  for (const d of ['packages', 'flows', 'deployments', 'baselines', 'content'])
    await cp(join(EXAMPLES, d), join(dir, d), { recursive: true });
  return dir;
}

async function revisionOf(dir: string, o: { now?: Date; cache?: ManifestCache } = {}): Promise<string | undefined> {
  const loaded = await loadManifests(dir, { revision: true, now: o.now ?? BEFORE, ...(o.cache ? { cache: o.cache } : {}) });
  expect(loaded.problems.filter((p) => p.severity === 'error')).toEqual([]);
  return loaded.revision;
}

describe('a directory source revision', () => {
  it('is the same for the same files, with or without the parse cache, and ignores file times', async () => {
    const dir = await copyExamples();
    const first = await revisionOf(dir);
    expect(first).toMatch(/^sha256:[0-9a-f]{16}$/);
    const cache = new ManifestCache(join(await tempDir('packsync-revision-cache-'), 'cache'));
    expect(await revisionOf(dir, { cache })).toBe(first);
    expect(await revisionOf(dir, { cache })).toBe(first);
    await utimes(join(dir, 'packages', 'seven-zip.yaml'), new Date(0), new Date(0));
    expect(await revisionOf(dir)).toBe(first);
  });

  it('changes when a manifest file changes, even by a comment', async () => {
    const dir = await copyExamples();
    const before = await revisionOf(dir);
    const file = join(dir, 'flows', (await import('node:fs/promises').then((fs) => fs.readdir(join(dir, 'flows'))))[0]!);
    await writeFile(file, `${await readFile(file, 'utf8')}# reviewed\n`);
    expect(await revisionOf(dir)).not.toBe(before);
  });

  it('changes when a byte of a package content directory changes and no manifest does', async () => {
    const dir = await copyExamples();
    const before = await revisionOf(dir);
    const file = join(dir, 'content', 'contoso-agent', '1.2.3', 'config', 'agent.json');
    await writeFile(file, `${await readFile(file, 'utf8')} `);
    expect(await revisionOf(dir)).not.toBe(before);
  });

  it('changes when a Baseline exception expires, with the files unchanged', async () => {
    const dir = await copyExamples();
    expect(await revisionOf(dir, { now: AFTER })).not.toBe(await revisionOf(dir, { now: BEFORE }));
    expect(await revisionOf(dir, { now: AFTER })).toBe(await revisionOf(dir, { now: new Date('2028-01-01T00:00:00Z') }));
  });

  it('is made only when asked', async () => {
    const dir = await copyExamples();
    expect((await loadManifests(dir, { now: BEFORE })).revision).toBeUndefined();
  });
});

describe('a load known valid early (onKnownValid)', () => {
  /** `known`: how the load was first said valid ('record' before its checks, 'checks' after them), or false. */
  const load = async (dir: string, cache: ManifestCache): Promise<{ known: 'record' | 'checks' | false; valid: boolean }> => {
    let known: 'record' | 'checks' | false = false;
    const out = await loadManifests(dir, { cache, now: BEFORE, onKnownValid: (by) => (known ||= by) });
    return { known, valid: out.desired !== null };
  };

  it('is said only when the files are byte for byte those of the last valid load of the path, also in the next process', async () => {
    const dir = await copyExamples();
    const file = join(await tempDir('packsync-known-cache-'), 'cache');
    const cache = new ManifestCache(file);
    expect(await load(dir, cache)).toEqual({ known: 'checks', valid: true });
    expect(await load(dir, cache)).toEqual({ known: 'record', valid: true });
    // The next process reads the record beside the cache file.
    expect(await load(dir, new ManifestCache(file))).toEqual({ known: 'record', valid: true });
    const flow = join(dir, 'flows', (await readdir(join(dir, 'flows')))[0]!);
    const text = await readFile(flow, 'utf8');
    await writeFile(flow, `${text}metadata: [broken\n`);
    expect(await load(dir, cache)).toEqual({ known: false, valid: false });
    // Back to the bytes of the last valid load: known again.
    await writeFile(flow, text);
    expect(await load(dir, cache)).toEqual({ known: 'record', valid: true });
    // Another path (a part of the same files) is its own load.
    expect((await load(join(dir, 'flows'), cache)).known).not.toBe('record');
  });

  it('is not said from a record another version of the loader wrote (it may judge the files otherwise)', async () => {
    const dir = await copyExamples();
    const file = join(await tempDir('packsync-known-other-'), 'cache');
    expect(await load(dir, new ManifestCache(file))).toEqual({ known: 'checks', valid: true });
    expect(await load(dir, new ManifestCache(file))).toEqual({ known: 'record', valid: true });
    const [, key] = (await readFile(`${file}.valid`, 'utf8')).trim().split(' ');
    await writeFile(`${file}.valid`, `${'0'.repeat(64)} ${key}\n`);
    expect(await load(dir, new ManifestCache(file))).toEqual({ known: 'checks', valid: true });
  });

  it('is never said for a repository with a symlink the walk refuses (invalid once the walk’s problem is added), changed or not', async () => {
    const dir = await copyExamples();
    const outside = await tempDir('packsync-known-outside-');
    await writeFile(join(outside, 'x.yaml'), 'apiVersion: packsync.io/v1\nkind: Flow\nmetadata:\n  name: outside\nspec:\n  app: 7-Zip\n');
    const file = join(await tempDir('packsync-known-link-'), 'cache');
    const cache = new ManifestCache(file);
    expect(await load(dir, cache)).toEqual({ known: 'checks', valid: true });
    await symlink(join(outside, 'x.yaml'), join(dir, 'flows', 'link.yaml'));
    // The same files as the last valid load (the link is not read): still not said valid.
    expect(await load(dir, cache)).toEqual({ known: false, valid: false });
    const flow = join(
      dir,
      'flows',
      (await readdir(join(dir, 'flows'))).find((f) => f !== 'link.yaml')!,
    );
    await writeFile(flow, `${await readFile(flow, 'utf8')}# changed\n`);
    expect(await load(dir, cache)).toEqual({ known: false, valid: false });
    expect(await load(dir, new ManifestCache(file))).toEqual({ known: false, valid: false });
  });

  it('is never said by the record without a cache (only once the checks pass)', async () => {
    const dir = await copyExamples();
    const said: string[] = [];
    await loadManifests(dir, { now: BEFORE, onKnownValid: (by) => said.push(by) });
    await loadManifests(dir, { now: BEFORE, onKnownValid: (by) => said.push(by) });
    expect(said).toEqual(['checks', 'checks']);
  });
});
