/** Finding manifest files: every *.yaml / *.yml below a directory, in a stable order. */
import { readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isInside } from '../api/content-files.js';

export interface WalkOptions {
  /** Follow every symlink, wherever it leads (tests only; the commands keep to `boundary`). */
  followSymlinks: boolean;
  /**
   * The repository root: a symlinked file or folder whose target lies inside it is followed like
   * a plain one; one leading outside it (or broken) is reported, never skipped silently (a file
   * left out of the desired set would read as removed, and `--prune` would delete its objects).
   */
  boundary?: string;
}

/** A symlink the walk refused: reported as an error naming the file and why. */
export interface SkippedLink {
  rel: string;
  reason: string;
}

const YAML_FILE = /\.ya?ml$/i;

/** Folders that never hold manifests: hidden ones (`.git`, `.github`, `.packsync`) and `node_modules`. */
function skipped(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/**
 * Relative paths (forward slashes) of every YAML file below `root`, sorted. Hidden files are
 * skipped like hidden folders (`.gitlab-ci.yml` is not a manifest). Symlinks are followed while
 * they stay inside `boundary` (each real directory visited once); see `listManifestFiles`.
 */
export async function listYamlFiles(root: string, opts: WalkOptions): Promise<string[]> {
  return (await listManifestFiles(root, opts)).files;
}

/** `listYamlFiles`, with the symlinks it refused (docs/manifests.md "Files"). */
export async function listManifestFiles(root: string, opts: WalkOptions): Promise<{ files: string[]; links: SkippedLink[] }> {
  const out: string[] = [];
  const links: SkippedLink[] = [];
  const ignored = await readIgnore(root);
  const isIgnored = (rel: string): boolean => ignored.some((p) => rel === p || rel.startsWith(`${p}/`));
  const seen = new Set<string>([await realpath(root)]);
  const boundary = opts.boundary === undefined ? undefined : await realpath(opts.boundary).catch(() => opts.boundary!);
  const visit = async (dir: string, rel: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      if (skipped(e.name)) continue;
      const abs = join(dir, e.name);
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      if (isIgnored(relPath)) continue;
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        if (!opts.followSymlinks && boundary === undefined) continue;
        const link = await followLink(abs, opts.followSymlinks ? undefined : boundary);
        if ('reason' in link) {
          if (YAML_FILE.test(e.name) || (link.dir && (await holdsYaml(abs)))) links.push({ rel: relPath, reason: link.reason });
          continue;
        }
        isDir = link.dir;
        isFile = !link.dir;
      }
      if (isDir) {
        const real = await realpath(abs);
        if (seen.has(real)) continue;
        seen.add(real);
        await visit(abs, relPath);
      } else if (isFile && YAML_FILE.test(e.name)) {
        out.push(relPath);
      }
    }
  };
  await visit(root, '');
  return { files: out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), links };
}

/** Where a symlink leads: a folder or file to follow, or why not (broken, outside `boundary`). */
async function followLink(abs: string, boundary: string | undefined): Promise<{ dir: boolean } | { reason: string; dir: boolean }> {
  const target = await readlink(abs).catch(() => '?');
  const real = await realpath(abs).catch(() => undefined);
  const st = real === undefined ? undefined : await stat(real).catch(() => undefined);
  if (real === undefined || !st) return { reason: `a broken symlink (to ${target})`, dir: false };
  const dir = st.isDirectory();
  if (boundary !== undefined && !isInside(boundary, real)) {
    return {
      reason: `a symlink to ${target}, outside the repository: manifests are read only from inside it (copy the file in, or keep the shared folder inside the repository)`,
      dir,
    };
  }
  return { dir };
}

/** Whether a folder (a symlink the walk will not follow) holds any YAML file. */
async function holdsYaml(dir: string): Promise<boolean> {
  return listManifestFiles(dir, { followSymlinks: false }).then(
    (r) => r.files.length > 0,
    () => false,
  );
}

/**
 * True when the walk from `root` never reaches `rel` (a relative path below it): a hidden or
 * `node_modules` folder on the way, or a `.packsyncignore` entry at the root covering it.
 */
export async function walkSkips(root: string, rel: string): Promise<boolean> {
  const parts = rel.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  if (parts.some(skipped)) return true;
  const path = parts.join('/');
  const ignored = await readIgnore(root);
  return ignored.some((p) => path === p || path.startsWith(`${p}/`));
}

/**
 * `.packsyncignore` at the root: one relative path per line (a folder or a file, `#` comments),
 * skipped by the walk. Plain prefixes, not globs: what a repository keeps beside its manifests
 * (test fixtures, `examples/invalid/`) is a handful of folders.
 */
async function readIgnore(root: string): Promise<string[]> {
  const text = await readFile(join(root, '.packsyncignore'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim().replace(/^\.\//, '').replace(/\/+$/, ''))
    .filter((l) => l.length > 0 && !l.split('/').includes('..'));
}
