/**
 * What the agent's listener (`packsync run --listen`) answers a refused `POST /reconcile` or
 * `POST /webhook`: 401 with an error that says what was wrong. A wrong bearer token was answered
 * `{"error":"missing signature"}`, which sent the operator looking for a signature header instead
 * of the token. No answer echoes the secret or the credential that was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/agent/http/webhook.js';
import { spawnAgent } from '../support/agent-process.js';
import type { SpawnedAgent } from '../support/agent-process.js';
import { writeRepo } from '../support/manifests.js';
import { until } from '../support/poll.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { tempDir } from '../support/temp-dir.js';

const SECRET = 'reconcile-auth-secret-0123456789abcdef';
const WRONG = 'not-the-secret-0123456789abcdef';
let sim: TestSim;
let agent: SpawnedAgent;

beforeAll(async () => {
  sim = await startTestSimulator();
  const repo = await writeRepo();
  const stateDir = await tempDir('packsync-agent-state-');
  agent = await spawnAgent(
    ['--source', repo, '--log-format', 'json'],
    { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir },
    { secret: SECRET },
  );
  await until('the agent to listen', async () => (await fetch(`${agent.base}/healthz`)).ok, 20_000, {
    giveUp: async () => (agent.spawned.child.exitCode !== null ? `it exited: ${(await agent.spawned.done).stderr}` : undefined),
  });
});

afterAll(async () => {
  agent.spawned.child.kill('SIGTERM');
  await agent.spawned.done;
  await sim.close();
});

async function post(path: string, headers: Record<string, string>): Promise<{ status: number; error: string }> {
  const body = JSON.stringify({ ref: 'refs/heads/main' });
  const r = await fetch(`${agent.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await r.text();
  // Neither the secret nor the credential that was sent comes back.
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(WRONG);
  return { status: r.status, error: (JSON.parse(text) as { error: string }).error };
}

describe('a refused POST /reconcile or /webhook says what is wrong', () => {
  it('no credentials: 401 missing credentials, naming the bearer token and the signature headers', async () => {
    const r = await post('/reconcile', {});
    expect(r.status).toBe(401);
    expect(r.error).toMatch(/^missing credentials: send Authorization: Bearer <the webhook secret>, or sign the body/);
    expect(r.error).toContain('X-Hub-Signature-256');
  });

  it('a wrong bearer token: 401 wrong bearer token (not "missing signature")', async () => {
    const r = await post('/reconcile', { authorization: `Bearer ${WRONG}` });
    expect(r.status).toBe(401);
    expect(r.error).toMatch(/^wrong bearer token/);
    const notBearer = await post('/reconcile', { authorization: `Basic ${Buffer.from(`x:${WRONG}`).toString('base64')}` });
    expect(notBearer).toMatchObject({ status: 401, error: expect.stringMatching(/^wrong bearer token/) as string });
  });

  it('a wrong signature: 401 invalid signature, on /reconcile and /webhook alike', async () => {
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    for (const path of ['/reconcile', '/webhook']) {
      const r = await post(path, { 'x-packsync-signature': signBody(WRONG, body) });
      expect(r.status, path).toBe(401);
      expect(r.error, path).toMatch(/^invalid signature: X-Packsync-Signature/);
    }
    const github = await post('/webhook', { 'x-github-event': 'push', 'x-hub-signature-256': signBody(WRONG, body) });
    expect(github).toMatchObject({ status: 401, error: expect.stringMatching(/^invalid signature: X-Hub-Signature-256/) as string });
  });

  it('a webhook without any signature: 401 missing signature, naming the headers', async () => {
    const r = await post('/webhook', { 'x-github-event': 'push' });
    expect(r.status).toBe(401);
    expect(r.error).toBe('missing signature: send X-Hub-Signature-256, X-Gitlab-Token or X-Packsync-Signature');
  });

  it('the right bearer token still triggers a pass', async () => {
    const r = await fetch(`${agent.base}/reconcile`, { method: 'POST', headers: { authorization: `Bearer ${SECRET}` } });
    expect(r.status).toBe(202);
    expect(await r.json()).toEqual({ triggered: true });
  });
});
