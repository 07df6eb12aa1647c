/**
 * Events and notifications from a real agent: `packsync run --notifications` following a git
 * repository against the simulator, with a signed webhook receiver and a GitHub commit status
 * receiver on port 0. An invalid commit gets `failure` on its own sha and a ValidationFailed
 * event; the fix gets `success` and Recovered. An API outage leaves ApplyFailed then Recovered.
 * Drift under `--drift report` is a Drifted condition, a gauge and a counted event. No URL or
 * token reaches the logs, /status or the page. `notify test` sends a sample.
 */
import { createHmac } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/loop.js';
import { createMetrics } from '../../src/agent/http/metrics.js';
import { StatusTracker } from '../../src/agent/http/status.js';
import { createApiClient } from '../../src/api/client.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import { startNotifiedAgent } from '../support/notified-agent.js';
import type { RunningAgent } from '../support/agent-process.js';
import type { TestRepo } from '../support/git.js';
import { deploymentsYaml, manifestRepo, writeRepo } from '../support/manifests.js';
import { until as poll } from '../support/poll.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';

const HMAC = 'agent-hmac-key-0123456789';
const TOKEN = 'ghp_notarealtoken0123456789';
let sim: TestSim;
let repo: TestRepo;
let rx: Receiver;
let agent: RunningAgent;
let notifications: string;

interface Hook {
  reason: string;
  object: { kind: string; name: string };
  revision: string;
}

const hooks = (): Hook[] => rx.requests.filter((r) => r.path === '/hook').map((r) => JSON.parse(r.body) as Hook);
const statuses = (): { sha: string; state: string; context: string }[] =>
  rx.requests
    .filter((r) => r.path.startsWith('/gh/'))
    .map((r) => ({ sha: r.path.split('/').pop()!, ...(JSON.parse(r.body) as { state: string; context: string }) }));

const until = <T>(what: string, probe: () => T | undefined | false, ms = 30_000): Promise<T> =>
  poll(what, probe, ms, { intervalMs: 50, detail: () => rx.requests.map((r) => [r.path, r.body.slice(0, 120)]) });

beforeAll(async () => {
  sim = await startTestSimulator();
  rx = await startReceiver();
  repo = await manifestRepo();
  ({ agent, notifications } = await startNotifiedAgent(
    sim,
    repo,
    `providers:
  - name: hook
    type: webhook
    addressFile: secrets/hook-url
    secretFile: secrets/hmac
  - name: gh
    type: github
    address: ${rx.url}/gh
    tokenFile: secrets/gh-token
    repository: acme/fleet
alerts:
  - provider: hook
    severity: error
  - provider: gh
`,
    { 'hook-url': `${rx.url}/hook`, hmac: HMAC, 'gh-token': TOKEN },
  ));
});

afterAll(async () => {
  await agent?.stop();
  await rx?.close();
  await sim?.close();
});

describe('run --notifications', () => {
  it('sets commit statuses and sends signed failure and recovery events, never leaking URLs or tokens', async () => {
    const first = await agent.until('first apply', (s) => s.lastAppliedRevision !== null);
    const head = first.lastAppliedRevision!;
    await until('success on the first commit', () => statuses().some((s) => s.sha === head && s.state === 'success'));
    expect(
      statuses()
        .filter((s) => s.sha === head)
        .map((s) => [s.state, s.context]),
    ).toEqual([
      ['pending', 'packsync/gh'],
      ['success', 'packsync/gh'],
    ]);
    expect(rx.requests.find((r) => r.path.startsWith('/gh/'))!.headers.authorization).toBe(`Bearer ${TOKEN}`);

    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml().replace('state: running', 'state: runing'));
    const bad = await repo.commit('typo');
    await agent.reconcile();
    await until('failure on the invalid commit', () => statuses().some((s) => s.sha === bad && s.state === 'failure'));
    const invalid = await until('ValidationFailed sent', () =>
      rx.requests.find((r) => r.path === '/hook' && r.body.includes('ValidationFailed')),
    );
    expect(JSON.parse(invalid.body)).toMatchObject({
      reason: 'ValidationFailed',
      severity: 'error',
      object: { kind: 'Source', name: repo.fileUrl },
      revision: bad,
    });
    expect(invalid.headers['x-packsync-signature']).toBe(`sha256=${createHmac('sha256', HMAC).update(invalid.body).digest('hex')}`);
    // The same invalid commit again: no second event, no identical status. Checked once the fix's
    // deliveries arrived: anything this pass sent was sent before the fix was even committed.
    await agent.reconcile();

    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml());
    const fixed = await repo.commit('fix');
    await agent.reconcile();
    await until('success on the fix', () => statuses().some((s) => s.sha === fixed && s.state === 'success'));
    const recovered = await until('Recovered sent', () => hooks().find((h) => h.reason === 'Recovered'));
    expect(recovered).toMatchObject({ object: { kind: 'Source', name: repo.fileUrl }, revision: fixed });
    expect(hooks().filter((h) => h.reason === 'ValidationFailed')).toHaveLength(1);
    expect(statuses().filter((s) => s.sha === bad && s.state === 'failure')).toHaveLength(1);
    expect(await agent.counter('packsync_notifications_total', { provider: 'hook', reason: 'ValidationFailed', result: 'sent' })).toBe(1);

    const page = await (await fetch(`${agent.base}/`)).text();
    const status = await (await fetch(`${agent.base}/status`)).text();
    for (const text of [page, status]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(HMAC);
      expect(text).not.toContain(`${rx.url}/hook`);
    }
    expect(await agent.stop()).toBe(0);
    const out = await agent.spawned.done;
    expect(out.stdout + out.stderr).toContain('reconcile pass');
    for (const secret of [TOKEN, HMAC, `${rx.url}/hook`, sim.key]) expect(out.stdout + out.stderr).not.toContain(secret);
  });

  it('notify test sends a sample to a provider and exits 0; a refusing receiver exits 1 without its URL', async () => {
    const before = rx.requests.length;
    const ok = await spawnCli(['notify', 'test', '--provider', 'hook', '--notifications', notifications], {}).done;
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('sent a sample to hook (webhook): HTTP 200');
    const sample = rx.requests[before]!;
    expect(JSON.parse(sample.body)).toMatchObject({ reason: 'ApplySucceeded', metadata: { test: true } });
    expect(sample.headers['x-packsync-signature']).toBe(`sha256=${createHmac('sha256', HMAC).update(sample.body).digest('hex')}`);
    const sha = 'c'.repeat(40);
    const gh = await spawnCli(['notify', 'test', '--provider', 'gh', '--notifications', notifications, '--revision', sha], {}).done;
    expect(gh.code).toBe(0);
    expect(rx.requests.at(-1)!.path).toBe(`/gh/repos/acme/fleet/statuses/${sha}`);
    rx.answer.push(403);
    const refused = await spawnCli(['notify', 'test', '--provider', 'gh', '--notifications', notifications, '--revision', sha], {}).done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('delivery to gh (github) failed: HTTP 403');
    expect(refused.stderr).not.toContain(rx.url);
    expect(refused.stderr).not.toContain(TOKEN);
  });
});

