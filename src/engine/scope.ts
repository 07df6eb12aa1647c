/**
 * The prune scope of an apply (design §4): each owned object remembers the manifest file it was
 * applied from, and prune deletes only what came from files under the applied path. Inside a git
 * work tree, files are keyed relative to its root, so the same repository checked out elsewhere (a
 * CI runner, the agent's clone) keeps its scope; outside git they are absolute paths.
 */
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { PlanScope } from '../plan/types.js';

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

export async function planScope(appliedPath: string, desiredRoot: string): Promise<PlanScope> {
  const abs = resolve(appliedPath);
  const single = !(await stat(abs)).isDirectory();
  const dir = single ? dirname(abs) : abs;
  const root = await gitRoot(dir);
  if (root === null) {
    return { rootKey: slash(desiredRoot), path: slash(abs), single, whole: !single };
  }
  const rel = (p: string): string => {
    const r = relative(root, p);
    return r === '' || isAbsolute(r) ? '' : slash(r);
  };
  const path = rel(abs);
  return { rootKey: rel(desiredRoot), path, single, whole: !single && path === '' };
}
