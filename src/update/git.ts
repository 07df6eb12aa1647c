/**
 * The git side of `packsync update --commit`: one commit per group, made only on a clean work tree so
 * nothing but the version edits is committed. Runs the `git` binary (as the signature checks do) with
 * the user's own configuration for author and committer.
 */
import { execFile } from 'node:child_process';
import type { UpdateChange } from './run.js';

export class UpdateGitError extends Error {}

/**
 * Runs git for `packsync update` (commits, pushes, ls-remote): never at git's credential prompt (a
 * remote that needs a username or password fails at once, saying how to give them), and no token of a remote URL
 * (https://user:TOKEN@host) in an error. `env` goes on top of this process's (the agent's source credentials).
 */
export function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  // git's own username/password prompt never waits on a terminal. ssh's passphrase or host-key
  // question still can, on a terminal only: BatchMode is not forced, since GIT_SSH_COMMAND would
  // override the user's core.sshCommand (where their key is chosen).
  const childEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', ...env };
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: childEnv, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, out, stderr) => {
      if (!err) return resolve(out);
      const why = (stderr.trim() || err.message).replace(/:\/\/[^/@\s]+@/g, '://***@');
      const what = args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? '';
      reject(new UpdateGitError(`git ${what} failed: ${why}${NEEDS_CREDENTIALS.test(why) ? CREDENTIALS_HINT : ''}`));
    });
  });
}

/** What git says when a remote wants credentials it was not given. */
const NEEDS_CREDENTIALS =
  /could not read (Username|Password)|terminal prompts disabled|Authentication failed|Permission denied \(publickey|Host key verification failed/i;
const CREDENTIALS_HINT =
  '; the remote needs credentials: set up a git credential helper, an SSH key or a token for it (packsync never prompts for them)';

/** The work tree root of `dir`; refuses a dirty tree (anything but the edits would be committed) and a detached HEAD. */
export async function cleanWorkTree(dir: string): Promise<string> {
  const top = (
    await git(dir, ['rev-parse', '--show-toplevel']).catch(() => {
      throw new UpdateGitError(`${dir} is not inside a git work tree; --commit needs one`);
    })
  ).trim();
  const dirty = (await git(top, ['status', '--porcelain', '--untracked-files=no'])).trim();
  if (dirty)
    throw new UpdateGitError(
      `the work tree has uncommitted changes (${dirty.split('\n').length} file(s)); commit or stash them first, nothing was changed`,
    );
  const head = await git(top, ['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '');
  if (!head.trim()) throw new UpdateGitError('HEAD is detached; check out a branch first, nothing was changed');
  return top;
}

/** The commit message of a group's changes (docs/manifests.md, "Version policy"). */
export function commitMessage(changes: readonly UpdateChange[]): string {
  const first = changes[0]!;
  const title =
    changes.length === 1 && !first.grouped
      ? `Update ${first.app} to ${first.to}`
      : `Update ${first.group}: ${changes.map((c) => `${c.app} ${c.to}`).join(', ')}`;
  const body = changes.map((c) => `${c.key}: ${c.from} → ${c.to} (released ${c.releasedAt.slice(0, 10)})`);
  return `${title}\n\n${body.join('\n')}\n`;
}

/** Commits the given files with the message; `signKey` signs it with that SSH key. */
export async function commitFiles(top: string, files: readonly string[], message: string, signKey?: string): Promise<string> {
  await git(top, ['add', '--', ...files]);
  const sign = signKey ? ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${signKey}`] : [];
  await git(top, [...sign, 'commit', ...(signKey ? ['-S'] : []), '-q', '-m', message, '--', ...files]).catch(async (e: unknown) => {
    await git(top, ['reset', '-q', '--', ...files]).catch(() => '');
    throw e;
  });
  return headCommit(top);
}

export async function headCommit(top: string): Promise<string> {
  return (await git(top, ['rev-parse', 'HEAD'])).trim();
}

/**
 * Takes back what a failed `--commit` made: the branch back to `start` (its earlier groups' commits
 * undone) and the edited files as `start` has them. The tree was clean before, so nothing else moves.
 */
export async function restoreTo(top: string, start: string, files: readonly string[]): Promise<void> {
  await git(top, ['reset', '-q', start]).catch(() => '');
  if (files.length > 0) await git(top, ['checkout', '-q', start, '--', ...files]).catch(() => '');
}
