/**
 * The prune scope of an apply (docs/reconcile.md): each owned object remembers the manifest file it was
 * applied from, and prune deletes only what came from files under the applied path. Inside a git
 * work tree, files are keyed relative to its root, so the same repository checked out elsewhere (a
 * CI runner, the agent's clone) keeps its scope; outside git they are absolute paths.
 */
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { PlanScope } from '../plan/types.js';
import { Turns } from '../util/turns.js';

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

async function gitRoot(from: string): Promise<string | null> {
  for (let dir = from; ; dir = dirname(dir)) {
    if (await exists(resolve(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

const slash = (p: string): string => (sep === '/' ? p : p.split(sep).join('/'));

/** What the pass read and what the state owns, for the files prune must leave alone. */
export interface ScopeFiles {
  /** Manifest files read (relative to the desired root). */
  read: readonly string[];
  /** File keys recorded by owned objects. */
  owned: Iterable<string | undefined>;
}

export async function planScope(appliedPath: string, desiredRoot: string, files?: ScopeFiles): Promise<PlanScope> {
  const abs = resolve(appliedPath);
  const single = !(await stat(abs)).isDirectory();
  const dir = single ? dirname(abs) : abs;
  const root = await gitRoot(dir);
  if (root === null) {
    const scope = { rootKey: slash(desiredRoot), path: slash(abs), single, whole: !single };
    return withLeftOut(
      scope,
      (key) => key,
      files,
      (f) => slash(resolve(desiredRoot, f)),
    );
  }
  const rel = (p: string): string => {
    const r = relative(root, p);
    return r === '' || isAbsolute(r) ? '' : slash(r);
  };
  const path = rel(abs);
  const scope = { rootKey: rel(desiredRoot), path, single, whole: !single && path === '' };
  return withLeftOut(
    scope,
    (key) => (isAbsolute(key) ? key : resolve(root, key)),
    files,
    (f) => rel(resolve(desiredRoot, f)),
  );
}

/**
 * Owned objects' files that exist on disk but were not read this pass (a file `.packsyncignore`
 * lists, a hidden folder): prune leaves their objects alone (docs/manifests.md "Files"). A pass
 * works this out while its reads are in flight, so the loops give way to the event loop every
 * millisecond (util/turns.ts).
 */
async function withLeftOut(
  scope: PlanScope,
  onDisk: (key: string) => string,
  files: ScopeFiles | undefined,
  keyOf: (read: string) => string,
): Promise<PlanScope> {
  if (!files || scope.single) return scope;
  const turns = new Turns();
  const read = new Set<string>();
  for (const f of files.read) {
    read.add(keyOf(f));
    if (turns.due()) await turns.next();
  }
  const leftOut = new Set<string>();
  const seen = new Set<string | undefined>();
  for (const key of files.owned) {
    if (seen.has(key)) continue;
    seen.add(key);
    if (turns.due()) await turns.next();
    if (key === undefined || read.has(key)) continue;
    if (await exists(onDisk(key))) leftOut.add(key);
  }
  return leftOut.size > 0 ? { ...scope, leftOut } : scope;
}
