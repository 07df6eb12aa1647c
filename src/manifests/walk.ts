/** Finding manifest files: every *.yaml / *.yml below a directory, in a stable order. */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface WalkOptions {
  followSymlinks: boolean;
}

const YAML_FILE = /\.ya?ml$/i;

/** Folders that never hold manifests: hidden ones (`.git`, `.github`, `.packsync`) and `node_modules`. */
function skipped(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/**
 * Relative paths (forward slashes) of every YAML file below `root`, sorted. Hidden files are
 * skipped like hidden folders (`.gitlab-ci.yml` is not a manifest). Symlinks are skipped unless
 * `followSymlinks`, and then each real directory is visited once.
 */
export async function listYamlFiles(root: string, opts: WalkOptions): Promise<string[]> {
  const out: string[] = [];
  const ignored = await readIgnore(root);
  const isIgnored = (rel: string): boolean => ignored.some((p) => rel === p || rel.startsWith(`${p}/`));
  const seen = new Set<string>([await realpath(root)]);
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
        if (!opts.followSymlinks) continue;
        const st = await stat(abs).catch(() => undefined);
        if (!st) continue;
        isDir = st.isDirectory();
        isFile = st.isFile();
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
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
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
