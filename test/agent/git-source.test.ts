/** The git source against real repositories: branch, tag, pinned commit, sub-path, and refused input. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitSource, validateRef, validateRemote } from '../../src/agent/source/git-source.js';
import { createRepo, git, startGitDaemon } from '../support/git.js';
import type { GitDaemon, TestRepo } from '../support/git.js';
import { tempDir } from '../support/repo.js';

let repo: TestRepo;
let daemon: GitDaemon;
let first: string;

beforeAll(async () => {
  repo = await createRepo(async (dir) => {
    await mkdir(join(dir, 'clusters/prod'), { recursive: true });
    await writeFile(join(dir, 'clusters/prod/a.yaml'), 'one\n');
  });
  first = await git(repo.work, 'rev-parse', 'HEAD');
  await git(repo.work, 'tag', 'v1');
  await git(repo.work, 'push', '-q', 'origin', 'v1');
  daemon = await startGitDaemon(repo);
});
afterAll(async () => {
  await daemon.stop();
});

describe('git source', () => {
  it('follows a branch over git:// and reports the exact commit; picks up the next push', async () => {
    const src = new GitSource({
      url: daemon.url(repo),
      ref: 'main',
      path: 'clusters/prod',
      workDir: await tempDir('packsync-src-'),
      env: process.env,
    });
    const a = await src.sync();
    expect(a.revision).toBe(first);
    expect(a.dir.endsWith(join('clusters', 'prod'))).toBe(true);
    await writeFile(join(repo.work, 'clusters/prod/a.yaml'), 'two\n');
    const second = await repo.commit('edit');
    const b = await src.sync();
    expect(b.revision).toBe(second);
    expect(b.label).toBe(`main@${second.slice(0, 7)}`);
  });

  it('follows a tag and a pinned commit over file://', async () => {
    const tag = new GitSource({ url: repo.fileUrl, ref: 'v1', workDir: await tempDir('packsync-src-'), env: process.env });
    expect((await tag.sync()).revision).toBe(first);
    const pinned = new GitSource({ url: repo.fileUrl, ref: first, workDir: await tempDir('packsync-src-'), env: process.env });
    expect((await pinned.sync()).revision).toBe(first);
  });

  it('names a missing ref or sub-path precisely', async () => {
    const nope = new GitSource({ url: repo.fileUrl, ref: 'nope', workDir: await tempDir('packsync-src-'), env: process.env });
    await expect(nope.sync()).rejects.toMatchObject({ code: 'SOURCE_REF_NOT_FOUND' });
    const badPath = new GitSource({
      url: repo.fileUrl,
      ref: 'main',
      path: 'missing',
      workDir: await tempDir('packsync-src-'),
      env: process.env,
    });
    await expect(badPath.sync()).rejects.toMatchObject({ code: 'SOURCE_PATH_INVALID' });
  });

  it('reports an unreachable remote as a fetch failure, not a missing ref (regression)', async () => {
    const gone = new GitSource({
      url: 'file:///nonexistent/packsync/repo.git',
      ref: 'main',
      workDir: await tempDir('packsync-src-'),
      env: process.env,
    });
    await expect(gone.sync()).rejects.toMatchObject({ code: 'SOURCE_FETCH_FAILED' });
  });

  it.each([
    'ext::sh -c touch% /tmp/pwned',
    'fd::17',
    '--upload-pack=touch /tmp/x',
    '-c core.sshCommand=touch',
    'https://user:secret@example.com/repo.git',
    'ftp://example.com/repo.git',
    'https://example.com/repo.git\n--upload-pack=x',
  ])('refuses the remote %j', (url) => {
    expect(() => validateRemote(url)).toThrow(expect.objectContaining({ code: 'SOURCE_INVALID' }) as Error);
  });

  it.each(['--output=/tmp/x', 'main;rm -rf /', '..', 'a..b', 'main:evil', 'x y', 'refs/heads/main.lock', ''])(
    'refuses the ref %j',
    (ref) => {
      expect(() => validateRef(ref)).toThrow(expect.objectContaining({ code: 'SOURCE_INVALID' }) as Error);
    },
  );

  it('refuses a sub-path that leaves the repository', () => {
    expect(() => new GitSource({ url: repo.fileUrl, ref: 'main', path: '../..', workDir: '/tmp/x', env: process.env })).toThrow(
      expect.objectContaining({ code: 'SOURCE_PATH_INVALID' }) as Error,
    );
  });
});

describe('a git token over plain http:// (regression: it was sent in the clear without a word)', () => {
  it('is refused unless --allow-insecure-git, before any fetch', () => {
    const Source = GitSource;
    const base = {
      url: 'http://127.0.0.1:9/acme/x.git',
      ref: 'main',
      workDir: '/nonexistent',
      env: { PACKSYNC_GIT_TOKEN: 'tok-0123456789' },
    };
    expect(() => new Source(base)).toThrow(/plain http:\/\/.*--allow-insecure-git/);
    expect(() => new Source({ ...base, env: {}, tokenFile: '/run/secrets/token' })).toThrow(/plain http:\/\//);
    expect(() => new Source({ ...base, allowInsecure: true })).not.toThrow();
    // Without a token, and over https, nothing is at risk.
    expect(() => new Source({ ...base, env: {} })).not.toThrow();
    expect(() => new Source({ ...base, url: 'https://127.0.0.1:9/acme/x.git' })).not.toThrow();
  });
});