describe('events from the loop', () => {
  it('an API outage leaves ApplyFailed then Recovered; reported drift is a Drifted condition, a gauge and a counted event', async () => {
    const s2 = await startTestSimulator();
    const dir = await writeRepo();
    const api = createApiClient({ baseUrl: s2.url, apiKey: s2.key, retry: { maxAttempts: 1 } });
    const status = new StatusTracker({ source: dir });
    const metrics = createMetrics(false);
    const loop = new Agent({
      source: { sync: () => Promise.resolve({ dir, revision: null, label: dir }), ref: null },
      api,
      stateDir: await tempDir('packsync-state-'),
      planOptions: { ...DEFAULT_PLAN_OPTIONS, drift: 'report' },
      logger: pino({ level: 'silent' }),
      metrics,
      status,
      passTimeoutMs: 60_000,
      backoff: { baseMs: 60_000, maxMs: 60_000 },
    });
    const pass = async (why: string): Promise<void> => {
      loop.trigger(why);
      await loop.idle();
    };
    try {
      await pass('startup');
      expect(status.status.history[0]?.result).toBe('Succeeded');
      await s2.admin('PUT', '/_sim/faults', '5xx=1');
      await pass('outage');
      expect(status.status.history[0]?.result).toBe('Failed');
      expect(status.status.events[0]).toMatchObject({ reason: 'ApplyFailed', severity: 'error', object: `Source/${dir}` });
      expect(loop.ready()).toBe(true); // can still do its job: stays in its Service
      await s2.admin('PUT', '/_sim/faults', 'none');
      await pass('back');
      expect(status.status.events[0]).toMatchObject({ reason: 'Recovered', object: `Source/${dir}` });
      expect(status.status.events.map((e) => e.reason)).toContain('ApplyFailed');

      const running = (await s2.state()).deployments.find((d) => d.status === 'Running')!;
      await s2.admin('POST', `/_sim/deployments/${running.id}/status`, { status: 'Stopped' });
      await pass('drift 1');
      await pass('drift 2');
      await pass('drift 3');
      expect(status.condition('Drifted')).toMatchObject({
        status: 'True',
        reason: 'DriftDetected',
        message: expect.stringContaining('Deployment/seven-zip-24-08') as string,
      });
      expect(status.condition('Ready')).toMatchObject({ status: 'True' });
      expect(status.status.history[0]?.message).toMatch(/, 1 drifted$/);
      const drift = status.status.events.find((e) => e.reason === 'DriftDetected')!;
      expect(drift).toMatchObject({ object: 'Deployment/seven-zip-24-08', count: 3 });
      expect(Date.parse(drift.lastTimestamp)).toBeGreaterThan(Date.parse(drift.time));
      expect((await metrics.registry.getSingleMetricAsString('packsync_drifted_objects')).trim().split('\n').pop()).toBe(
        'packsync_drifted_objects 1',
      );
    } finally {
      await loop.stop();
      await api.close();
      await s2.close();
    }
  });
});
