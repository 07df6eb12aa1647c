/**
 * Unauthenticated peers cannot make the agent hold memory (security review 3, finding 6; docs/agent.md
 * "Endpoints"): `POST /reconcile` and a webhook without usable credentials are refused before a byte
 * of their body is read; a declared body over the limit is refused at once; at most `maxInFlight`
 * unverified bodies are read at once (the next one is 503 with Retry-After at once); a trickling body is
 * cut. Regression: 150 connections each announcing 1 MiB made the agent buffer them all. Real sockets.
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSidecar } from '../../src/agent/http/http-server.js';
import type { Sidecar } from '../../src/agent/http/http-server.js';
import { createMetrics } from '../../src/agent/http/metrics.js';
import { StatusTracker } from '../../src/agent/http/status.js';
import { signBody } from '../../src/agent/http/webhook.js';

const SECRET = 'sidecar-secret-0123456789abcdef';
const MAX_IN_FLIGHT = 4;
const triggers: string[] = [];
let sidecar: Sidecar;
const open: Socket[] = [];

beforeAll(async () => {
  sidecar = await startSidecar({
    host: '127.0.0.1',
    port: 0,
    metrics: createMetrics(false),
    status: new StatusTracker({ source: '/repo' }),
    ready: () => true,
    trigger: (r) => triggers.push(r),
    webhookSecret: SECRET,
    trackedRef: 'refs/heads/main',
    logger: pino({ level: 'silent' }),
    bodyLimits: { maxBytes: 64 * 1024, maxInFlight: MAX_IN_FLIGHT, timeoutMs: 1500 },
  });
});
afterAll(async () => {
  for (const s of open) s.destroy();
  await sidecar.close();
});

/** Sends the request head (and `body`, if any) on a raw socket; resolves with the status line's code once the answer starts. */
function rawRequest(head: string[], body = ''): { status: Promise<number>; socket: Socket } {
  const { port } = sidecar;
  const socket = connect(port, '127.0.0.1');
  open.push(socket);
  socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  const status = new Promise<number>((resolve, reject) => {
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (m) resolve(Number(m[1]));
    });
    socket.on('error', reject);
  });
  return { status, socket };
}

const webhookHead = (length: number, extra: string[] = []): string[] => [
  'POST /webhook HTTP/1.1',
  'Host: agent',
  'Content-Type: application/json',
  `Content-Length: ${length}`,
  ...extra,
];

describe('bodies the agent reads before it knows the sender', () => {
  it('POST /reconcile with a wrong bearer token is refused before its body arrives', async () => {
    const r = rawRequest(['POST /reconcile HTTP/1.1', 'Host: agent', 'Authorization: Bearer wrong', 'Content-Length: 1048576']);
    expect(await r.status).toBe(401);
  });

  it('a webhook without any signature header, or with a wrong GitLab token, is refused before its body arrives', async () => {
    expect(await rawRequest(webhookHead(1_000_000)).status).toBe(401);
    expect(await rawRequest(webhookHead(1_000_000, ['X-Gitlab-Token: nope'])).status).toBe(401);
  });

  it('a declared body over the limit is refused at once (413)', async () => {
    expect(await rawRequest(webhookHead(10_000_000, ['X-Hub-Signature-256: sha256=00'])).status).toBe(413);
  });

  it(`reads at most ${MAX_IN_FLIGHT} unverified bodies at once: the others are 503 at once, and the agent stays healthy`, async () => {
    // Twelve senders announce a body and never finish it: four are read (and cut after the body
    // timeout, 408), the other eight are refused at once without being read.
    const senders = Array.from({ length: 12 }, () => rawRequest(webhookHead(60_000, ['X-Hub-Signature-256: sha256=00']), 'x'));
    expect((await fetch(`${sidecar.url}/healthz`)).status).toBe(200);
    const statuses = await Promise.all(senders.map((h) => h.status));
    expect(statuses.filter((s) => s === 503)).toHaveLength(12 - MAX_IN_FLIGHT);
    expect(statuses.filter((s) => s === 408)).toHaveLength(MAX_IN_FLIGHT);
  });

  it('after the holders are gone, a signed push is read and triggers a pass', async () => {
    triggers.length = 0;
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const r = await fetch(`${sidecar.url}/webhook`, {
      method: 'POST',
      headers: { 'x-github-event': 'push', 'x-hub-signature-256': signBody(SECRET, body), 'x-github-delivery': 'bodies-1' },
      body,
    });
    expect(r.status).toBe(202);
    expect(triggers).toEqual(['webhook (github)']);
  });
});

describe('HEAD', () => {
  it('answers the read routes as GET does, without a body (regression: 404 for monitors that probe with HEAD)', async () => {
    for (const path of ['/', '/healthz', '/readyz', '/status']) {
      const head = await fetch(`http://127.0.0.1:${sidecar.port}${path}`, { method: 'HEAD' });
      const get = await fetch(`http://127.0.0.1:${sidecar.port}${path}`);
      expect(head.status, path).toBe(get.status);
      expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
      expect(await head.text(), path).toBe('');
      await get.text();
    }
  });
});
