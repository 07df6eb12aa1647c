/**
 * Notifications (docs/agent.md) against local HTTP receivers: the payload of each provider (Adaptive
 * Card, MessageCard, Slack, signed webhook, commit statuses of GitHub, GitLab and Azure DevOps),
 * once per event across restarts, reminders with backoff, Recovered after a failure, filters,
 * retries that never throw, metrics, and the notifications file's secrets and relative paths.
 */
import { createHmac } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/agent/events.js';
import type { EventInput } from '../../src/agent/events.js';
import { createMetrics } from '../../src/agent/http/metrics.js';
import { loadNotificationConfig } from '../../src/agent/notify/config.js';
import { Notifier } from '../../src/agent/notify/notifier.js';
import { NotifyStore } from '../../src/agent/notify/store.js';
import { tempDir } from '../support/repo.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { parsePrometheus } from './prometheus.js';

const SHA = '0123456789abcdef0123456789abcdef01234567';
const HMAC_KEY = 'hmac-key-0123456789';
const TOKEN = 'tok-secret-abcdef012345';
let receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** Writes a notifications file with secrets in files beside it (relative paths, trailing newlines). */
async function setup(
  yaml: (dir: string) => string,
  secrets: Record<string, string>,
): Promise<{ file: string; dir: string; state: string }> {
  const dir = await tempDir('packsync-notify-');
  await mkdir(join(dir, 'secrets'));
  for (const [name, value] of Object.entries(secrets)) await writeFile(join(dir, 'secrets', name), `${value}\n`);
  const file = join(dir, 'notifications.yaml');
  await writeFile(file, yaml(dir));
  return { file, dir, state: join(dir, 'state') };
}

interface Harness {
  log: EventLog;
  notifier: Notifier;
  metrics: ReturnType<typeof createMetrics>;
  clock: { t: number };
  emit: (e: EventInput) => Promise<void>;
}

async function harness(
  file: string,
  state: string,
  sourceUrl = 'https://github.com/acme/fleet.git',
  clock = { t: Date.parse('2026-01-01T00:00:00Z') },
): Promise<Harness> {
  const config = await loadNotificationConfig(file);
  const metrics = createMetrics(false);
  const log = new EventLog(() => new Date(clock.t));
  const notifier = new Notifier({
    config,
    store: await NotifyStore.open(state),
    sourceUrl,
    logger: pino({ level: 'silent' }),
    metrics,
    now: () => new Date(clock.t),
    retryMs: [10, 10],
  });
  log.onEvent((e) => notifier.onEvent(e));
  return {
    log,
    notifier,
    metrics,
    clock,
    emit: async (e) => {
      log.record(e);
      await notifier.flush();
    },
  };
}

const failed: EventInput = { reason: 'ApplyFailed', object: 'Deployment/seven-zip', message: 'HTTP_409: busy', revision: SHA };

