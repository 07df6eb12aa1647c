/**
 * Custom package content: a directory inside the repository whose files are uploaded. Checked here
 * so that a bad path fails validation (all-or-nothing per revision) instead of failing mid-apply,
 * and digested so the planner can tell when the content changed.
 *
 * The file list is the uploader's own (`listContentFiles` in `src/api/content-files.ts`), so the
 * digest describes exactly the files an upload sends, in the order it sends them.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, posix, relative, resolve, sep } from 'node:path';
import { ContentError, digestLine, isInside, listContentFiles } from '../api/content-files.js';
import type { ContentFile } from '../api/content-files.js';

export interface ContentInfo {
  /** Absolute path of the content directory. */
  dir: string;
  /** `sha256:` + hex over every file's relative path, size and sha256, in upload order. */
  digest: string;
  files: number;
  bytes: number;
  /** Each file as digested: what a saved plan checks again before it uploads (docs/reconcile.md, "Saved plans"). */
  fileList: ContentFileDigest[];
}

export interface ContentFileDigest {
  path: string;
  size: number;
  sha256: string;
}

export type ContentCheck = { ok: true; content: ContentInfo } | { ok: false; rule: string; message: string };

/**
 * Checks `content` (as written in the manifest) against the repository at `root`, whose real
 * path is `rootReal`, and digests it.
 */
/**
 * Content paths are relative to the repository root (docs/manifests.md). One written relative to a
 * sub-folder (the manifest's own, or a `manifests/` folder a repository holds) gets the path to write.
 */
async function closerMatch(root: string, normal: string, from: string | undefined): Promise<string> {
  if (from === undefined || !isInside(root, from)) return '';
  for (let d = from; d !== root && isInside(root, d); d = dirname(d)) {
    const found = await stat(resolve(d, normal)).catch(() => undefined);
    if (found?.isDirectory()) {
      const rel = relative(root, resolve(d, normal)).split(sep).join('/');
      return `; content paths are relative to the repository root ${root}: write ${JSON.stringify(rel)}`;
    }
  }
  return '';
}

export async function inspectContent(root: string, rootReal: string, content: string, from?: string): Promise<ContentCheck> {
  const shown = JSON.stringify(content);
  const slashed = content.replace(/\\/g, '/');
  if (isAbsolute(content) || /^[A-Za-z]:/.test(content) || slashed.startsWith('/')) {
    return {
      ok: false,
      rule: 'content.outside-repo',
      message: `content ${shown} must be a path relative to the repository root, not an absolute path`,
    };
  }
  const normal = posix.normalize(slashed);
  if (normal === '..' || normal.startsWith('../')) {
    return { ok: false, rule: 'content.outside-repo', message: `content ${shown} leaves the repository ("..")` };
  }
  const hidden = hiddenPart(normal);
  if (hidden) return hiddenContent(shown, hidden);
  const abs = resolve(root, normal);
  let real: string;
  try {
    real = await realpath(abs);
  } catch {
    const hint = await closerMatch(root, normal, from);
    return { ok: false, rule: 'content.missing', message: `content directory ${shown} does not exist (looked for ${abs})${hint}` };
  }
  if (!isInside(rootReal, real)) {
    return {
      ok: false,
      rule: 'content.outside-repo',
      message: `content ${shown} resolves to ${real}, outside the repository (a symlink leaves it)`,
    };
  }
  const hiddenReal = hiddenPart(relative(rootReal, real).split(sep).join('/'));
  if (hiddenReal) return hiddenContent(shown, hiddenReal);
  if (real === rootReal) {
    return {
      ok: false,
      rule: 'content.is-root',
      message: `content ${shown} is the repository root; give a subdirectory (the whole repository, .git included, would be uploaded)`,
    };
  }
  if (!(await stat(real)).isDirectory()) {
    return {
      ok: false,
      rule: 'content.not-directory',
      message: `content ${shown} is a file; it must be a directory (every file in it is uploaded)`,
    };
  }
  let entries: ContentFile[];
  try {
    entries = await listContentFiles(real);
  } catch (e) {
    if (e instanceof ContentError) return { ok: false, rule: e.rule, message: `content ${shown}: ${e.detail}` };
    throw e;
  }
  const state = entries.find(
    (f) =>
      /(^|\/)inventory\.json$/.test(f.relPath) && entries.some((g) => g.relPath === f.relPath.replace(/inventory\.json$/, 'journal.jsonl')),
  );
  if (state) {
    return {
      ok: false,
      rule: 'content.state-dir',
      message: `content ${shown} holds a packsync state (${state.relPath}); the state is never uploaded`,
    };
  }
  if (entries.length === 0) {
    return {
      ok: false,
      rule: 'content.empty',
      message: `content directory ${shown} has no files; the service cannot finalize an empty upload`,
    };
  }
  const { digest, fileList } = await digestFiles(entries);
  const bytes = fileList.reduce((n, f) => n + f.size, 0);
  return { ok: true, content: { dir: abs, digest, files: entries.length, bytes, fileList } };
}

/** The content digest of a directory as it is now, with each file's: a saved plan's check before it uploads. */
export async function digestContentDir(dir: string): Promise<{ digest: string; fileList: ContentFileDigest[] }> {
  return digestFiles(await listContentFiles(dir));
}

async function digestFiles(entries: ContentFile[]): Promise<{ digest: string; fileList: ContentFileDigest[] }> {
  const outer = createHash('sha256');
  const fileList: ContentFileDigest[] = [];
  for (const f of entries) {
    const sha256 = await sha256File(f.absPath);
    outer.update(digestLine(f.relPath, f.size, sha256));
    fileList.push({ path: f.relPath, size: f.size, sha256 });
  }
  return { digest: `sha256:${outer.digest('hex')}`, fileList };
}

/** The first path segment that starts with a dot (`.git`, `.packsync`, `.github`), if any. */
function hiddenPart(slashed: string): string | undefined {
  return slashed.split('/').find((seg) => seg.startsWith('.') && seg !== '.' && seg !== '..');
}

function hiddenContent(shown: string, part: string): ContentCheck {
  return {
    ok: false,
    rule: 'content.hidden',
    message: `content ${shown} is in the hidden folder "${part}"; hidden folders (.git, the state directory .packsync, …) are never uploaded: move the files to a folder without a leading dot`,
  };
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
