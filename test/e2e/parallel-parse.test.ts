/**
 * A cold load parsed on two threads (src/manifests/parallel-parse.ts) must load exactly what one
 * thread loads (the files out of the plain style: plain ones are read by the fast path on this thread): the same desired set, the same problems at the same lines, the same files. Run on
 * the build (the worker is dist/src/manifests/parse-worker.js; from src under vitest there is no
 * compiled worker, and the load falls back to one thread).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type * as LoadModule from '../../src/manifests/load.js';
import type * as ParallelModule from '../../src/manifests/parallel-parse.js';
import type * as CacheModule from '../../src/manifests/parse-cache.js';
import { writeFleet } from '../support/fleet.js';

type Load = typeof LoadModule;
type Cache = typeof CacheModule;
type Parallel = typeof ParallelModule;
const built = (path: string): Promise<unknown> => import(new URL(`../../dist/src/manifests/${path}`, import.meta.url).href);
const { loadManifests } = (await built('load.js')) as Load;
const { ManifestCache } = (await built('parse-cache.js')) as Cache;
const { PARALLEL_MIN_FILES } = (await built('parallel-parse.js')) as Parallel;

/** What a load gave, without what differs by design between two loads (nothing should). */
function outcome(r: Awaited<ReturnType<Load['loadManifests']>>): string {
  return JSON.stringify({ desired: r.desired, problems: r.problems, files: r.files, documents: r.documents });
}

describe('a cold load on two threads', () => {
  it('loads what one thread loads, problems included, and the worker did parse its share', async () => {
    const fleet = await writeFleet({ flows: PARALLEL_MIN_FILES + 100, deploymentsPerFlow: 2, packages: 40 });
    // Out of the plain style (a nested flow mapping; a one-line flow mapping of scalars is read by the
    // fast path, plain-yaml.ts), so the fast path leaves them to the yaml package and the worker shares them.
    for (const f of await readdir(join(fleet.dir, 'flows'))) {
      const path = join(fleet.dir, 'flows', f);
      await writeFile(
        path,
        (await readFile(path, 'utf8')).replace(/^metadata:\n  name: (\S+)$/gm, 'metadata: {name: $1, annotations: {team: fleet}}'),
      );
    }
    // One file with a schema problem and one that is not YAML: problems are computed on this thread.
    await writeFile(
      join(fleet.dir, 'flows', 'zz-bad.yaml'),
      'apiVersion: packsync.io/v1\nkind: Flow\nmetadata:\n  name: bad\nspec:\n  app: 7-Zip\n  nonsense: 1\n',
    );
    await writeFile(join(fleet.dir, 'flows', 'zz-broken.yaml'), 'apiVersion: packsync.io/v1\nkind: [Flow\n');
    const one = await loadManifests(fleet.dir, {});
    const cache = new ManifestCache();
    const two = await loadManifests(fleet.dir, { cache });
    expect(cache.primed).toBeGreaterThan(PARALLEL_MIN_FILES / 3);
    expect(outcome(two)).toBe(outcome(one));
    expect(one.problems.map((p) => `${p.file}:${p.line}:${p.rule}`).length).toBeGreaterThanOrEqual(2);
    // Warm: every file from the cache, nothing primed again, the same result.
    const warm = await loadManifests(fleet.dir, { cache });
    expect(outcome(warm)).toBe(outcome(one));
  });
});
