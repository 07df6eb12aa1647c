/**
 * The manifest cache (issue #12, fleet-10x no-op): a file whose bytes did not change is not parsed
 * again, and the cache never changes a result. "Parsed" is counted at the YAML composer, the step a
 * hit skips; results are compared with a load that has no cache at all.
 */
import { appendFile, cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { spyParses } from '../support/parse-spy.js';
import { loadManifests } from '../../src/manifests/load.js';
import type { LoadResult } from '../../src/manifests/load.js';
import { CACHE_FILE, ManifestCache, cacheIdentity, identity, jsonExact, sha256 } from '../../src/manifests/parse-cache.js';
import { tempDir } from '../support/temp-dir.js';

const EXAMPLES = fileURLToPath(new URL('../../examples', import.meta.url));

afterEach(() => {
  vi.restoreAllMocks();
});

async function examples(): Promise<string> {
  const dir = await tempDir('packsync-cache-repo-');
  await cp(EXAMPLES, dir, { recursive: true });
  return dir;
}

/** A cache kept in a state directory of its own. */
async function diskCache(): Promise<ManifestCache> {
  return new ManifestCache(join(await tempDir('packsync-cache-state-'), CACHE_FILE));
}

/** Loads `repo` and counts the files parsed (by either parser: test/support/parse-spy.ts). */
async function load(repo: string, cache?: ManifestCache): Promise<{ result: LoadResult; composed: number; calls: number }> {
  const parses = spyParses();
  try {
    const result = await loadManifests(repo, cache ? { cache } : {});
    return { result, composed: parses.files(), calls: parses.calls() };
  } finally {
    parses.restore();
  }
}

describe('a load with the manifest cache', () => {
  it('parses no file whose bytes are unchanged, and gives the same result as a load without it', async () => {
    const repo = await examples();
    const cache = new ManifestCache();
    const uncached = await load(repo);
    const first = await load(repo, cache);
    const second = await load(repo, cache);
    expect(first.composed).toBe(uncached.result.files.length);
    expect(second.composed).toBe(0);
    expect(second.result).toEqual(uncached.result);
    expect(first.result).toEqual(uncached.result);
  });

  it('parses again exactly the file in which one byte changed', async () => {
    const repo = await examples();
    const cache = new ManifestCache();
    await load(repo, cache);
    const file = join(repo, 'deployments', 'pwsh.yaml');
    const text = await readFile(file, 'utf8');
    expect(text).toContain('state: pending');
    await writeFile(file, text.replace('state: pending', 'state: running'));
    const after = await load(repo, cache);
    expect(after.composed).toBe(1);
    expect(after.result).toEqual((await load(repo)).result);
    expect(after.result.desired!.deployments.find((d) => d.metadata.name === 'pwsh')!.spec.state).toBe('running');
  });

  it('is read by a new process (a new cache on the same file) and serves every file from it', async () => {
    const repo = await examples();
    const cache = await diskCache();
    const first = await load(repo, cache);
    const again = await load(repo, new ManifestCache(cache.file));
    expect(again.composed).toBe(0);
    expect(again.result).toEqual(first.result);
  });

  it('read back from its file, gives text outside ASCII exactly (regression: the file is read as bytes and decoded entry by entry)', async () => {
    const repo = await examples();
    const file = join(repo, 'packages', 'contoso-agent.yaml');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace('description: written by the installer', 'description: "Café ✓ 日本語 — 🚀"'),
    );
    const cache = await diskCache();
    const first = await load(repo, cache);
    const again = await load(repo, new ManifestCache(cache.file));
    expect(again.composed).toBe(0);
    expect(again.result).toEqual(first.result);
    expect(JSON.stringify(again.result.desired)).toContain('Café ✓ 日本語 — 🚀');
  });

  it('with a file, keeps its entries there between loads, not in memory (the agent heap is capped)', async () => {
    const repo = await examples();
    const cache = await diskCache();
    await load(repo, cache);
    expect((await load(repo, cache)).composed).toBe(0);
    await rm(cache.file!);
    const after = await load(repo, cache);
    expect(after.composed).toBe(after.result.files.length);
    expect((await load(repo, cache)).composed).toBe(0);
  });

  it('ignores a cache file written by another packsync, loader or schema set, and rewrites it', async () => {
    const repo = await examples();
    const cache = await diskCache();
    await load(repo, cache);
    const written = await readFile(cache.file!, 'utf8');
    const nl = written.indexOf('\n');
    const header = JSON.parse(written.slice(0, nl)) as { identity: string };
    // A well-formed file whose body digest holds: only its identity differs.
    await writeFile(cache.file!, `${JSON.stringify({ ...header, identity: '0'.repeat(64) })}${written.slice(nl)}`);
    const other = await load(repo, new ManifestCache(cache.file));
    expect(other.composed).toBe(other.result.files.length);
    expect(await readFile(cache.file!, 'utf8')).toBe(written);
  });

  it('has an identity that changes with the packsync version, the schemas, the loader code (kinds/ too) and the Node.js version', () => {
    const base = { packsync: '1.0.0', yaml: '2.9.1', ajv: '8.20.0', schemas: { Flow: { type: 'object' } }, code: ['load.js 1'] };
    const id = cacheIdentity(base);
    expect(cacheIdentity({ ...base })).toBe(id);
    expect(cacheIdentity({ ...base, packsync: '1.0.1' })).not.toBe(id);
    expect(cacheIdentity({ ...base, schemas: { Flow: { type: 'object', required: ['spec'] } } })).not.toBe(id);
    expect(cacheIdentity({ ...base, code: ['load.js 2'] })).not.toBe(id);
    expect(cacheIdentity({ ...base, yaml: '2.9.2' })).not.toBe(id);
    // Time zones come from the runtime's Intl data (window rules), and a kept load's result depends on them.
    expect(cacheIdentity({ ...base, node: 'v20.19.0' })).not.toBe(cacheIdentity({ ...base, node: 'v24.11.0' }));
    expect(identity()).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['garbage', (_text: string): string => 'not a cache\n{]'],
    ['a torn write', (text: string): string => text.slice(0, Math.floor(text.length / 2))],
    ['one changed byte in an entry', (text: string): string => text.replace('"pwsh"', '"pwsx"')],
  ])('ignores a corrupt cache file (%s) and rewrites it', async (_what, corrupt) => {
    const repo = await examples();
    const cache = await diskCache();
    const expected = (await load(repo, cache)).result;
    const written = await readFile(cache.file!, 'utf8');
    const damaged = corrupt(written);
    expect(damaged).not.toBe(written);
    await writeFile(cache.file!, damaged);
    const reread = await load(repo, new ManifestCache(cache.file));
    expect(reread.composed).toBe(reread.result.files.length);
    expect(reread.result).toEqual(expected);
    expect(await readFile(cache.file!, 'utf8')).toBe(written);
    expect((await load(repo, new ManifestCache(cache.file))).composed).toBe(0);
  });

  it('treats an entry not of the shape it writes as a miss, not a failed load', async () => {
    const repo = await examples();
    const cache = await diskCache();
    const expected = (await load(repo, cache)).result;
    const written = await readFile(cache.file!, 'utf8');
    const nl = written.indexOf('\n');
    const lines = written.slice(nl + 1).split('\n');
    lines[0] = `${lines[0]!.slice(0, 64)} {"x":1}`;
    lines[1] = `${lines[1]!.slice(0, 64)} [[0,1,1,[],{"kind":"Flow","spec":{"app":"a"}}]]`;
    const body = lines.join('\n');
    const header = { ...(JSON.parse(written.slice(0, nl)) as object), body: sha256(body) };
    await writeFile(cache.file!, `${JSON.stringify(header)}\n${body}`);
    const reread = await load(repo, new ManifestCache(cache.file));
    expect(reread.composed).toBe(2);
    expect(reread.result).toEqual(expected);
  });

  it('never serves a file that had a problem of its own; the problems are found again each time', async () => {
    const repo = await examples();
    const bad = join(repo, 'flows', 'pwsh.yaml');
    await appendFile(bad, '  unknownField: 1\n');
    const cache = await diskCache();
    const first = await load(repo, cache);
    expect(first.result.problems.filter((p) => p.file === 'flows/pwsh.yaml' && p.severity === 'error')).not.toEqual([]);
    const second = await load(repo, cache);
    // Every other file came from the cache; the bad one was parsed again (and composed again for its problem's position).
    expect(second.composed).toBe(first.composed - (first.result.files.length - 1));
    expect(second.result.problems).toEqual(first.result.problems);
    const kept = await readFile(cache.file!, 'utf8');
    expect(kept).not.toContain(sha256(await readFile(bad)));
    expect(kept).toContain(sha256(await readFile(join(repo, 'flows', 'seven-zip.yaml'))));
  });

  it('reports problems of the cross-document rules at the same line and column, with and without it', async () => {
    const repo = await examples();
    // Each file is valid on its own; together: a name defined twice, a reference to no package, and
    // a YAML error in a third file (which is never cached).
    const dup = await readFile(join(repo, 'flows', 'pwsh.yaml'), 'utf8');
    await writeFile(join(repo, 'flows', 'pwsh-copy.yaml'), `# a copy\n\n${dup}`);
    const dep = join(repo, 'deployments', 'seven-zip.yaml');
    await writeFile(dep, (await readFile(dep, 'utf8')).replace(/package: \S+/, 'package: no-such-package'));
    await writeFile(join(repo, 'broken.yaml'), 'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata: {name: [x\n');
    const uncached = (await load(repo)).result;
    const rules = uncached.problems.map((p) => p.rule);
    expect(rules).toEqual(expect.arrayContaining(['manifest.duplicate-name', 'yaml.syntax']));
    expect(uncached.problems.some((p) => p.file === 'deployments/seven-zip.yaml' && p.line > 1)).toBe(true);
    const cache = new ManifestCache();
    await load(repo, cache);
    const hit = await load(repo, cache);
    // Both loads compose again the files a problem needs a position in; only broken.yaml is parsed as a file.
    expect(hit.calls).toBe((await load(repo)).calls - (uncached.files.length - 1));
    expect(hit.result.problems).toEqual(uncached.problems);
  });

  it('keeps only the files of the last load', async () => {
    const repo = await examples();
    const cache = await diskCache();
    await load(repo, cache);
    const gone = join(repo, 'flows', 'pwsh.yaml');
    const goneSha = sha256(await readFile(gone));
    expect(await readFile(cache.file!, 'utf8')).toContain(goneSha);
    await writeFile(gone, '# emptied\n');
    await load(repo, cache);
    expect(await readFile(cache.file!, 'utf8')).not.toContain(goneSha);
  });
});

describe('jsonExact', () => {
  it('accepts what JSON gives back unchanged and refuses the rest', () => {
    expect(jsonExact({ a: [1, 'x', true, null, { b: 2.5 }] })).toBe(true);
    for (const v of [Infinity, NaN, -0, undefined, new Date(0), [1, , 3], { x: -Infinity }, JSON.parse('{"__proto__": 1}')]) {
      expect(jsonExact(v)).toBe(false);
    }
  });
});
