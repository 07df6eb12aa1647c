/**
 * Commit statuses and chat messages tell the truth (docs/agent.md "Notifications"), wired as the
 * agent wires them (status tracker → notifier) against a local receiver. Regression tests for: an
 * API outage on an applied commit turned it red; a commit refused by signature verification was first
 * told "applying"; a revision with an owned deployment still running after its manifest left git was
 * `success`, then stayed "applying"; a rollout a gate stopped was shown green in Slack and Teams.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/agent/http/metrics.js';
import { loadNotificationConfig } from '../../src/agent/notify/config.js';
import { Notifier } from '../../src/agent/notify/notifier.js';
import { NotifyStore } from '../../src/agent/notify/store.js';
import { StatusTracker } from '../../src/agent/http/status.js';
import type { PassRecord } from '../../src/agent/http/status-types.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/repo.js';

const SHA = '0123456789abcdef0123456789abcdef01234567';
const NEXT = 'b'.repeat(40);
let rx: Receiver | null = null;
afterEach(async () => {
  await rx?.close();
  rx = null;
});

async function wired(providers: string): Promise<{ status: StatusTracker; notifier: Notifier; rx: Receiver }> {
  rx = await startReceiver();
  const dir = await tempDir('packsync-notify-');
  await mkdir(join(dir, 'secrets'));
  await writeFile(join(dir, 'secrets', 'token'), 'tok-secret-abcdef012345\n');
  const file = join(dir, 'notifications.yaml');
  await writeFile(file, providers.replaceAll('RX', rx.url));
  const notifier = new Notifier({
    config: await loadNotificationConfig(file),
    store: await NotifyStore.open(join(dir, 'state')),
    sourceUrl: 'https://github.com/acme/fleet.git',
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(false),
    retryMs: [10, 10],
  });
  const status = new StatusTracker({ source: 'x' });
  // As src/agent/start.ts wires them.
  status.onPass((p) => (p.phase === 'start' ? notifier.passStarted(p.revision) : notifier.passFinished(p.revision, p.ok, p.message, p)));
  status.log.onEvent((e) => notifier.onEvent(e));
  return { status, notifier, rx };
}

const GITHUB = `providers:\n  - name: gh\n    type: github\n    address: RX/gh\n    tokenFile: secrets/token\nalerts:\n  - provider: gh\n`;

function pass(result: PassRecord['result'], revision: string, counts: Record<string, number> = {}): PassRecord {
  return { revision, trigger: 't', startedAt: 'x', durationMs: 1, result, counts, writes: 0, message: `${result} ${revision}` };
}

function states(r: Receiver, sha: string): unknown[] {
  return r.requests.filter((q) => q.path.endsWith(`/statuses/${sha}`)).map((q) => (JSON.parse(q.body) as { state: string }).state);
}

describe('commit statuses', () => {
  it('an API outage on an already applied commit does not turn it red', async () => {
    const { status, notifier, rx } = await wired(GITHUB);
    status.startPass(SHA, 'interval');
    status.finishPass(pass('Succeeded', SHA), [], []);
    status.startPass(SHA, 'reconcile');
    status.finishPass(pass('Failed', SHA), null, []);
    status.startPass(SHA, 'retry');
    status.finishPass(pass('Succeeded', SHA), [], []);
    await notifier.flush();
    expect(states(rx, SHA)).toEqual(['pending', 'success']);
    // A new commit that fails on its first pass is still told so.
    status.startPass(NEXT, 'webhook');
    status.finishPass(pass('Failed', NEXT), null, []);
    await notifier.flush();
    expect(states(rx, NEXT)).toEqual(['pending', 'failure']);
  });

  it('an unsigned commit is never told "applying": failure only', async () => {
    const { status, notifier, rx } = await wired(GITHUB);
    status.startPass(SHA, 'interval');
    status.finishPass(pass('Succeeded', SHA), [], []);
    status.sourceRefused(NEXT, `commit ${NEXT} is not signed`);
    status.startPass(SHA, 'webhook');
    status.finishPass(pass('Succeeded', SHA), [], []);
    await notifier.flush();
    expect(states(rx, NEXT)).toEqual(['failure']);
  });

  it('a revision with objects that require pruning stays pending, never success, and says so instead of "applying" (regression: "applying" for ever)', async () => {
    const { status, notifier, rx } = await wired(GITHUB);
    status.startPass(SHA, 'interval');
    status.finishPass(pass('Succeeded', SHA, { orphaned: 1 }), [], []);
    await notifier.flush();
    expect(states(rx, SHA)).toEqual(['pending', 'pending']);
    const descriptions = rx.requests
      .filter((q) => q.path.endsWith(`/statuses/${SHA}`))
      .map((q) => (JSON.parse(q.body) as { description: string }).description);
    expect(descriptions).toEqual([
      'packsync is applying this revision',
      'applied, but 1 object(s) require pruning (their manifests left git)',
    ]);
    // The next pass over the same commit tells nothing again.
    status.startPass(SHA, 'interval');
    status.finishPass(pass('Succeeded', SHA, { orphaned: 1 }), [], []);
    await notifier.flush();
    expect(states(rx, SHA)).toHaveLength(2);
  });
});

describe('chat colours by meaning', () => {
  it('a rollout a gate stopped (GateHeld) is never green in Slack or Teams', async () => {
    const { status, notifier, rx } = await wired(
      `providers:\n  - name: s\n    type: slack\n    address: RX/slack\n  - name: t\n    type: teams\n    address: RX/teams\nalerts:\n  - provider: s\n  - provider: t\n`,
    );
    status.event({
      reason: 'GateHeld',
      object: 'Deployment/zoom',
      message: 'held on wave 2/3 (stopped): Fabrikam: 30.4% failed',
      revision: SHA,
      wave: 2,
    });
    await notifier.flush();
    const slack = rx.requests.find((q) => q.path === '/slack')!.body;
    const teams = rx.requests.find((q) => q.path === '/teams')!.body;
    expect(slack).not.toContain('large_green_circle');
    expect(slack).toContain(':large_orange_circle:');
    expect(JSON.stringify(JSON.parse(teams))).toContain('"color":"Warning"');
  });
});

describe('a notification URL with credentials', () => {
  it('notify test refuses credentials in a notification URL clearly, without printing them (regression: "no response (TypeError)")', async () => {
    const dir = await tempDir('packsync-notify-');
    await mkdir(join(dir, 'secrets'));
    await writeFile(join(dir, 'secrets', 'url'), 'http://user:s3cr3t-pass@127.0.0.1:9/basic\n');
    const file = join(dir, 'notifications.yaml');
    await writeFile(file, 'providers:\n  - name: basic\n    type: slack\n    addressFile: secrets/url\nalerts:\n  - provider: basic\n');
    const out = await cli(['notify', 'test', '--provider', 'basic', '--notifications', file], {});
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('URLs with credentials (user:password@) are not supported');
    expect(out.stdout + out.stderr).not.toContain('s3cr3t-pass');
  });
});
