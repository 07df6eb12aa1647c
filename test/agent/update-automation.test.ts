/**
 * The agent's update automation (issue 22.4, docs/agent.md "Update automation"): `run --update-interval`
 * runs `packsync update` against the agent's own git source. By default it pushes one branch per group
 * and applies nothing of it (the followed ref and the service are unchanged); `--update-push-ref` names
 * the ref to fast-forward instead, and the update is then applied by the next pass only when it passes
 * verification (signed with `--update-sign-key`, whose key is trusted). `UpdateProposed` and
 * `UpdateFailed` are events that notifications carry; an unchanged update is not proposed again.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { git } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { manifestRepo } from '../support/manifests.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { tempDir } from '../support/repo.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { sshKey, writeAllowedSigners } from '../support/signing.js';

let sim: TestSim;
let env: Record<string, string>;
let repo: TestRepo;
let rx: Receiver;
let notifications: string;

beforeEach(async () => {
  ({ sim, env } = await simEnv());
  repo = await manifestRepo();
  // The standard repository, with 7-Zip following the catalog.
  const file = join(repo.work, 'packages.yaml');
  await writeFile(file, (await readFile(file, 'utf8')).replace('version: "24.08"', 'version: "24.08"\n    update: { track: latest }'));
  await repo.commit('7-Zip follows the catalog');
  rx = await startReceiver();
  const dir = await tempDir('packsync-update-notify-');
  notifications = join(dir, 'notify.yaml');
  await writeFile(
    notifications,
    `providers:\n  - name: hook\n    type: webhook\n    address: ${rx.url}/hook\nalerts:\n  - provider: hook\n    reasons: [UpdateProposed, UpdateFailed]\n`,
  );
  await sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
});

afterEach(async () => {
  await rx.close();
  await sim.close();
});

const run = (...args: string[]): ReturnType<typeof cli> =>
  cli(
    [
      'run',
      '--source',
      repo.fileUrl,
      '--once',
      '--update-interval',
      '1h',
      '--notifications',
      notifications,
      '--log-level',
      'silent',
      ...args,
    ],
    {
      ...env,
      PATH: process.env.PATH ?? '',
    },
  );

/** Notifications with a GitHub forge on the receiver (for pull requests) and the UpdateProposed webhook. */
async function forgeNotifications(): Promise<void> {
  const token = join(await tempDir('packsync-update-token-'), 'token');
  await writeFile(token, 'ghp_update_SECRET_0123\n');
  await writeFile(
    notifications,
    `providers:\n  - name: forge\n    type: github\n    address: ${rx.url}/gh\n    tokenFile: ${token}\n    repository: acme/fleet\n  - name: hook\n    type: webhook\n    address: ${rx.url}/hook\nalerts:\n  - provider: hook\n    reasons: [UpdateProposed]\n`,
  );
}

const hooks = (): { reason: string; object: { kind: string; name: string }; message: string }[] =>
  rx.requests
    .filter((r) => r.path === '/hook')
    .map((r) => JSON.parse(r.body) as { reason: string; object: { kind: string; name: string }; message: string });

const installed = async (version: string): Promise<boolean> => (await sim.state()).packages.some((p) => p.productVersion === version);

