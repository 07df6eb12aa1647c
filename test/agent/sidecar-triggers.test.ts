/**
 * Which requests to the sidecar trigger a pass, decided without waiting: the server calls `trigger`
 * before it answers, so once the answer is in, the recorded triggers are final. Replaces the
 * "wait 300 ms, the pass count did not move" checks of the end-to-end suites.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSidecar } from '../../src/agent/http/http-server.js';
import type { Sidecar } from '../../src/agent/http/http-server.js';
import { createMetrics } from '../../src/agent/http/metrics.js';
import { StatusTracker } from '../../src/agent/http/status.js';
import { signBody } from '../../src/agent/http/webhook.js';

const SECRET = 'sidecar-secret-0123456789abcdef';
const triggers: string[] = [];
let sidecar: Sidecar;

beforeAll(async () => {
  const status = new StatusTracker({ source: '/repo' });
  sidecar = await startSidecar({
    host: '127.0.0.1',
    port: 0,
    metrics: createMetrics(false),
    status,
    ready: () => true,
    trigger: (r) => triggers.push(r),
    webhookSecret: SECRET,
    trackedRef: 'refs/heads/main',
    logger: pino({ level: 'silent' }),
  });
});
afterAll(() => sidecar.close());

const body = JSON.stringify({ ref: 'refs/heads/main' });
const hook = (headers: Record<string, string>, b = body): Promise<Response> =>
  fetch(`${sidecar.url}/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', ...headers },
    body: b,
  });

describe('sidecar triggers', () => {
  it('a missing or wrong signature, token or bearer is refused with 401 and triggers nothing', async () => {
    triggers.length = 0;
    const answers = [
      await hook({}),
      await hook({ 'x-hub-signature-256': signBody('wrong-secret-wrong-secret', body), 'x-github-delivery': 'd-wrong' }),
      await hook({ 'x-gitlab-token': 'nope' }),
      await fetch(`${sidecar.url}/reconcile`, { method: 'POST', headers: { authorization: `Bearer ${SECRET.slice(1)}` } }),
    ];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    expect(triggers).toEqual([]);
  });

  it('a signed push triggers once; its replay and a push to another ref answer 200 and trigger nothing', async () => {
    triggers.length = 0;
    const signed = { 'x-hub-signature-256': signBody(SECRET, body), 'x-github-delivery': 'delivery-1' };
    const first = await hook(signed);
    expect(first.status).toBe(202);
    expect(await first.json()).toMatchObject({ triggered: true });
    expect(triggers).toEqual(['webhook (github)']);
    const replay = await hook(signed);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ triggered: false, reason: 'duplicate delivery ignored' });
    const other = JSON.stringify({ ref: 'refs/heads/other' });
    const elsewhere = await hook({ 'x-hub-signature-256': signBody(SECRET, other), 'x-github-delivery': 'delivery-2' }, other);
    expect(elsewhere.status).toBe(200);
    expect(triggers).toEqual(['webhook (github)']);
  });

  it('POST /reconcile with the secret as bearer token triggers a manual pass', async () => {
    triggers.length = 0;
    const r = await fetch(`${sidecar.url}/reconcile`, { method: 'POST', headers: { authorization: `Bearer ${SECRET}` } });
    expect(r.status).toBe(202);
    expect(triggers).toEqual(['manual']);
  });
});
