/**
 * Custom package content: a directory inside the repository whose files are uploaded. Checked here
 * so that a bad path fails validation (all-or-nothing per revision) instead of failing mid-apply,
 * and digested so the planner can tell when the content changed.
 *
 * The file list follows the uploader's rules (`src/api/upload.ts`): every regular file, sorted
 * byte-wise by relative path; a symlink is followed only while its target stays inside the
 * content directory.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, posix, relative, resolve, sep } from 'node:path';

export interface ContentInfo {
  /** Absolute path of the content directory. */
  dir: string;
  /** `sha256:` + hex over every file's relative path, size and sha256, in upload order. */
  digest: string;
  files: number;
  bytes: number;
}

export type ContentCheck = { ok: true; content: ContentInfo } | { ok: false; rule: string; message: string };

interface Entry {
  rel: string;
  abs: string;
  size: number;
}

class ContentProblem extends Error {
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(message);
  }
}

export function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * Checks `content` (as written in the manifest) against the repository at `root`, whose real
 * path is `rootReal`, and digests it.
 */
export async function inspectContent(root: string, rootReal: string, content: string): Promise<ContentCheck> {
  const shown = JSON.stringify(content);
  const slashed = content.replace(/\\/g, '/');
  if (isAbsolute(content) || /^[A-Za-z]:/.test(content) || slashed.startsWith('/')) {
    return { ok: false, rule: 'content.outside-repo', message: `content ${shown} must be a path relative to the repository root, not an absolute path` };
  }
  const normal = posix.normalize(slashed);
  if (normal === '..' || normal.startsWith('../')) {
    return { ok: false, rule: 'content.outside-repo', message: `content ${shown} leaves the repository ("..")` };
  }
  const abs = resolve(root, normal);
  let real: string;
  try {
    real = await realpath(abs);
  } catch {
    return { ok: false, rule: 'content.missing', message: `content directory ${shown} does not exist (looked for ${abs})` };
  }
  if (!isInside(rootReal, real)) {
    return { ok: false, rule: 'content.outside-repo', message: `content ${shown} resolves to ${real}, outside the repository (a symlink leaves it)` };
  }
  if (real === rootReal) {
    return { ok: false, rule: 'content.is-root', message: `content ${shown} is the repository root; give a subdirectory (the whole repository, .git included, would be uploaded)` };
  }
  if (!(await stat(real)).isDirectory()) {
    return { ok: false, rule: 'content.not-directory', message: `content ${shown} is a file; it must be a directory (every file in it is uploaded)` };
  }
  let entries: Entry[];
  try {
    entries = await listFiles(real);
  } catch (e) {
    if (e instanceof ContentProblem) return { ok: false, rule: e.rule, message: `content ${shown}: ${e.message}` };
    throw e;
  }
  if (entries.length === 0) {
    return { ok: false, rule: 'content.empty', message: `content directory ${shown} has no files; the service cannot finalize an empty upload` };
  }
  const outer = createHash('sha256');
  let bytes = 0;
  for (const f of entries) {
    outer.update(`${f.rel}\0${f.size}\0${await sha256File(f.abs)}\n`);
    bytes += f.size;
  }
  return { ok: true, content: { dir: abs, digest: `sha256:${outer.digest('hex')}`, files: entries.length, bytes } };
}

async function listFiles(root: string): Promise<Entry[]> {
  const out: Entry[] = [];
  const walk = async (dir: string, rel: string, ancestors: ReadonlySet<string>): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const abs = join(dir, e.name);
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      let target = abs;
      if (e.isSymbolicLink()) {
        try {
          target = await realpath(abs);
        } catch {
          throw new ContentProblem('content.symlink', `${relPath} is a broken symlink`);
        }
        if (!isInside(root, target)) {
          throw new ContentProblem('content.symlink', `${relPath} is a symlink to ${relative(root, target)}, outside the content directory`);
        }
      }
      const st = e.isSymbolicLink() ? await stat(target) : e;
      if (st.isDirectory()) {
        if (ancestors.has(target)) throw new ContentProblem('content.symlink', `${relPath} is a symlink loop`);
        await walk(target, relPath, new Set([...ancestors, target]));
      } else if (st.isFile()) {
        out.push({ rel: relPath, abs: target, size: (await stat(target)).size });
      } else {
        throw new ContentProblem('content.special-file', `${relPath} is not a regular file`);
      }
    }
  };
  await walk(root, '', new Set([root]));
  return out.sort((a, b) => byteCompare(a.rel, b.rel));
}

/** Streams the file: content can be gigabytes, never read it whole. */
function sha256File(file: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const h = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => h.update(chunk))
      .on('error', reject)
      .on('end', () => resolvePromise(h.digest('hex')));
  });
}
