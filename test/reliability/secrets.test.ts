/**
 * Secrets and trust boundaries. A full run with every feature on (validate, plan --output json and
 * --out, apply with a custom upload and a tenant upload, export, the agent following a git
 * repository over HTTPS-style smart HTTP with PACKSYNC_GIT_TOKEN, serving /status and /metrics
 * behind a webhook secret, a refused git token, a refused API key) has all of its output and every
 * file it wrote searched for the API key, the webhook secret and the git tokens (raw, base64 in a
 * Basic header, URL-encoded): zero hits. The webhook refuses missing, wrong and replayed signatures
 * and oversized bodies; git URLs and refs cannot smuggle commands or options; and manifests cannot
 * make packsync read or upload a file outside the repository.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitSource, validateRef, validateRemote } from '../../src/agent/source/git-source.js';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import { signBody } from '../../src/agent/http/webhook.js';
import { cli } from '../support/cli.js';
import { createRepo } from '../support/git.js';
import type { TestRepo } from '../support/git.js';
import { spawnAgent } from '../support/agent-process.js';
import { customYaml, writeCustomUpload, writeManifests } from '../support/manifests.js';
import { until } from '../support/poll.js';
import { tempDir } from '../support/repo.js';
import { countBy, startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';
import { report } from './support/env.js';
import { startGitHttp } from './support/git-http.js';
import type { GitHttpServer } from './support/git-http.js';

const WEBHOOK_SECRET = `whsec-${randomBytes(16).toString('hex')}`;
const GIT_TOKEN = `ghp_${randomBytes(18).toString('hex')}`;
const WRONG_GIT_TOKEN = `ghp_${randomBytes(18).toString('hex')}`;
const WRONG_API_KEY = `sk-${randomBytes(16).toString('hex')}`;
const URL_PASSWORD = `pw-${randomBytes(12).toString('hex')}`;

/** Every form a secret could leak in. */
function forms(secret: string): string[] {
  return [
    secret,
    Buffer.from(secret).toString('base64'),
    Buffer.from(`x-access-token:${secret}`).toString('base64'),
    encodeURIComponent(secret),
  ].filter((f, i, a) => a.indexOf(f) === i);
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

describe('secrets and trust boundaries', () => {
  let sim: TestSim;
  let repo: TestRepo;
  let gitHttp: GitHttpServer;
  let secrets: Record<string, string>;
  /** Everything any command printed or served, tagged by where it came from. */
  const captured: { where: string; text: string }[] = [];
  const capture = (where: string, text: string): void => {
    captured.push({ where, text });
  };

  beforeAll(async () => {
    sim = await startTestSimulator();
    secrets = {
      'API key': sim.key,
      'webhook secret': WEBHOOK_SECRET,
      'git token': GIT_TOKEN,
      'refused git token': WRONG_GIT_TOKEN,
      'refused API key': WRONG_API_KEY,
      'URL password': URL_PASSWORD,
    };
    repo = await createRepo(async (dir) => {
      await writeManifests(dir, { wave: 2 });
      await writeCustomUpload(dir);
    });
    gitHttp = await startGitHttp(join(repo.bare, '..'), GIT_TOKEN);
  });

  afterAll(async () => {
    await gitHttp.close();
    await sim.close();
  });

  it('never prints or stores the API key, the webhook secret or a git token, with every feature on', async () => {
    const stateDir = await tempDir('packsync-secrets-state-');
    const work = await tempDir('packsync-secrets-work-');
    const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, PACKSYNC_GIT_TOKEN: GIT_TOKEN };
    const run = async (where: string, args: string[], e: Record<string, string> = env, expectCode?: number): Promise<void> => {
      const r = await cli(args, e, work);
      capture(where, `${r.stdout}\n${r.stderr}`);
      if (expectCode !== undefined) expect(r.code, `${where}: ${r.stdout}${r.stderr}`).toBe(expectCode);
    };

    // The CLI: validate, plan as JSON and saved, apply (custom upload, tenant upload), export.
    await run('validate', ['validate', repo.work], env, 0);
    await run('plan --output json', ['plan', repo.work, '--output', 'json', '--log-level', 'debug'], env, 0);
    await run('plan --out', ['plan', repo.work, '--out', join(work, 'saved.plan'), '--log-level', 'debug', '--log-format', 'json'], env, 0);
    await run(
      'apply saved plan',
      ['apply', '--auto-approve', join(work, 'saved.plan'), '--log-level', 'debug', '--log-format', 'json'],
      env,
      0,
    );
    await run(
      'apply --output json',
      ['apply', '--auto-approve', repo.work, '--output', 'json', '--log-level', 'debug', '--log-format', 'pretty'],
      env,
      0,
    );
    await run('export', ['export', '--out', join(work, 'exported'), '--log-level', 'debug'], env, 0);
    const writes = countBy(await sim.writes());
    expect(writes['POST /v1/package/content/{id}']).toBeGreaterThan(0);
    expect(writes['POST /v1/tenant/{id}/upload']).toBe(1);
    // Refusals must not quote what they refuse.
    await run(
      'apply with a wrong API key',
      ['apply', '--auto-approve', repo.work, '--log-level', 'debug'],
      { ...env, PACKSYNC_API_KEY: WRONG_API_KEY },
      1,
    );
    const keyFile = join(work, 'api-key');
    await writeFile(keyFile, `${sim.key}\n`);
    await run(
      'plan with --api-key-file',
      ['plan', repo.work, '--api-key-file', keyFile, '--log-level', 'debug'],
      { PACKSYNC_API_URL: sim.url, PACKSYNC_STATE_DIR: stateDir },
      0,
    );
    await run('plan against an unreachable URL with a password', ['plan', repo.work, '--api-timeout', '2000', '--log-level', 'debug'], {
      ...env,
      PACKSYNC_API_URL: `http://user:${URL_PASSWORD}@127.0.0.1:1/`,
    });

    // The agent, following the repository over smart HTTP with the token, serving its endpoints.
    // Its own state over an account the CLI converged: it takes the objects over (--adopt), as a lost state must not look like success.
    const agentState = await tempDir('packsync-secrets-agent-');
    const {
      spawned: agent,
      base,
      secretFile,
    } = await spawnAgent(
      [
        '--source',
        gitHttp.url('manifests.git'),
        '--ref',
        'main',
        '--log-format',
        'json',
        '--log-level',
        'debug',
        '--interval',
        '1h',
        '--adopt',
        // A token over plain http:// is refused by default (docs/agent.md "Sources"); this server is on loopback.
        '--allow-insecure-git',
      ],
      { ...env, PACKSYNC_STATE_DIR: agentState },
      { secret: WEBHOOK_SECRET, secretDir: work },
    );
    const webhook: Record<string, number> = {};
    try {
      // Readiness says the agent can work (docs/reconcile.md), not that a pass has run: wait for the applied revision.
      await until(
        'the agent converged',
        async () => ((await (await fetch(`${base}/status`)).json()) as AgentStatus).lastAppliedRevision !== null,
        30_000,
      );
      expect(gitHttp.stats.requests).toBeGreaterThan(gitHttp.stats.refused);
      for (const path of ['/healthz', '/readyz', '/status', '/metrics']) {
        const r = await fetch(`${base}${path}`);
        expect(r.status, path).toBe(200);
        capture(`GET ${path}`, await r.text());
      }
      const status = async (): Promise<AgentStatus> => (await (await fetch(`${base}/status`)).json()) as AgentStatus;
      // Counted by trigger, so a requeue or retry pass of the loop cannot be mistaken for one.
      const webhookPasses = async (): Promise<number> =>
        (await status()).history.filter((h) => h.trigger.startsWith('webhook') || h.trigger === 'manual').length;
      const hook = async (headers: Record<string, string>, body: string | Buffer): Promise<Response> =>
        fetch(`${base}/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-github-event': 'push', ...headers },
          body,
        });
      const body = JSON.stringify({ ref: 'refs/heads/main' });
      const missing = await hook({}, body);
      const wrong = await hook({ 'x-hub-signature-256': signBody(`${WEBHOOK_SECRET}x`, body), 'x-github-delivery': 'd-wrong' }, body);
      const gitlabWrong = await hook({ 'x-gitlab-token': WEBHOOK_SECRET.slice(0, -1) }, body);
      const bearerWrong = await fetch(`${base}/reconcile`, {
        method: 'POST',
        headers: { authorization: `Bearer ${WEBHOOK_SECRET.slice(1)}` },
      });
      webhook.missing = missing.status;
      webhook.wrong = wrong.status;
      webhook.gitlabWrong = gitlabWrong.status;
      webhook.reconcileWrongBearer = bearerWrong.status;
      for (const r of [missing, wrong, gitlabWrong, bearerWrong]) {
        expect(r.status).toBe(401);
        capture('refused webhook', await r.text());
      }
      // That a refusal triggers nothing is decided before the answer: test/agent/sidecar-triggers.test.ts.
      // A good delivery triggers; the same delivery again is ignored.
      const signed = { 'x-hub-signature-256': signBody(WEBHOOK_SECRET, body), 'x-github-delivery': 'delivery-1' };
      const good = await hook(signed, body);
      webhook.signed = good.status;
      expect(good.status).toBe(202);
      await until("the signed delivery's pass", async () => (await webhookPasses()) > 0, 5_000);
      expect(await webhookPasses()).toBe(1);
      const replay = await hook(signed, body);
      webhook.replayed = replay.status;
      expect(replay.status).toBe(200);
      expect(await replay.json()).toMatchObject({ triggered: false, reason: 'duplicate delivery ignored' });
      // An oversized body is refused before any signature check.
      const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
      const oversized = await hook({ 'x-hub-signature-256': signBody(WEBHOOK_SECRET, big), 'x-github-delivery': 'delivery-big' }, big).then(
        (r) => r.status,
        (e: unknown) => `connection error: ${String((e as Error).cause ?? e)}`,
      );
      // The agent answers 413 and closes at once, without reading the body: a client still writing
      // the 2 MiB can see that close (EPIPE, ECONNRESET) before the answer. Either way it was refused,
      // and it triggered nothing.
      webhook.oversized = typeof oversized === 'number' ? oversized : 413;
      if (typeof oversized === 'number') expect(oversized).toBe(413);
      else expect(oversized).toMatch(/EPIPE|ECONNRESET|other side closed/);
      expect(await webhookPasses()).toBe(1);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      agent.child.kill('SIGTERM');
      const end = await agent.done;
      capture('agent stdout', end.stdout);
      capture('agent stderr', end.stderr);
    }

    // A git token the server refuses: the fetch fails, and neither token shows in the error.
    const refused = spawnCli(
      [
        'run',
        '--source',
        gitHttp.url('manifests.git'),
        '--ref',
        'main',
        '--once',
        '--log-format',
        'json',
        '--log-level',
        'debug',
        '--allow-insecure-git',
      ],
      {
        ...env,
        PACKSYNC_STATE_DIR: await tempDir('packsync-secrets-refused-'),
        PACKSYNC_GIT_TOKEN: WRONG_GIT_TOKEN,
      },
    );
    const r = await refused.done;
    capture('agent with a refused token', `${r.stdout}\n${r.stderr}`);
    expect(r.code).toBe(1);
    // (git-source.ts reports a refused fetch of a branch as SOURCE_REF_NOT_FOUND after trying tags.)
    expect(`${r.stdout}${r.stderr}`).toMatch(/SOURCE_FETCH_FAILED|SOURCE_REF_NOT_FOUND/);

    // Files written: saved plan, exported manifests, inventories, the git working copy.
    for (const dir of [work, stateDir, agentState]) {
      for (const f of await filesUnder(dir)) {
        if ((await stat(f)).size > 1024 * 1024) continue;
        if (f === secretFile || f === keyFile) continue; // the operator's own secret files
        capture(`file ${f}`, await readFile(f, 'latin1'));
      }
    }

    const hits: string[] = [];
    for (const [name, secret] of Object.entries(secrets)) {
      for (const form of forms(secret)) {
        for (const c of captured) if (c.text.includes(form)) hits.push(`${name} (${form === secret ? 'raw' : 'encoded'}) in ${c.where}`);
      }
    }
    expect(hits).toEqual([]);
    const bytes = captured.reduce((n, c) => n + c.text.length, 0);
    expect(bytes).toBeGreaterThan(10_000);
    await report('secrets', {
      sources: captured.length,
      bytesSearched: bytes,
      secrets: Object.keys(secrets),
      hits: hits.length,
      webhook,
      gitRequests: gitHttp.stats,
    });
  });

  describe('git URLs and refs cannot run commands or smuggle options', () => {
    const marker = join('/tmp', `packsync-pwned-${randomBytes(6).toString('hex')}`);
    const remotes = [
      `ext::sh -c touch% ${marker}`,
      'ext::sh -c touch% /tmp/pwned',
      `--upload-pack=touch ${marker}`,
      '--upload-pack=touch /tmp/x',
      `-c core.sshCommand=touch ${marker}`,
      '-c core.sshCommand=sh',
      `fd::17`,
      `file:///tmp/x --upload-pack=touch ${marker}`,
      `https://example.com/repo.git\n--upload-pack=touch ${marker}`,
      ` https://example.com/repo.git`,
      'https://user:secret@example.com/repo.git',
      'ftp://example.com/repo.git',
      '',
    ];
    it.each(remotes.map((r) => [JSON.stringify(r), r] as const))('refuses the remote %s', (_shown, remote) => {
      expect(() => validateRemote(remote)).toThrow(expect.objectContaining({ code: 'SOURCE_INVALID' }) as Error);
    });

    const refs = [
      '--output=/tmp/x',
      `--output=${marker}`,
      'main;rm -rf /',
      'main;rm -rf',
      '..',
      'a/../b',
      'main@{1}',
      '$(touch /tmp/x)',
      '`touch /tmp/x`',
      'main\ntouch',
      'HEAD:evil',
      '-c',
      '',
    ];
    it.each(refs.map((r) => [JSON.stringify(r), r] as const))('refuses the ref %s', (_shown, ref) => {
      expect(() => validateRef(ref)).toThrow(expect.objectContaining({ code: 'SOURCE_INVALID' }) as Error);
    });

    it('refuses them through `packsync run` too, and nothing runs', async () => {
      const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: await tempDir('packsync-inject-') };
      const cases: string[][] = [
        ['--source', `ext::sh -c touch% ${marker}`],
        ['--source', repo.fileUrl, '--ref', `--output=${marker}`],
        ['--source', repo.fileUrl, '--ref', `main;touch ${marker}`],
        ['--source', repo.fileUrl, '--path', '../..'],
      ];
      for (const args of cases) {
        const r = await cli(['run', ...args, '--once', '--log-level', 'silent'], env);
        expect(r.code, args.join(' ')).not.toBe(0);
        expect(`${r.stdout}${r.stderr}`).toMatch(
          /SOURCE_INVALID|SOURCE_PATH_INVALID|not a valid|refused|must be a relative path|looks like a flag/,
        );
      }
      expect(() => new GitSource({ url: repo.fileUrl, ref: 'main', path: '../../etc', workDir: '/tmp/unused', env: {} })).toThrow(
        expect.objectContaining({ code: 'SOURCE_PATH_INVALID' }) as Error,
      );
      expect(existsSync(marker)).toBe(false);
    });
  });

  describe('manifests cannot make packsync read or upload a file outside the repository', () => {
    it('refuses custom content whose files are symlinks out of the repository, and uploads nothing', async () => {
      const outside = await tempDir('packsync-outside-');
      const secret = `outside-secret-${randomBytes(8).toString('hex')}`;
      await writeFile(join(outside, 'id_rsa'), `${secret}\n`);
      const dir = await tempDir('packsync-escape-');
      await writeFile(join(dir, 'custom.yaml'), customYaml().split('---')[0]!);
      await mkdir(join(dir, 'content/contoso-agent'), { recursive: true });
      await writeFile(join(dir, 'content/contoso-agent/setup.msi'), 'msi');
      await symlink(join(outside, 'id_rsa'), join(dir, 'content/contoso-agent/id_rsa'));
      // A second package whose content directory itself is a symlink out.
      await writeFile(
        join(dir, 'custom2.yaml'),
        customYaml()
          .split('---')[0]!
          .replace('name: contoso-agent', 'name: contoso-agent-two')
          .replace('content: content/contoso-agent', 'content: content/escape'),
      );
      await symlink(outside, join(dir, 'content/escape'));
      // And a manifest that is a symlink to a YAML file outside: never read at all.
      await writeFile(
        join(outside, 'evil.yaml'),
        `apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: ${secret}\nspec:\n  app: 7-Zip\n`,
      );
      await symlink(join(outside, 'evil.yaml'), join(dir, 'evil.yaml'));

      const before = (await sim.journal(true)).length;
      const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: await tempDir('packsync-escape-state-') };
      const r = await cli(['apply', '--auto-approve', dir], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/custom\.yaml:\d+:\d+: .*id_rsa is a symlink to .*outside the content directory/);
      expect(r.stderr).toMatch(/custom2\.yaml:\d+:\d+: .*outside the repository/);
      expect(`${r.stdout}${r.stderr}`).not.toContain(secret);
      expect((await sim.journal(true)).slice(before)).toEqual([]);
      const v = await cli(['validate', dir, '--output', 'json'], {});
      expect((JSON.parse(v.stdout) as { files: string[] }).files).not.toContain('evil.yaml');
      expect(v.stdout).not.toContain(secret);
    });
  });
});
