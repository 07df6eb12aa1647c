/**
 * Pushing update commits (docs/manifests.md, "Version policy"). Each group's commit is made from HEAD
 * without touching the work tree or the checked-out branch (a temporary index and `git commit-tree`),
 * and everything is pushed in ONE atomic push, so a rejected push leaves no branch half-pushed.
 *
 * Two shapes: one branch per group (`packsync update --push`, the agent's default), forced so a later
 * run updates the same branch in place; or every group's commit chained onto HEAD and pushed to one ref
 * as a fast-forward (the agent's `--update-push-ref`), never forced: a ref that moved is refused.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { git, UpdateGitError } from './git.js';

export interface GroupCommit {
  /** Branch name without refs/heads/. */
  branch: string;
  message: string;
  /** Absolute file path → new content. */
  files: Map<string, string>;
}

export interface PushOptions {
  signKey?: string;
  /** The child's environment on top of this process's (credentials of the agent's source). */
  env?: Record<string, string>;
  /** Chain every commit onto HEAD and fast-forward this branch with them, instead of a branch per group. */
  pushRef?: string;
}

export interface PushResult {
  /** Branch (or the push ref, for its last commit) → commit. */
  commits: Map<string, string>;
  /** Branches whose remote already held exactly this content: not pushed again. */
  unchanged: Set<string>;
}

/** The branch of a group: PREFIX/GROUP (the package's name when it has no group). */
export function branchName(prefix: string, group: string): string {
  return `${prefix.replace(/\/+$/, '')}/${group}`;
}

async function commitOn(top: string, scratch: string, parent: string, g: GroupCommit, o: PushOptions): Promise<string> {
  const index = join(scratch, `index-${Math.random().toString(36).slice(2)}`);
  const env = { ...o.env, GIT_INDEX_FILE: index };
  await git(top, ['read-tree', parent], env);
  for (const [abs, text] of g.files) {
    const rel = relative(top, abs).split('\\').join('/');
    const tmp = join(scratch, 'blob');
    await writeFile(tmp, text);
    const blob = (await git(top, ['hash-object', '-w', `--path=${rel}`, tmp], o.env)).trim();
    await git(top, ['update-index', '--add', '--cacheinfo', `100644,${blob},${rel}`], env);
  }
  const tree = (await git(top, ['write-tree'], env)).trim();
  const sign = o.signKey ? ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${o.signKey}`] : [];
  return (await git(top, [...sign, 'commit-tree', ...(o.signKey ? ['-S'] : []), tree, '-p', parent, '-m', g.message], o.env)).trim();
}

/**
 * Branches on the remote whose tree is already the one proposed: pushing them again would only
 * replace one update commit by an identical one (and tell people again). Their commits are fetched
 * into refs/packsync/proposed/ to compare trees (one commit deep when the clone is shallow).
 */
async function unchangedOnRemote(
  top: string,
  remote: string,
  made: Map<string, string>,
  env?: Record<string, string>,
): Promise<Set<string>> {
  const refs = [...made.keys()].map((b) => `refs/heads/${b}`);
  const listed = (await git(top, ['ls-remote', '--', remote, ...refs], env)).trim();
  const existing = listed ? listed.split('\n').map((l) => l.split('\t')[1]!.replace(/^refs\/heads\//, '')) : [];
  if (existing.length === 0) return new Set();
  const shallow = (await git(top, ['rev-parse', '--is-shallow-repository'], env)).trim() === 'true';
  const specs = existing.map((b) => `+refs/heads/${b}:refs/packsync/proposed/${b}`);
  await git(top, ['fetch', '--no-tags', ...(shallow ? ['--depth', '1'] : []), '--', remote, ...specs], env);
  const same = new Set<string>();
  for (const b of existing) {
    const theirs = (await git(top, ['rev-parse', `refs/packsync/proposed/${b}^{tree}`], env)).trim();
    const ours = (await git(top, ['rev-parse', `${made.get(b)!}^{tree}`], env)).trim();
    if (theirs === ours) {
      same.add(b);
      // The branch keeps its commit: what a pull request shows is the commit people see.
      made.set(b, (await git(top, ['rev-parse', `refs/packsync/proposed/${b}`], env)).trim());
    }
  }
  return same;
}

/**
 * Makes every group's commit and pushes them all atomically, then points local branches at them
 * (branch mode). Returns branch → commit and the branches left as they were.
 */
export async function pushGroups(top: string, remote: string, groups: readonly GroupCommit[], o: PushOptions = {}): Promise<PushResult> {
  const scratch = await mkdtemp(join(tmpdir(), 'packsync-update-'));
  try {
    const head = (await git(top, ['rev-parse', 'HEAD'], o.env)).trim();
    const commits = new Map<string, string>();
    let parent = head;
    for (const g of groups) {
      const sha = await commitOn(top, scratch, o.pushRef ? parent : head, g, o);
      commits.set(g.branch, sha);
      parent = sha;
    }
    if (commits.size === 0) return { commits, unchanged: new Set() };
    const unchanged = o.pushRef ? new Set<string>() : await unchangedOnRemote(top, remote, commits, o.env);
    const specs = o.pushRef
      ? [`${parent}:refs/heads/${o.pushRef}`]
      : [...commits].filter(([b]) => !unchanged.has(b)).map(([b, sha]) => `+${sha}:refs/heads/${b}`);
    if (specs.length > 0)
      await git(top, ['push', '--atomic', '--porcelain', '--', remote, ...specs], o.env).catch((e: unknown) => {
        const what = o.pushRef ? `${o.pushRef} was not changed` : 'no branch was pushed';
        throw new UpdateGitError(`push to ${remote} was rejected, ${what}: ${e instanceof Error ? e.message : String(e)}`);
      });
    if (!o.pushRef) for (const [b, sha] of commits) if (!unchanged.has(b)) await git(top, ['update-ref', `refs/heads/${b}`, sha], o.env);
    return { commits, unchanged };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
