/**
 * The one listing of a package content directory. The uploader (`upload.ts`) sends exactly these
 * files in this order, and the manifest layer (`manifests/content.ts`) digests exactly these files
 * in this order, so the digest the planner compares always describes what an upload sends. It lives
 * in `src/api/`, the lowest layer, because manifests may import the API client's modules but never
 * the reverse (docs/architecture.md).
 *
 * Rules (as `Publish-RobopackPackage.ps1` lists content, docs/api-model.md): every regular file below
 * the directory, sorted byte-wise by relative path with `/` separators (a locale-independent order,
 * so two machines agree on every `index`); empty directories contribute nothing; a symlink is
 * followed only while its target stays inside the directory; one that leaves it, dangles or loops
 * is an error, as is any other special file (a socket or a FIFO has no content to upload).
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { PacksyncError } from '../util/errors.js';

/**
 * Which rule content broke; the manifest layer reports the listing ones as validation rules.
 * `content.changed` is the uploader's: a file changed size between listing and sending.
 */
export type ContentRule =
  'content.unreadable' | 'content.not-directory' | 'content.symlink' | 'content.special-file' | 'content.changed' | 'content.credentials';

/**
 * Names that never belong in a package: a git directory (or a worktree's `.git` file) and the files
 * git and curl read credentials from. A content folder holding one is refused whole, at validation
 * and again by the uploader (docs/manifests.md, "Content"): CI checkouts keep their token there.
 */
const CREDENTIAL_NAMES = new Set(['.git', '.git-credentials', '.netrc', '_netrc']);

/** One line of a content digest: what `manifests/content.ts` digests and the uploader checks, per file. */
export function digestLine(relPath: string, size: number, sha256Hex: string): string {
  return `${relPath}\0${size}\0${sha256Hex}\n`;
}

export class ContentError extends PacksyncError<'UPLOAD_INVALID_CONTENT'> {
  /**
   * @param detail the problem relative to the content directory (`a/b is a broken symlink`), for
   *   callers that name the directory themselves
   */
  constructor(
    readonly rule: ContentRule,
    readonly detail: string,
    message = `content file ${detail}`,
    options?: { cause?: unknown },
  ) {
    super('UPLOAD_INVALID_CONTENT', message, options);
  }
}

export interface ContentFile {
  /** Relative to the content root, forward slashes. */
  relPath: string;
  /** Where to read the bytes (a symlink's target inside the root). */
  absPath: string;
  size: number;
}

/** True when `p` is `root` or below it (both absolute, already resolved). */
export function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Every file below `dir` by the rules above, in upload order. */
export async function listContentFiles(dir: string): Promise<ContentFile[]> {
  let root: string;
  try {
    root = await realpath(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new ContentError('content.unreadable', `cannot be read (${code})`, `content directory ${dir} cannot be read (${code})`, {
      cause: e,
    });
  }
  if (!(await stat(root)).isDirectory())
    throw new ContentError('content.not-directory', 'is not a directory', `content path ${dir} is not a directory`);
  const out: ContentFile[] = [];

  const walk = async (absDir: string, rel: string, ancestors: ReadonlySet<string>): Promise<void> => {
    for (const e of await readdir(absDir, { withFileTypes: true })) {
      const abs = join(absDir, e.name);
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      if (CREDENTIAL_NAMES.has(e.name.toLowerCase())) {
        throw new ContentError('content.credentials', `${relPath} is a git directory or a credential file; it is never uploaded`);
      }
      let target = abs;
      if (e.isSymbolicLink()) {
        try {
          target = await realpath(abs);
        } catch (err) {
          throw new ContentError('content.symlink', `${relPath} is a broken symlink`, undefined, { cause: err });
        }
        if (!isInside(root, target)) {
          throw new ContentError('content.symlink', `${relPath} is a symlink to ${relative(root, target)}, outside the content directory`);
        }
      }
      const st = e.isSymbolicLink() ? await stat(target) : e;
      if (st.isDirectory()) {
        if (ancestors.has(target))
          throw new ContentError('content.symlink', `${relPath} is a symlink loop`, `content directory ${relPath} is a symlink loop`);
        await walk(target, relPath, new Set([...ancestors, target]));
      } else if (st.isFile()) {
        out.push({ relPath, absPath: target, size: (await stat(target)).size });
      } else {
        throw new ContentError('content.special-file', `${relPath} is not a regular file`);
      }
    }
  };
  await walk(root, '', new Set([root]));
  return out.sort((a, b) => byteCompare(a.relPath, b.relPath));
}