describe('webhook provider', () => {
  it('posts the event as JSON signed with X-Packsync-Signature: sha256=HEX(HMAC-SHA256(secret, body))', async () => {
    const rx = await receiver();
    const { file, state } = await setup(
      () =>
        `providers:\n  - name: hook\n    type: webhook\n    addressFile: secrets/url\n    secretFile: ./secrets/hmac\nalerts:\n  - provider: hook\n`,
      { url: `${rx.url}/hooks/packsync`, hmac: HMAC_KEY },
    );
    const h = await harness(file, state);
    await h.emit(failed);
    const [req] = await rx.waitFor(1);
    expect(req!.path).toBe('/hooks/packsync');
    const body = JSON.parse(req!.body);
    expect(body).toEqual({
      reason: 'ApplyFailed',
      severity: 'error',
      object: { kind: 'Deployment', name: 'seven-zip' },
      revision: SHA,
      message: 'HTTP_409: busy',
      metadata: { count: 1 },
      timestamp: '2026-01-01T00:00:00.000Z',
    });
    // The key was read without its trailing newline: the receiver's own HMAC matches.
    expect(req!.headers['x-packsync-signature']).toBe(`sha256=${createHmac('sha256', HMAC_KEY).update(req!.body).digest('hex')}`);
    const m = parsePrometheus(await h.metrics.registry.metrics());
    expect(m.get('packsync_notifications_total')).toEqual([
      { labels: { provider: 'hook', reason: 'ApplyFailed', result: 'sent' }, value: 1 },
    ]);
  });

  it('sends an event once across passes and restarts; reminds a persisting failure after 1 h, 4 h, then 24 h; Recovered when it clears', async () => {
    const rx = await receiver();
    const { file, state } = await setup(
      () =>
        `providers:\n  - name: hook\n    type: webhook\n    addressFile: secrets/url\nalerts:\n  - provider: hook\n    severity: error\n`,
      { url: rx.url },
    );
    const clock = { t: Date.parse('2026-01-01T00:00:00Z') };
    let h = await harness(file, state, undefined, clock);
    await h.emit(failed);
    await h.emit(failed); // the next pass: same identity
    clock.t += 30 * 60_000;
    await h.emit(failed);
    expect(rx.requests).toHaveLength(1);
    // A restart: a new log and notifier over the same state directory.
    h = await harness(file, state, undefined, clock);
    await h.emit(failed);
    expect(rx.requests).toHaveLength(1);
    clock.t += 31 * 60_000; // 1 h 1 min after the first send
    await h.emit(failed);
    expect(rx.requests).toHaveLength(2);
    expect(JSON.parse(rx.requests[1]!.body).metadata).toMatchObject({ reminder: 1 });
    clock.t += 3 * 3_600_000; // 3 h after the reminder: the next waits 4 h
    await h.emit(failed);
    expect(rx.requests).toHaveLength(2);
    clock.t += 3_600_000;
    await h.emit(failed);
    expect(rx.requests).toHaveLength(3);
    // Info events do not pass a severity: error alert; Recovered answers the failure once.
    await h.emit({ reason: 'WaveAdvanced', object: 'Deployment/seven-zip', message: 'wave 2/3 started', revision: SHA, wave: 2 });
    await h.emit({ reason: 'Recovered', object: 'Deployment/seven-zip', message: 'applies again', revision: 'f'.repeat(40) });
    await h.emit({ reason: 'Recovered', object: 'Deployment/seven-zip', message: 'applies again', revision: 'f'.repeat(40) });
    expect(rx.requests.map((r) => (JSON.parse(r.body) as { reason: string }).reason)).toEqual([
      'ApplyFailed',
      'ApplyFailed',
      'ApplyFailed',
      'Recovered',
    ]);
    // A Recovered for an object nobody was told about is not sent.
    await h.emit({ reason: 'Recovered', object: 'Deployment/other', message: 'x', revision: SHA });
    expect(rx.requests).toHaveLength(4);
  });

  it('retries a failed delivery with backoff, counts the failure, never throws, and sends again on the next occurrence', async () => {
    const rx = await receiver();
    const { file, state } = await setup(
      () => `providers:\n  - name: hook\n    type: webhook\n    addressFile: secrets/url\nalerts:\n  - provider: hook\n`,
      { url: rx.url },
    );
    const h = await harness(file, state);
    rx.answer.push(503, 502);
    await h.emit(failed);
    expect(rx.requests).toHaveLength(3); // two failures, then delivered
    rx.answer.push(500, 500, 500);
    await h.emit({ ...failed, object: 'Deployment/other' });
    expect(rx.requests).toHaveLength(6);
    await h.emit({ ...failed, object: 'Deployment/other' }); // not delivered before: tried again
    expect(rx.requests).toHaveLength(7);
    const m = parsePrometheus(await h.metrics.registry.metrics()).get('packsync_notifications_total')!;
    expect(m.find((s) => s.labels.result === 'failed')?.value).toBe(1);
    expect(m.find((s) => s.labels.result === 'sent')?.value).toBe(2);
  });

  it('applies alert filters: severity, reasons and object globs', async () => {
    const rx = await receiver();
    const { file, state } = await setup(
      () =>
        `providers:\n  - name: hook\n    type: webhook\n    addressFile: secrets/url\nalerts:\n  - provider: hook\n    reasons: [GateHeld, ApplyFailed]\n    objects: ["Deployment/seven-*"]\n`,
      { url: rx.url },
    );
    const h = await harness(file, state);
    await h.emit({ ...failed, object: 'Flow/seven-zip' });
    await h.emit({ reason: 'WaveAdvanced', object: 'Deployment/seven-zip', message: 'w', revision: SHA, wave: 2 });
    await h.emit({ reason: 'GateHeld', object: 'Deployment/seven-zip', message: 'held', revision: SHA, wave: 2 });
    await h.emit(failed);
    expect(rx.requests.map((r) => `${JSON.parse(r.body).reason} ${JSON.parse(r.body).object.kind}`)).toEqual([
      'GateHeld Deployment',
      'ApplyFailed Deployment',
    ]);
  });
});

