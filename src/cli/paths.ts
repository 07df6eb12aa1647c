/**
 * How commands name manifest files in FILE:LINE:COL: relative to the working directory (absolute
 * when outside it), the same for validate, plan and apply, so an editor or terminal opens the file
 * from where the command ran. The loader names files relative to the manifest root it was given
 * (the root is what the state's prune scope is keyed on), so plan and apply convert for display
 * only; the plan itself, the saved plan and the state keep the loader's names.
 */
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Problem } from '../manifests/model.js';
import type { Plan } from '../plan/types.js';

/** `abs` relative to `cwd`, or absolute when it lies outside it. */
export function shownPath(cwd: string, abs: string): string {
  const rel = relative(cwd, abs);
  if (rel === '') return '.';
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? abs : rel;
}

/** The folder the loader names files against for `target` (a directory, or a file's folder). */
export async function manifestRoot(target: string): Promise<string> {
  const st = await stat(target).catch(() => undefined);
  return st?.isDirectory() ? target : dirname(target);
}

/** Turns a loader file name (relative to `root`, or absolute) into the name a person sees. */
export type ShowFile = (file: string) => string;

export function showFile(cwd: string, root: string): ShowFile {
  // Once per file: a plan names each file for every object in it (19,750 objects in 3,770 files
  // at fleet-cli's size), and resolve plus relative was ~40 ms of a no-op's profile.
  const known = new Map<string, string>();
  return (file) => {
    let shown = known.get(file);
    if (shown === undefined) {
      shown = shownPath(cwd, resolve(root, file));
      known.set(file, shown);
    }
    return shown;
  };
}

export function shownProblems(problems: readonly Problem[], show: ShowFile): Problem[] {
  return problems.map((p) => ({ ...p, file: show(p.file) }));
}

/**
 * A copy of `plan` for output whose object sources name files as `show` does. An object whose file
 * is already named so (run from the repository's root) is not copied: 26,000 copies of patch-tuesday's
 * plan were made to change nothing.
 */
export function shownPlan(plan: Plan, show: ShowFile): Plan {
  return {
    ...plan,
    objects: plan.objects.map((o) => {
      if (!o.source) return o;
      const file = show(o.source.file);
      return file === o.source.file ? o : { ...o, source: { ...o.source, file } };
    }),
  };
}
