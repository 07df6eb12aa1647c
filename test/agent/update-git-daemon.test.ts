/**
 * The patch stream over a real git server on loopback (issue 22 "Done when": `git daemon`): `packsync
 * update --push git://… --sign-key` pushes a signed update branch, the agent following that branch with
 * `--verify-mode head` accepts the bot's signature and applies it; and the agent's own update automation
 * pushes its branch to the same server.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { git, startGitDaemon } from '../support/git.js';
import type { GitDaemon, TestRepo } from '../support/git.js';
import { manifestRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { sshKey, writeAllowedSigners } from '../support/signing.js';

let sim: TestSim;
let env: Record<string, string>;
let repo: TestRepo;
let daemon: GitDaemon;

beforeAll(async () => {
  ({ sim, env } = await simEnv());
  env = { ...env, PATH: process.env.PATH ?? '' };
  repo = await manifestRepo();
  const file = join(repo.work, 'packages.yaml');
  await writeFile(file, (await readFile(file, 'utf8')).replace('version: "24.08"', 'version: "24.08"\n    update: { track: latest }'));
  await repo.commit('7-Zip follows the catalog');
  await git(repo.work, 'config', 'user.name', 'Update Bot');
  await git(repo.work, 'config', 'user.email', 'bot@example.com');
  daemon = await startGitDaemon(repo, { writable: true });
  await sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
});

afterAll(async () => {
  await daemon?.stop();
  await sim?.close();
});

describe('update over git daemon', () => {
  it('update --push --sign-key: the signed branch passes the agent’s --verify-mode and is applied', async () => {
    const keys = await tempDir('packsync-daemon-keys-');
    const bot = await sshKey(keys, 'bot');
    const trusted = await tempDir('packsync-daemon-trusted-');
    await writeAllowedSigners(trusted, [{ principal: 'bot@example.com', key: bot }]);
    const pushed = await cli(['update', repo.work, '--push', daemon.url(repo), '--sign-key', bot.keyFile], env);
    expect(pushed.code, pushed.stderr).toBe(0);
    const branch = 'packsync/update/seven-zip-24-08';
    expect(await git(repo.bare, 'show', `${branch}:packages.yaml`)).toContain('version: "24.09"');
    const run = await cli(
      [
        'run',
        '--source',
        daemon.url(repo),
        '--ref',
        branch,
        '--once',
        '--verify-mode',
        'head',
        '--trusted-keys',
        trusted,
        '--log-level',
        'silent',
      ],
      { ...env, HOME: await tempDir('packsync-daemon-home-') },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect((await sim.state()).packages.some((p) => p.productVersion === '24.09')).toBe(true);
  });

  it('run --update-interval pushes its update branch to the server it follows', async () => {
    await git(repo.bare, 'branch', '-D', 'packsync/update/seven-zip-24-08');
    const r = await cli(['run', '--source', daemon.url(repo), '--once', '--update-interval', '1h', '--log-level', 'silent'], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await git(repo.bare, 'show', 'packsync/update/seven-zip-24-08:packages.yaml')).toContain('version: "24.09"');
    expect(await git(repo.bare, 'log', '-1', '--format=%an', 'packsync/update/seven-zip-24-08')).toBe('packsync');
  });
});