describe('chat providers', () => {
  it('teams posts an Adaptive Card; a legacy connector URL gets a MessageCard', async () => {
    const rx = await receiver();
    const { file, state } = await setup(
      () =>
        `providers:\n  - name: ops\n    type: teams\n    addressFile: secrets/workflow\n  - name: old\n    type: teams\n    addressFile: secrets/legacy\nalerts:\n  - provider: ops\n  - provider: old\n`,
      { workflow: `${rx.url}/workflows/abc`, legacy: `${rx.url}/webhookb2/abc/IncomingWebhook/def` },
    );
    const h = await harness(file, state);
    await h.emit(failed);
    const reqs = await rx.waitFor(2);
    const card = JSON.parse(reqs.find((r) => r.path.startsWith('/workflows'))!.body);
    expect(card.type).toBe('message');
    expect(card.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    const content = card.attachments[0].content;
    expect(content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    expect(content.body[0]).toMatchObject({ type: 'TextBlock', text: 'packsync: ApplyFailed Deployment/seven-zip', color: 'Attention' });
    expect(content.body[1]).toMatchObject({ type: 'TextBlock', text: 'HTTP_409: busy' });
    expect(content.body[2].facts).toContainEqual({ title: 'Revision', value: SHA.slice(0, 12) });
    const legacy = JSON.parse(reqs.find((r) => r.path.startsWith('/webhookb2'))!.body);
    expect(legacy).toMatchObject({
      '@type': 'MessageCard',
      '@context': 'https://schema.org/extensions',
      title: 'packsync: ApplyFailed Deployment/seven-zip',
      text: 'HTTP_409: busy',
      themeColor: 'CF222E',
    });
    expect(legacy.sections[0].facts).toContainEqual({ name: 'Object', value: 'Deployment/seven-zip' });
  });

  it('slack posts text and blocks; with a bot token, to its channel with the token as bearer', async () => {
    const rx = await receiver();
    const { file, state } = await setup(
      () =>
        `providers:\n  - name: hook\n    type: slack\n    addressFile: secrets/url\n  - name: bot\n    type: slack\n    address: ${rx.url}/api/chat.postMessage\n    tokenFile: secrets/token\n    channel: "#ops"\nalerts:\n  - provider: hook\n  - provider: bot\n`,
      { url: `${rx.url}/services/T0/B0/x`, token: TOKEN },
    );
    const h = await harness(file, state);
    await h.emit(failed);
    const reqs = await rx.waitFor(2);
    const hook = reqs.find((r) => r.path.startsWith('/services'))!;
    expect(JSON.parse(hook.body)).toMatchObject({
      text: 'packsync: ApplyFailed Deployment/seven-zip: HTTP_409: busy',
      blocks: [{ type: 'section' }, { type: 'context' }],
    });
    expect(hook.headers.authorization).toBeUndefined();
    const bot = reqs.find((r) => r.path === '/api/chat.postMessage')!;
    expect(JSON.parse(bot.body)).toMatchObject({ channel: '#ops' });
    expect(bot.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });
});

describe('commit status providers', () => {
  it('github, gitlab and azuredevops: pending at pass start, success or failure at its end, identical posts skipped', async () => {
    const rx = await receiver();
    const { file, state } = await setup(
      () => `providers:
  - name: gh
    type: github
    address: ${rx.url}/gh
    tokenFile: secrets/token
  - name: gl
    type: gitlab
    address: ${rx.url}/gl/api/v4
    tokenFile: secrets/token
  - name: ado
    type: azuredevops
    address: ${rx.url}/ado/contoso
    tokenFile: secrets/token
    repository: Platform/fleet
alerts:
  - provider: gh
  - provider: gl
  - provider: ado
`,
      { token: TOKEN },
    );
    const h = await harness(file, state, 'https://git.example.com/acme/fleet.git');
    h.notifier.passStarted(SHA);
    h.notifier.passFinished(SHA, false, 'revision is invalid: 1 problem(s)');
    await h.notifier.flush();
    // A re-pass of a judged commit: no pending again, and a failure identical to the newest is not posted.
    h.notifier.passStarted(SHA);
    h.notifier.passFinished(SHA, false, 'revision is invalid: 1 problem(s)');
    h.notifier.passStarted('a'.repeat(40));
    h.notifier.passFinished('a'.repeat(40), true, 'ok');
    h.notifier.passStarted('sha256:0123'); // a directory digest has no commit
    await h.notifier.flush();
    const by = (prefix: string): { path: string; body: Record<string, unknown>; headers: Record<string, unknown> }[] =>
      rx.requests.filter((r) => r.path.startsWith(prefix)).map((r) => ({ path: r.path, body: JSON.parse(r.body), headers: r.headers }));
    const gh = by('/gh/');
    expect(gh.map((r) => [r.path, r.body.state, r.body.context])).toEqual([
      [`/gh/repos/acme/fleet/statuses/${SHA}`, 'pending', 'packsync/gh'],
      [`/gh/repos/acme/fleet/statuses/${SHA}`, 'failure', 'packsync/gh'],
      [`/gh/repos/acme/fleet/statuses/${'a'.repeat(40)}`, 'pending', 'packsync/gh'],
      [`/gh/repos/acme/fleet/statuses/${'a'.repeat(40)}`, 'success', 'packsync/gh'],
    ]);
    expect(gh[1]!.body.description).toBe('revision is invalid: 1 problem(s)');
    expect(gh[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const gl = by('/gl/');
    expect(gl.map((r) => [r.path, r.body.state, r.body.name])).toEqual([
      [`/gl/api/v4/projects/acme%2Ffleet/statuses/${SHA}`, 'running', 'packsync/gl'],
      [`/gl/api/v4/projects/acme%2Ffleet/statuses/${SHA}`, 'failed', 'packsync/gl'],
      [`/gl/api/v4/projects/acme%2Ffleet/statuses/${'a'.repeat(40)}`, 'running', 'packsync/gl'],
      [`/gl/api/v4/projects/acme%2Ffleet/statuses/${'a'.repeat(40)}`, 'success', 'packsync/gl'],
    ]);
    expect(gl[0]!.headers['private-token']).toBe(TOKEN);
    const ado = by('/ado/');
    expect(ado.map((r) => [r.path, r.body.state, r.body.context])).toEqual([
      [
        `/ado/contoso/Platform/_apis/git/repositories/fleet/commits/${SHA}/statuses?api-version=7.1`,
        'pending',
        { genre: 'packsync', name: 'ado' },
      ],
      [
        `/ado/contoso/Platform/_apis/git/repositories/fleet/commits/${SHA}/statuses?api-version=7.1`,
        'failed',
        { genre: 'packsync', name: 'ado' },
      ],
      [
        `/ado/contoso/Platform/_apis/git/repositories/fleet/commits/${'a'.repeat(40)}/statuses?api-version=7.1`,
        'pending',
        { genre: 'packsync', name: 'ado' },
      ],
      [
        `/ado/contoso/Platform/_apis/git/repositories/fleet/commits/${'a'.repeat(40)}/statuses?api-version=7.1`,
        'succeeded',
        { genre: 'packsync', name: 'ado' },
      ],
    ]);
    expect(ado[0]!.headers.authorization).toBe(`Basic ${Buffer.from(`:${TOKEN}`).toString('base64')}`);
    // Restarted, the newest state per sha is remembered: the same success is not posted again.
    const again = await harness(file, state, 'https://git.example.com/acme/fleet.git');
    again.notifier.passFinished('a'.repeat(40), true, 'ok');
    await again.notifier.flush();
    expect(rx.requests).toHaveLength(12);
  });
});

describe('notifications file', () => {
  it('refuses unknown types, missing secrets and alerts naming no provider, without printing secret contents', async () => {
    const bad = async (yaml: string): Promise<string> => {
      const { file } = await setup(() => yaml, { url: 'https://hooks.example.com/very-secret-path' });
      return loadNotificationConfig(file).then(
        () => 'loaded',
        (e: Error) => e.message,
      );
    };
    expect(await bad('providers:\n  - name: a\n    type: pager\nalerts: []\n')).toMatch(
      /type must be one of teams, slack, webhook, github, gitlab, azuredevops/,
    );
    expect(await bad('providers:\n  - name: a\n    type: webhook\n    addressFile: secrets/missing\nalerts:\n  - provider: a\n')).toMatch(
      /addressFile: cannot read .*secrets\/missing/,
    );
    expect(await bad('providers:\n  - name: a\n    type: webhook\n    addressFile: secrets/url\nalerts:\n  - provider: b\n')).toMatch(
      /alerts\[0\]\.provider must name a provider/,
    );
    expect(
      await bad(
        'providers:\n  - name: a\n    type: webhook\n    addressFile: secrets/url\nalerts:\n  - provider: a\n    reasons: [Exploded]\n',
      ),
    ).toMatch(/reasons must be a list of ValidationFailed/);
    expect(await bad('providers:\n  - name: a\n    type: github\nalerts:\n  - provider: a\n')).toMatch(/needs tokenFile/);
    // The file's shape is its JSON Schema's (ajv): every problem of it at once, by path.
    const shape = await bad('providers:\n  - name: a\n    type: webhook\n    adress: x\nalerts:\n  - provider: a\n    severity: loud\n');
    expect(shape).toMatch(/providers\[0\]: unknown field adress/);
    expect(shape).toMatch(/alerts\[0\]\.severity must be one of info, error/);
    expect(await bad('alerts: []\n')).toMatch(/needs a non-empty providers: list/);
    expect(await bad('providers:\n  - name: a\n    type: webhook\n    addressFile: secrets/url\nalerts:\n  - provider: a\n')).toBe(
      'loaded',
    );
  });

  it('pull-request-provider-needs-no-alert: a file whose providers are all used directly (update --pull-request, notify) needs no alert', async () => {
    // Before: `update --pull-request gh` refused a file with only its github provider ("needs at least one alert").
    const { file } = await setup(() => 'providers:\n  - name: gh\n    type: github\n    tokenFile: secrets/url\n', {
      url: 'tok-0123456789',
    });
    await expect(loadNotificationConfig(file, ['gh'])).resolves.toMatchObject({ alerts: [], providers: [{ name: 'gh' }] });
    // A provider nothing uses directly still needs an alert, or it would receive nothing.
    await expect(loadNotificationConfig(file)).rejects.toThrow(/needs at least one alert/);
  });

  it('mistyped-pull-request-provider-blamed-alerts: a provider name the command gives that the file lacks is named, not "needs at least one alert"', async () => {
    const { file } = await setup(() => 'providers:\n  - name: gh\n    type: github\n    tokenFile: secrets/url\n', {
      url: 'tok-0123456789',
    });
    await expect(loadNotificationConfig(file, ['nope'])).rejects.toThrow(/no provider "nope"; there are: gh$/);
  });
});