describe('run --update-interval', () => {
  it('pushes the update to a branch of its own, applies nothing of it, and does not propose it again', async () => {
    const main = await git(repo.bare, 'rev-parse', 'main');
    const r = await run();
    expect(r.code).toBe(0);
    const branch = 'packsync/update/seven-zip-24-08';
    expect(await git(repo.bare, 'show', `${branch}:packages.yaml`)).toContain('version: "24.09"');
    expect(await git(repo.bare, 'rev-parse', `${branch}^`)).toBe(main);
    expect(await git(repo.bare, 'log', '-1', '--format=%s%n%an <%ae>', branch)).toBe(
      'Update 7-Zip to 24.09\npacksync <packsync@localhost>',
    );
    // The followed ref and the service are as they were: an update is applied only once merged.
    expect(await git(repo.bare, 'rev-parse', 'main')).toBe(main);
    expect(await installed('24.08')).toBe(true);
    expect(await installed('24.09')).toBe(false);
    await rx.waitFor(1);
    expect(hooks()).toEqual([expect.objectContaining({ reason: 'UpdateProposed', object: { kind: 'Updates', name: 'seven-zip-24-08' } })]);
    expect(hooks()[0]!.message).toContain('Package/seven-zip-24-08 24.08 → 24.09');

    // The same update again: the branch already holds it; nothing pushed, nobody told again.
    const pushed = await git(repo.bare, 'rev-parse', branch);
    expect((await run()).code).toBe(0);
    expect(await git(repo.bare, 'rev-parse', branch)).toBe(pushed);
    expect(hooks()).toHaveLength(1);

    // Merged by a person: the next pass applies it, and there is nothing left to propose.
    await git(repo.work, 'pull', '-q', 'origin', branch);
    await git(repo.work, 'push', '-q', 'origin', 'HEAD:main');
    expect((await run()).code).toBe(0);
    expect(await installed('24.09')).toBe(true);
    expect(hooks()).toHaveLength(1);
  });

  it('--update-push-ref fast-forwards the followed ref; a signed update passes verification and is applied by the next pass', async () => {
    const keys = await tempDir('packsync-update-keys-');
    const bot = await sshKey(keys, 'bot');
    const trusted = await tempDir('packsync-update-trusted-');
    await writeAllowedSigners(trusted, [{ principal: 'packsync@localhost', key: bot }]);
    // The seed commits are not signed: the agent starts from a signed commit of its own (the bot's key).
    const first = await run('--update-push-ref', 'main', '--update-sign-key', bot.keyFile);
    expect(first.code).toBe(0);
    expect(await git(repo.bare, 'show', 'main:packages.yaml')).toContain('version: "24.09"');
    expect(await git(repo.bare, 'cat-file', 'commit', 'main')).toContain('-----BEGIN SSH SIGNATURE-----');
    expect(await git(repo.bare, 'for-each-ref', '--format=%(refname)', 'refs/heads/packsync')).toBe('');
    const verified = await run('--verify-mode', 'head', '--trusted-keys', trusted);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout.trim().split('\n').pop()!)).toMatchObject({ result: 'Succeeded' });
    expect(await installed('24.09')).toBe(true);
  });

  it('an unsigned update on the followed ref is refused by verification, never applied', async () => {
    const keys = await tempDir('packsync-update-keys-');
    const someone = await sshKey(keys, 'someone');
    const trusted = await tempDir('packsync-update-trusted-');
    await writeAllowedSigners(trusted, [{ principal: 'someone@example.com', key: someone }]);
    expect((await run('--update-push-ref', 'main')).code).toBe(0);
    expect(await git(repo.bare, 'show', 'main:packages.yaml')).toContain('version: "24.09"');
    const refused = await run('--verify-mode', 'head', '--trusted-keys', trusted);
    expect(refused.code).toBe(1);
    const outcome = JSON.parse(refused.stdout.trim().split('\n').pop()!) as { result: string; message: string };
    expect(outcome.result).toBe('Failed');
    expect(outcome.message).toMatch(/not signed|no signature|unsigned/i);
    expect(await installed('24.09')).toBe(false);
  });

  it('--update-pull-request opens a pull request per branch with the plan of its commit; a refused one is tried again', async () => {
    await forgeNotifications();
    rx.answer.push(200, 500);
    const r = await run('--update-pull-request', 'forge');
    expect(r.code).toBe(0);
    const pulls = (): typeof rx.requests => rx.requests.filter((q) => q.path.startsWith('/gh/repos/acme/fleet/pulls'));
    expect(pulls().map((q) => q.method)).toEqual(['GET', 'POST']);
    // The POST was refused (500): the next run asks again although the branch is unchanged.
    rx.requests.length = 0;
    expect((await run('--update-pull-request', 'forge')).code).toBe(0);
    expect(pulls().map((q) => q.method)).toEqual(['GET', 'POST']);
    const body = JSON.parse(pulls()[1]!.body) as { head: string; base: string; body: string };
    expect(body).toMatchObject({ head: 'packsync/update/seven-zip-24-08', base: 'main' });
    const branchHead = await git(repo.bare, 'rev-parse', 'packsync/update/seven-zip-24-08');
    expect(body.body).toContain(`### packsync plan for commit \`${branchHead.slice(0, 12)}\``);
    expect(body.body).toContain('| Package/seven-zip-24-08 | 24.08 | 24.09 |');
    expect(pulls()[1]!.headers.authorization).toBe('Bearer ghp_update_SECRET_0123');
    expect(r.stdout + r.stderr).not.toContain('SECRET');
  });

  it('an unchanged branch that never had a pull request gets one; one whose pull request was closed does not (regression: a branch pushed by update --push was never proposed)', async () => {
    await forgeNotifications();
    // Someone ran `packsync update --push` without a pull request: the branch holds the update already.
    const pushedByHand = await cli(['update', repo.work, '--push', 'origin'], env);
    expect(pushedByHand.code, pushedByHand.stderr).toBe(0);
    const branch = 'packsync/update/seven-zip-24-08';
    const head = await git(repo.bare, 'rev-parse', branch);
    const pulls = (): string[] =>
      rx.requests.filter((q) => q.path.startsWith('/gh/repos/acme/fleet/pulls')).map((q) => `${q.method} ${q.path.replace('/gh', '')}`);

    expect((await run('--update-pull-request', 'forge')).code).toBe(0);
    expect(await git(repo.bare, 'rev-parse', branch)).toBe(head);
    expect(pulls()).toEqual([
      'GET /repos/acme/fleet/pulls?state=all&head=acme%3Apacksync%2Fupdate%2Fseven-zip-24-08',
      'GET /repos/acme/fleet/pulls?state=open&head=acme%3Apacksync%2Fupdate%2Fseven-zip-24-08',
      'POST /repos/acme/fleet/pulls',
    ]);
    await rx.waitFor(4);
    expect(hooks()).toEqual([expect.objectContaining({ reason: 'UpdateProposed' })]);

    // A person closed that pull request: the forge lists it, and it is not opened again.
    rx.requests.length = 0;
    rx.replies.push('[{"number":7,"state":"closed"}]');
    expect((await run('--update-pull-request', 'forge')).code).toBe(0);
    expect(pulls()).toEqual(['GET /repos/acme/fleet/pulls?state=all&head=acme%3Apacksync%2Fupdate%2Fseven-zip-24-08']);
    expect(rx.requests.map((q) => q.path)).toEqual([
      '/gh/repos/acme/fleet/pulls?state=all&head=acme%3Apacksync%2Fupdate%2Fseven-zip-24-08',
    ]);
  });

  it('a rejected push is an UpdateFailed event; the pass itself is unaffected and no branch is left', async () => {
    await writeFile(join(repo.bare, 'hooks', 'pre-receive'), '#!/bin/sh\necho "no bots" >&2\nexit 1\n', { mode: 0o755 });
    const r = await run();
    expect(r.code).toBe(0);
    await rx.waitFor(1);
    expect(hooks()).toEqual([expect.objectContaining({ reason: 'UpdateFailed', object: { kind: 'Updates', name: 'source' } })]);
    expect(hooks()[0]!.message).toMatch(/rejected, no branch was pushed/);
    expect(await git(repo.bare, 'for-each-ref', '--format=%(refname)', 'refs/heads/packsync')).toBe('');
  });

  it('refuses --update-* flags without --update-interval, and a directory source', async () => {
    const noInterval = await cli(['run', '--source', repo.fileUrl, '--once', '--update-push-ref', 'main'], env);
    expect(noInterval.code).toBe(1);
    expect(noInterval.stderr).toMatch(/--update-push-ref needs --update-interval/);
    const dir = await cli(['run', '--source', repo.work, '--once', '--update-interval', '1h'], env);
    expect(dir.code).toBe(1);
    expect(dir.stderr).toMatch(/--update-interval needs a git --source/);
    const short = await cli(['run', '--source', repo.fileUrl, '--once', '--update-interval', '5s'], env);
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/at least 1m/);
  });
});
