/**
 * `packsync update` (issue 22): against the real simulator's catalog with releases, and a real git
 * repository. Only the `version:` scalar changes (every other byte kept, CRLF too), the policy's track,
 * skip and minAge decide, `--detailed-exitcode` says whether anything changed, `--commit` makes one
 * commit per group with the documented message, and a dirty work tree changes nothing.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { startReceiver } from '../support/receiver.js';
import { createRepo, git } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;
beforeEach(async () => {
  ({ sim, env } = await simEnv());
});
afterEach(() => sim.close());

const PACKAGES = [
  '# Utilities everyone gets',
  'apiVersion: packsync.dev/v1',
  'kind: Package',
  'metadata: { name: seven-zip }   # named after the app',
  'spec:',
  '  catalog:',
  '    app: 7-Zip',
  "    version: '24.08'   # what git wants now",
  '    scope: machine',
  '    update: { track: latest, minAge: 1d, group: utilities }',
  '---',
  'apiVersion: packsync.dev/v1',
  'kind: Package',
  'metadata:',
  '  name: pwsh',
  'spec:',
  '  catalog:',
  '    app: PowerShell 7',
  '    version: "7.4.5"',
  '    update:',
  '      group: utilities',
  '',
].join('\n');

async function release(app: string, version: string, daysAgo: number): Promise<void> {
  const now = Date.parse(((await sim.admin('GET', '/_sim/clock')) as { now: string }).now);
  await sim.admin('POST', '/_sim/releases', { app, version, releasedAt: new Date(now - daysAgo * 86_400_000).toISOString() });
}

async function repoWith(text: string): Promise<TestRepo> {
  const repo = await createRepo((dir) => writeFile(join(dir, 'packages.yaml'), text));
  await git(repo.work, 'config', 'user.name', 'Update Bot');
  await git(repo.work, 'config', 'user.email', 'bot@example.com');
  return repo;
}

describe('packsync update', () => {
  it('moves each followed package to the newest version its policy allows, changing only the version scalars', async () => {
    await release('7-Zip', '24.09', 3);
    await release('7-Zip', '24.10', 0); // younger than minAge: 1d
    const repo = await repoWith(PACKAGES);
    const before = await sim.journalCount();
    const r = await cli(['update', repo.work, '--detailed-exitcode'], env);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^Package\/seven-zip 24\.08 → 24\.09 \(released \d{4}-\d{2}-\d{2}\)$/m);
    expect(r.stdout).toMatch(/^Package\/pwsh 7\.4\.5 → 7\.4\.6 /m);
    const text = await readFile(join(repo.work, 'packages.yaml'), 'utf8');
    expect(text).toBe(PACKAGES.replace("version: '24.08'", "version: '24.09'").replace('version: "7.4.5"', 'version: "7.4.6"'));
    // Reads: one catalog list and one detail per followed app, nothing else.
    const calls = (await sim.journal()).slice(before).map((e) => `${e.method} ${e.path.replace(/[0-9a-f-]{36}/, '{id}')}`);
    expect(calls.sort()).toEqual(['GET /v1/app', 'GET /v1/app/{id}', 'GET /v1/app/{id}']);
    // Run again: nothing to do, exit 0 with --detailed-exitcode.
    expect((await cli(['update', repo.work, '--detailed-exitcode'], env)).code).toBe(0);
  });

  it('keeps CRLF line endings and never takes a skipped version or downgrades', async () => {
    await release('7-Zip', '24.09', 3);
    const crlf = PACKAGES.replace('minAge: 1d, group: utilities', "skip: ['24.09'], group: utilities").replace(/\n/g, '\r\n');
    const repo = await repoWith(crlf);
    expect((await cli(['update', join(repo.work, 'packages.yaml')], env)).code).toBe(0);
    expect(await readFile(join(repo.work, 'packages.yaml'), 'utf8')).toBe(crlf.replace('version: "7.4.5"', 'version: "7.4.6"'));
  });

  it('--commit makes one commit per group with the documented message, and leaves the work tree clean', async () => {
    await release('7-Zip', '24.09', 3);
    const repo = await repoWith(PACKAGES);
    const r = await cli(['update', repo.work, '--commit'], env);
    expect(r.code).toBe(0);
    const message = await git(repo.work, 'log', '-1', '--format=%B');
    expect(message.split('\n')[0]).toBe('Update utilities: 7-Zip 24.09, PowerShell 7 7.4.6');
    expect(message).toMatch(
      /\nPackage\/seven-zip: 24\.08 → 24\.09 \(released \d{4}-\d{2}-\d{2}\)\nPackage\/pwsh: 7\.4\.5 → 7\.4\.6 \(released/,
    );
    expect(await git(repo.work, 'rev-list', '--count', 'HEAD')).toBe('2');
    expect(await git(repo.work, 'status', '--porcelain')).toBe('');
  });

  it('a commit that fails half way takes back every group and edit (regression: the first group stayed committed, the rest edited)', async () => {
    await release('7-Zip', '24.09', 3);
    // Two groups (utilities, pwsh): a hook refuses the second commit, after the first has landed.
    const repo = await repoWith(PACKAGES.replace('    update:\n      group: utilities', '    update: {}'));
    const head = await git(repo.work, 'rev-parse', 'HEAD');
    const hook = join(repo.work, '.git', 'hooks', 'pre-commit');
    await writeFile(hook, `#!/bin/sh\n[ "$(git rev-list --count HEAD)" -lt 2 ] || { echo "hook: one commit is enough" >&2; exit 1; }\n`, {
      mode: 0o755,
    });
    const r = await cli(['update', repo.work, '--commit'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/hook: one commit is enough/);
    expect(await git(repo.work, 'rev-parse', 'HEAD')).toBe(head);
    expect(await git(repo.work, 'status', '--porcelain')).toBe('');
    expect(await readFile(join(repo.work, 'packages.yaml'), 'utf8')).toBe(
      PACKAGES.replace('    update:\n      group: utilities', '    update: {}'),
    );

    // A signing key that cannot sign: the same, nothing edited, nothing committed.
    const signed = await repoWith(PACKAGES);
    const bad = await cli(['update', signed.work, '--commit', '--sign-key', join(signed.work, 'no-such-key')], env);
    expect(bad.code).toBe(1);
    expect(await git(signed.work, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(await git(signed.work, 'status', '--porcelain')).toBe('');
  });

  it('refuses a dirty work tree with --commit: exit 1, nothing written or committed', async () => {
    await release('7-Zip', '24.09', 3);
    const repo = await repoWith(PACKAGES);
    await writeFile(join(repo.work, 'packages.yaml'), PACKAGES + '# local edit\n');
    const r = await cli(['update', repo.work, '--commit'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/uncommitted changes/);
    expect(await readFile(join(repo.work, 'packages.yaml'), 'utf8')).toBe(PACKAGES + '# local edit\n');
    expect(await git(repo.work, 'rev-list', '--count', 'HEAD')).toBe('1');
  });

  it('refuses a detached HEAD with --commit and --push: exit 1, nothing written or committed', async () => {
    await release('7-Zip', '24.09', 3);
    const repo = await repoWith(PACKAGES);
    await git(repo.work, 'checkout', '-q', '--detach');
    for (const mode of [['--commit'], ['--push', 'origin']]) {
      const r = await cli(['update', repo.work, ...mode], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/HEAD is detached/);
    }
    expect(await readFile(join(repo.work, 'packages.yaml'), 'utf8')).toBe(PACKAGES);
    expect(await git(repo.work, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(await git(repo.bare, 'for-each-ref', '--format=%(refname)', 'refs/heads/packsync')).toBe('');
  });

  it('a catalog read that fails half way changes nothing: exit 1, no file written, no commit', async () => {
    await release('7-Zip', '24.09', 3);
    const repo = await repoWith(PACKAGES);
    // A proxy in front of the simulator that answers the second app detail read with 404.
    const details = new Set<string>();
    const proxy = createServer((req, res) => {
      void (async () => {
        const path = (req.url ?? '').split('?')[0] ?? '';
        if (req.method === 'GET' && /^\/v1\/app\/[^/]+$/.test(path)) {
          details.add(path);
          if (details.size === 2 && [...details].pop() === path) {
            res.writeHead(404, { 'content-type': 'application/json' }).end('{"title":"Not Found"}');
            return;
          }
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
        const up = await fetch(`${sim.url}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers });
        const out: Record<string, string> = {};
        up.headers.forEach((v, k) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding'].includes(k)) out[k] = v;
        });
        res.writeHead(up.status, out).end(await up.text());
      })();
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const viaProxy = { ...env, PACKSYNC_API_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` };
      const r = await cli(['update', repo.work, '--commit'], viaProxy);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/getApp|404|not found/i);
      expect(await readFile(join(repo.work, 'packages.yaml'), 'utf8')).toBe(PACKAGES);
      expect(await git(repo.work, 'rev-list', '--count', 'HEAD')).toBe('1');
      expect(await git(repo.work, 'status', '--porcelain')).toBe('');
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  });

  it('update-problems-at-field: a track that matches no version is an error naming the versions there are; an unknown skip is a warning; both at their fields', async () => {
    const repo = await repoWith(PACKAGES.replace('track: latest, minAge: 1d', "track: '25.x', skip: ['9.9']"));
    const r = await cli(['update', repo.work], env);
    expect(r.code).toBe(1);
    // At the fields themselves (update-problems-at-field; before: the document's first line, 2:1).
    expect(r.stderr).toMatch(/packages\.yaml:10:22: track "25\.x" matches no version of 7-Zip; there are 24\.08, 24\.07, 23\.01/);
    expect(r.stderr).toMatch(/packages\.yaml:10:36: warning: skip "9\.9" is not a version of 7-Zip/);
    expect(await readFile(join(repo.work, 'packages.yaml'), 'utf8')).toBe(
      PACKAGES.replace('track: latest, minAge: 1d', "track: '25.x', skip: ['9.9']"),
    );
  });
  it('--push makes each group its own branch from HEAD, pushes it, and leaves the work tree and branch as they were', async () => {
    await release('7-Zip', '24.09', 3);
    const repo = await repoWith(PACKAGES.replace('    update:\n      group: utilities', '    update: {}'));
    const head = await git(repo.work, 'rev-parse', 'HEAD');
    const r = await cli(['update', repo.work, '--push', 'origin'], env);
    expect(r.code).toBe(0);
    expect(await git(repo.work, 'rev-parse', 'HEAD')).toBe(head);
    expect(await git(repo.work, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(await git(repo.work, 'status', '--porcelain')).toBe('');
    expect(await readFile(join(repo.work, 'packages.yaml'), 'utf8')).toContain("version: '24.08'");
    const seven = await git(repo.bare, 'show', 'packsync/update/utilities:packages.yaml');
    expect(seven).toContain("version: '24.09'");
    expect(seven).toContain('version: "7.4.5"');
    expect(await git(repo.bare, 'rev-parse', 'packsync/update/utilities^')).toBe(head);
    const pwsh = await git(repo.bare, 'show', 'packsync/update/pwsh:packages.yaml');
    expect(pwsh).toContain("version: '24.08'");
    expect(pwsh).toContain('version: "7.4.6"');
    expect(await git(repo.bare, 'log', '-1', '--format=%s', 'packsync/update/pwsh')).toBe('Update PowerShell 7 to 7.4.6');
    // A later run replaces the same branch in place.
    await release('7-Zip', '24.10', 2);
    const again = await cli(['update', repo.work, '--push', 'origin', '--branch-prefix', 'packsync/update'], env);
    expect(again.code).toBe(0);
    expect(await git(repo.bare, 'show', 'packsync/update/utilities:packages.yaml')).toContain("version: '24.10'");
    expect(await git(repo.bare, 'rev-parse', 'packsync/update/utilities^')).toBe(head);
    // Nothing new: the branch already holds exactly this update, so it is not pushed again.
    const pushedSha = await git(repo.bare, 'rev-parse', 'packsync/update/utilities');
    const third = await cli(['update', repo.work, '--push', 'origin'], env);
    expect(third.code).toBe(0);
    expect(await git(repo.bare, 'rev-parse', 'packsync/update/utilities')).toBe(pushedSha);
  });

  it('a rejected push pushes no branch at all and leaves the work tree untouched (exit 1)', async () => {
    await release('7-Zip', '24.09', 3);
    const repo = await repoWith(PACKAGES.replace('    update:\n      group: utilities', '    update: {}'));
    const hook = join(repo.bare, 'hooks', 'pre-receive');
    await writeFile(hook, '#!/bin/sh\nwhile read old new ref; do case "$ref" in */pwsh) echo "refusing pwsh" >&2; exit 1;; esac; done\n', {
      mode: 0o755,
    });
    const r = await cli(['update', repo.work, '--push', 'origin', '--branch-prefix', 'bot'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/rejected, no branch was pushed/);
    expect(await git(repo.bare, 'for-each-ref', '--format=%(refname)', 'refs/heads/bot')).toBe('');
    expect(await git(repo.work, 'for-each-ref', '--format=%(refname)', 'refs/heads/bot')).toBe('');
    expect(await git(repo.work, 'status', '--porcelain')).toBe('');
    expect(await readFile(join(repo.work, 'packages.yaml'), 'utf8')).toBe(
      PACKAGES.replace('    update:\n      group: utilities', '    update: {}'),
    );
  });
  it('push-without-credentials-prompts: a remote that wants credentials fails at once saying how to give them, never at a prompt (exit 1, nothing pushed)', async () => {
    await release('7-Zip', '24.09', 3);
    const repo = await repoWith(PACKAGES);
    const asked = createServer((_req, res) => res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end());
    await new Promise<void>((r) => asked.listen(0, '127.0.0.1', r));
    try {
      const remote = `http://127.0.0.1:${(asked.address() as AddressInfo).port}/acme/manifests.git`;
      const r = await cli(['update', repo.work, '--push', remote], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/the remote needs credentials: set up a git credential helper, an SSH key or a token/);
      expect(await git(repo.work, 'status', '--porcelain')).toBe('');
    } finally {
      asked.close();
    }
  });

  it("--pull-request opens a pull request per pushed branch with the providers' real request shapes and auth, and updates it later", async () => {
    await release('7-Zip', '24.09', 3);
    const repo = await repoWith(PACKAGES);
    const rx = await startReceiver();
    try {
      await mkdir(join(repo.work, '..', 'secrets'), { recursive: true });
      await writeFile(join(repo.work, '..', 'secrets', 'token'), 'tok-SECRET-1\n');
      const conf = join(repo.work, '..', 'notify.yaml');
      const providers = (type: string, address: string): string =>
        `providers:\n  - name: forge\n    type: ${type}\n    address: ${address}\n    tokenFile: secrets/token\n    repository: acme/manifests\nalerts:\n  - provider: forge\n`;
      await writeFile(conf, providers('github', rx.url));
      const args = ['update', repo.work, '--push', 'origin', '--pull-request', 'forge', '--notifications', conf];
      const r = await cli(args, env);
      expect(r.code).toBe(0);
      expect(rx.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
        'GET /repos/acme/manifests/pulls?state=open&head=acme%3Apacksync%2Fupdate%2Futilities',
        'POST /repos/acme/manifests/pulls',
      ]);
      expect(rx.requests[1]!.headers.authorization).toBe('Bearer tok-SECRET-1');
      const body = JSON.parse(rx.requests[1]!.body) as Record<string, string>;
      expect(body).toMatchObject({
        head: 'packsync/update/utilities',
        base: 'main',
        title: 'Update utilities: 7-Zip 24.09, PowerShell 7 7.4.6',
      });
      expect(body.body).toContain('| Package/seven-zip | 24.08 | 24.09 |');
      // The plan of the branch's commit, as `plan -o markdown` prints it there (the work tree is not touched).
      const branchHead = await git(repo.bare, 'rev-parse', 'packsync/update/utilities');
      expect(body.body).toContain(`### packsync plan for commit \`${branchHead.slice(0, 12)}\``);
      expect(body.body).toMatch(/seven-zip/);
      expect(await git(repo.work, 'worktree', 'list', '--porcelain')).not.toMatch(/packsync-update-plan/);
      expect(r.stdout + r.stderr).not.toContain('tok-SECRET-1');

      await writeFile(conf, providers('gitlab', rx.url));
      rx.requests.length = 0;
      expect((await cli(args, env)).code).toBe(0);
      expect(rx.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
        'GET /projects/acme%2Fmanifests/merge_requests?state=opened&source_branch=packsync%2Fupdate%2Futilities',
        'POST /projects/acme%2Fmanifests/merge_requests',
      ]);
      expect(rx.requests[1]!.headers['private-token']).toBe('tok-SECRET-1');
      expect(JSON.parse(rx.requests[1]!.body)).toMatchObject({ source_branch: 'packsync/update/utilities', target_branch: 'main' });

      await writeFile(conf, providers('azuredevops', `${rx.url}/org`));
      rx.requests.length = 0;
      expect((await cli(args, env)).code).toBe(0);
      expect(rx.requests[1]!.method + ' ' + rx.requests[1]!.path).toBe(
        'POST /org/acme/_apis/git/repositories/manifests/pullrequests?api-version=7.1',
      );
      expect(rx.requests[1]!.headers.authorization).toBe(`Basic ${Buffer.from(':tok-SECRET-1').toString('base64')}`);
      expect(JSON.parse(rx.requests[1]!.body)).toMatchObject({
        sourceRefName: 'refs/heads/packsync/update/utilities',
        targetRefName: 'refs/heads/main',
      });

      await writeFile(conf, providers('github', rx.url));
      rx.requests.length = 0;
      rx.replies.push('[{"number": 7}]');
      expect((await cli(args, env)).code).toBe(0);
      expect(rx.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
        'GET /repos/acme/manifests/pulls?state=open&head=acme%3Apacksync%2Fupdate%2Futilities',
        'PATCH /repos/acme/manifests/pulls/7',
      ]);

      // A provider that says the repository is not there (404) or refuses the request (422): exit 1 naming the status.
      for (const [answers, status] of [
        [[404], 404],
        [[200, 422], 422],
      ] as const) {
        rx.requests.length = 0;
        rx.answer.push(...answers);
        const r2 = await cli(args, env);
        expect(r2.code).toBe(1);
        expect(r2.stderr).toMatch(new RegExp(`answered ${status}`));
        expect(r2.stdout + r2.stderr).not.toContain('tok-SECRET-1');
      }

      rx.requests.length = 0;
      rx.answer.push(401);
      const refused = await cli(args, env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/answered 401/);
      // A provider's refusal is not a usage error, and it says what is already on the remote (regression: it said neither).
      expect(refused.stderr).toMatch(/UPDATE_PUSH: .*the branches are pushed: packsync\/update\/utilities \([0-9a-f]{12}\)/);
      expect(refused.stdout + refused.stderr).not.toContain('tok-SECRET-1');
    } finally {
      await rx.close();
    }
  });
});

