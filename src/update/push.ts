/**
 * `packsync update --push REMOTE`: each group's commit is made from HEAD on its own branch without
 * touching the work tree or the checked-out branch (a temporary index and `git commit-tree`), and all
 * branches are pushed in ONE atomic push, so a rejected push leaves no branch half-pushed
 * (docs/manifests.md, "Version policy").
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execFile } from 'node:child_process';
import { UpdateGitError } from './git.js';

export interface GroupCommit {
  /** Branch name without refs/heads/. */
  branch: string;
  message: string;
  /** Absolute file path → new content. */
  files: Map<string, string>;
}

function gitEnv(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, out, stderr) => {
      // A remote URL may carry a token (https://user:TOKEN@host): never let it reach an error.
      const why = (stderr.trim() || err?.message || '').replace(/:\/\/[^/@\s]+@/g, '://***@');
      if (err) reject(new UpdateGitError(`git ${args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? ''} failed: ${why}`));
      else resolve(out);
    });
  });
}

/** The branch of a group: PREFIX/GROUP (the package's name when it has no group). */
export function branchName(prefix: string, group: string): string {
  return `${prefix.replace(/\/+$/, '')}/${group}`;
}

async function commitOnHead(top: string, scratch: string, g: GroupCommit, signKey?: string): Promise<string> {
  const index = join(scratch, `index-${Math.random().toString(36).slice(2)}`);
  const env = { GIT_INDEX_FILE: index };
  await gitEnv(top, ['read-tree', 'HEAD'], env);
  for (const [abs, text] of g.files) {
    const rel = relative(top, abs).split('\\').join('/');
    const tmp = join(scratch, 'blob');
    await writeFile(tmp, text);
    const blob = (await gitEnv(top, ['hash-object', '-w', `--path=${rel}`, tmp])).trim();
    await gitEnv(top, ['update-index', '--add', '--cacheinfo', `100644,${blob},${rel}`], env);
  }
  const tree = (await gitEnv(top, ['write-tree'], env)).trim();
  const sign = signKey ? ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${signKey}`] : [];
  return (await gitEnv(top, [...sign, 'commit-tree', ...(signKey ? ['-S'] : []), tree, '-p', 'HEAD', '-m', g.message])).trim();
}

/**
 * Makes every group's commit, pushes them all atomically (forced: a later run replaces the branch's
 * previous update commit), then points the local branches at them. Returns branch → commit.
 */
export async function pushGroups(
  top: string,
  remote: string,
  groups: readonly GroupCommit[],
  signKey?: string,
): Promise<Map<string, string>> {
  const scratch = await mkdtemp(join(tmpdir(), 'packsync-update-'));
  try {
    const made = new Map<string, string>();
    for (const g of groups) made.set(g.branch, await commitOnHead(top, scratch, g, signKey));
    if (made.size === 0) return made;
    const specs = [...made].map(([b, sha]) => `+${sha}:refs/heads/${b}`);
    await gitEnv(top, ['push', '--atomic', '--porcelain', '--', remote, ...specs]).catch((e: unknown) => {
      throw new UpdateGitError(`push to ${remote} was rejected, no branch was pushed: ${e instanceof Error ? e.message : String(e)}`);
    });
    for (const [b, sha] of made) await gitEnv(top, ['update-ref', `refs/heads/${b}`, sha]);
    return made;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
