/**
 * Where export writes. Export never overwrites silently: a directory that already holds anything
 * (hand edits, a managed repository) is refused unless the operator says `--force`.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PacksyncError } from '../util/errors.js';

/** Thrown before any API call or write; the CLI prints it with its code and exits 1. */
export class TargetDirError extends PacksyncError<'EXPORT_TARGET'> {
  constructor(message: string) {
    super('EXPORT_TARGET', message);
  }
}

/** Entries that do not make a directory "non-empty": a fresh clone of an empty repository is the usual target. */
const IGNORED = new Set(['.git']);

export async function checkTargetDir(dir: string, force: boolean): Promise<void> {
  let entries: string[];
  try {
    const st = await stat(dir);
    if (!st.isDirectory()) throw new TargetDirError(`${dir} exists and is not a directory; nothing was written`);
    entries = (await readdir(dir)).filter((e) => !IGNORED.has(e));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (entries.length > 0 && !force) {
    const shown = entries.sort().slice(0, 3).join(', ') + (entries.length > 3 ? ', …' : '');
    throw new TargetDirError(
      `${dir} is not empty (${shown}); refusing to write into it. Choose an empty --out directory, or pass --force to write there ` +
        '(existing files are kept; objects packsync already owns are skipped). Nothing was written',
    );
  }
}

/**
 * Writes `name` in `dir` without ever replacing a file: when the name is taken (`--force` into a
 * repository that has its own `packages.yaml`), `packages-2.yaml`, `packages-3.yaml`… are tried.
 * Returns the name written.
 */
export async function writeNewFile(dir: string, name: string, text: string): Promise<string> {
  const dot = name.lastIndexOf('.');
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${name.slice(0, dot)}-${n}${name.slice(dot)}`;
    try {
      // 'wx' fails when the file exists, so a file appearing meanwhile is not clobbered either.
      await writeFile(join(dir, candidate), text, { flag: 'wx' });
      return candidate;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}
