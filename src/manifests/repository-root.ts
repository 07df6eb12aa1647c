/**
 * Which repository a manifest folder belongs to, and the folder that holds a set of folders:
 * `validate PATH...` reads the whole repository of the paths it is given.
 */
import { stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { isInside } from '../api/content-files.js';
import { walkSkips } from './walk.js';

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/** The deepest folder holding all of `dirs` (absolute). */
export function commonParent(dirs: readonly string[]): string {
  let common = dirs[0] ?? resolve('.');
  for (const d of dirs.slice(1)) {
    while (!isInside(common, d)) common = dirname(common);
  }
  return common;
}

/**
 * The repository a folder belongs to: the nearest folder, from `dir` upwards, holding `.git` or
 * `.packsyncignore`; else `dir` itself. A folder that repository does not walk (listed in its
 * `.packsyncignore`, hidden) is a repository of its own, as each of `examples/invalid/*` is.
 */
export async function repositoryRoot(dir: string): Promise<string> {
  return (await markedRoot(dir)) ?? dir;
}

/** `repositoryRoot`, or undefined when no folder from `dir` upwards holds `.git` or `.packsyncignore`. */
export async function markedRoot(dir: string): Promise<string | undefined> {
  for (let d = dir; ; d = dirname(d)) {
    if ((await exists(join(d, '.git'))) || (await exists(join(d, '.packsyncignore')))) {
      return d !== dir && (await walkSkips(d, relative(d, dir))) ? dir : d;
    }
    if (dirname(d) === d) return undefined;
  }
}
