/** Real git for tests: a bare repository, a working clone that pushes to it, and `git daemon`. */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { until } from './poll.js';
import { freePort } from './port.js';
import { tempDir } from './repo.js';

const run = promisify(execFile);

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: cwd,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 't@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  });
  return stdout.trim();
}

export interface TestRepo {
  /** The bare repository (what remotes point at). */
  bare: string;
  /** The working clone tests edit and push from. */
  work: string;
  fileUrl: string;
  /** Commits everything in `work` and pushes it to `main`; returns the commit id. */
  commit: (message: string) => Promise<string>;
}

/** A bare repo whose `main` holds what `seed(workDir)` writes. */
export async function createRepo(seed: (dir: string) => Promise<void>): Promise<TestRepo> {
  const root = await tempDir('packsync-git-');
  const bare = join(root, 'manifests.git');
  const work = join(root, 'work');
  await git(root, 'init', '--bare', '--initial-branch=main', bare);
  await git(root, 'init', '--initial-branch=main', work);
  await git(work, 'remote', 'add', 'origin', bare);
  const commit = async (message: string): Promise<string> => {
    await git(work, 'add', '-A');
    await git(work, 'commit', '-q', '--allow-empty', '-m', message);
    await git(work, 'push', '-q', 'origin', 'HEAD:main');
    return git(work, 'rev-parse', 'HEAD');
  };
  await seed(work);
  await commit('initial manifests');
  return { bare, work, fileUrl: `file://${bare}`, commit };
}

export interface GitDaemon {
  url: (repo: TestRepo) => string;
  stop: () => Promise<void>;
}

/** `git daemon` on 127.0.0.1 serving the parent folder of `repo.bare`; `writable` lets clients push. */
export async function startGitDaemon(repo: TestRepo, o: { writable?: boolean } = {}): Promise<GitDaemon> {
  const base = join(repo.bare, '..');
  const port = await freePort();
  const child: ChildProcess = spawn(
    'git',
    [
      'daemon',
      '--reuseaddr',
      '--export-all',
      ...(o.writable ? ['--enable=receive-pack'] : []),
      `--base-path=${base}`,
      `--port=${port}`,
      '--listen=127.0.0.1',
      base,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  await until('git daemon to serve', async () => (await git(base, 'ls-remote', `git://127.0.0.1:${port}/manifests.git`), true), 5_000, {
    intervalMs: 50,
    giveUp: () => (child.exitCode !== null ? `git daemon exited: ${stderr}` : undefined),
  });
  return {
    url: () => `git://127.0.0.1:${port}/manifests.git`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('close', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