describe('packsync update inside a Baseline', () => {
  const BASELINE = [
    'apiVersion: packsync.dev/v1',
    'kind: Baseline',
    'metadata: { name: standard-apps }',
    'spec:',
    '  rings:',
    '    pilot: 2e346735-40e0-4c05-9733-4aece1ad5b00 # Pilot first',
    '    broad: 76aae74d-9520-4027-a476-94b19bb0471e',
    '  defaults:',
    '    scope: machine',
    '    update: { track: latest, minAge: 1d }',
    '  apps:',
    "    - { app: 7-Zip, version: '24.08' }   # the utility everyone gets",
    '    - app: PowerShell 7',
    '      version: 7.4.5',
    '  overrides:',
    '    - { rings: [broad], apps: [PowerShell 7], version: 7.4.4, reason: held back for a vendor bug }',
    '',
  ].join('\n');

  // Also the regression where two groups editing one file failed at the second commit ("nothing to commit").
  it('bumps the version in the app entry, every other byte kept, one commit per group; a version an override writes is a warning, not an edit', async () => {
    await release('7-Zip', '24.09', 3);
    const repo = await repoWith(BASELINE);
    const r = await cli(['update', repo.work, '--commit', '--detailed-exitcode'], env);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Package/standard-apps.7-zip 24.08 → 24.09');
    const after = await readFile(join(repo.work, 'packages.yaml'), 'utf8');
    expect(after).toBe(
      BASELINE.replace("version: '24.08' }", "version: '24.09' }").replace('version: 7.4.5\n  overrides', 'version: 7.4.6\n  overrides'),
    );
    // The broad ring's PowerShell version is written by an override: named, never edited.
    expect(r.stderr).toMatch(/packages\.yaml:\d+:\d+: .*standard-apps\.powershell-7\.broad.*override/);
    expect((await git(repo.work, 'log', '-2', '--format=%s')).split('\n').sort()).toEqual([
      'Update 7-Zip to 24.09',
      'Update PowerShell 7 to 7.4.6',
    ]);
    expect(await git(repo.work, 'status', '--porcelain')).toBe('');
    const rendered = await cli(['render', repo.work], env);
    expect(rendered.stdout).toMatch(/version: "?24\.09"?/);
  });

  // Regression: update --commit committed a tree no plan or apply could load (package.duplicate).
  it('does not move a package onto the live identity a pinned package already has: a warning names both, the other moves go ahead', async () => {
    await release('7-Zip', '24.09', 3);
    const pinned = [
      '---',
      'apiVersion: packsync.dev/v1',
      'kind: Package',
      'metadata: { name: seven-zip-pinned }',
      'spec:',
      '  catalog:',
      '    app: 7-Zip',
      "    version: '24.09'",
      '    scope: machine',
      '',
    ].join('\n');
    const text = PACKAGES + pinned;
    const repo = await repoWith(text);
    const r = await cli(['update', repo.work, '--commit', '--detailed-exitcode'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /packages\.yaml:\d+:\d+: .*Package\/seven-zip is not moved 24\.08 → 24\.09: Package "seven-zip-pinned" \(packages\.yaml:\d+:\d+\)/,
    );
    expect(await readFile(join(repo.work, 'packages.yaml'), 'utf8')).toBe(text.replace('version: "7.4.5"', 'version: "7.4.6"'));
    expect(await git(repo.work, 'rev-list', '--count', 'HEAD')).toBe('2');
    expect(await git(repo.work, 'status', '--porcelain')).toBe('');
    // What was committed loads: a plan of it is not refused.
    expect((await cli(['validate', repo.work], env)).code).toBe(0);
  });

  it("first-ring-pin-does-not-hide-entry: a pin of the first ring at the entry's version does not stop update bumping the entry the other rings follow", async () => {
    // Before: the shared package took its version source from the first ring (the override), so
    // update warned "comes from a Baseline's … override" and bumped nothing; with the pin on the
    // second ring it bumped: the result hung on ring order.
    await release('7-Zip', '24.09', 3);
    const text = [
      'apiVersion: packsync.dev/v1',
      'kind: Baseline',
      'metadata: { name: std }',
      'spec:',
      '  rings: { pilot: 2e346735-40e0-4c05-9733-4aece1ad5b00, broad: 76aae74d-9520-4027-a476-94b19bb0471e }',
      '  defaults: { scope: machine, update: { track: latest } }',
      '  apps:',
      "    - { app: 7-Zip, version: '24.08' }",
      '  overrides:',
      "    - { rings: [pilot], apps: [7-Zip], version: '24.08' }",
      '',
    ].join('\n');
    const repo = await repoWith(text);
    const r = await cli(['update', repo.work, '--detailed-exitcode'], env);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(await readFile(join(repo.work, 'packages.yaml'), 'utf8')).toBe(
      text.replace("{ app: 7-Zip, version: '24.08' }", "{ app: 7-Zip, version: '24.09' }"),
    );
    const rendered = await cli(['render', repo.work], env);
    expect(rendered.code).toBe(0);
    expect(rendered.stdout).toMatch(/version: "?24\.08"?[\s\S]*version: "?24\.09"?|version: "?24\.09"?[\s\S]*version: "?24\.08"?/);
    expect((await cli(['update', repo.work, '--detailed-exitcode'], env)).code).toBe(0);
  });
});
