/**
 * Regression: GitHub's default webhook content type, `application/x-www-form-urlencoded` with the
 * push as JSON in the `payload` field, was refused with 400 "body is not JSON" although correctly
 * signed, and its delivery id was used up by the refusal: the redelivery as JSON was "duplicate
 * delivery ignored", so the push never triggered a pass. The built agent over real HTTP, a bare git
 * remote, the simulator.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import { signBody } from '../../src/agent/http/webhook.js';
import { spawnAgent } from '../support/agent-process.js';
import type { TestRepo } from '../support/git.js';
import { deploymentsYaml, manifestRepo } from '../support/manifests.js';
import { until as poll } from '../support/poll.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import type { Spawned } from '../support/spawn-cli.js';

const SECRET = 'webhook-form-secret-0123456789';
let sim: TestSim;
let repo: TestRepo;
let agent: Spawned;
let base: string;

const status = async (): Promise<AgentStatus> => (await (await fetch(`${base}/status`)).json()) as AgentStatus;
const until = <T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> =>
  poll(what, probe, 20_000, { detail: () => status() });

/** POST /webhook with `body` as given, signed as GitHub signs (the raw body) or with GitLab's token. */
function post(body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${base}/webhook`, { method: 'POST', headers, body });
}
const github = (body: string, delivery: string, type: string): Record<string, string> => ({
  'content-type': type,
  'x-github-event': 'push',
  'x-github-delivery': delivery,
  'x-hub-signature-256': signBody(SECRET, body),
});
const FORM = 'application/x-www-form-urlencoded';
const form = (payload: unknown): string => new URLSearchParams({ payload: JSON.stringify(payload) }).toString();

beforeAll(async () => {
  sim = await startTestSimulator();
  repo = await manifestRepo();
  const stateDir = await tempDir('packsync-webhook-form-');
  ({ spawned: agent, base } = await spawnAgent(
    ['--source', repo.fileUrl, '--ref', 'main', '--log-format', 'json'],
    { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir },
    { secret: SECRET },
  ));
  await until('first apply', async () => (await status()).lastAppliedRevision !== null);
});

afterAll(async () => {
  if (agent?.child.exitCode === null) agent.child.kill('SIGTERM');
  await agent?.done;
  await sim?.close();
});

describe('POST /webhook', () => {
  it('github-form-webhook: a signed GitHub push sent as a form (payload=<JSON>) triggers the pass that applies it; its redelivery is a duplicate', async () => {
    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml({ state: 'stopped' }));
    const commit = await repo.commit('stop 7-Zip');
    const body = form({ ref: 'refs/heads/main', after: commit });
    const r = await post(body, github(body, 'd-1', FORM));
    expect(r.status).toBe(202);
    expect(await r.json()).toMatchObject({ triggered: true, reason: 'push accepted' });
    await until('the pushed commit applied', async () => (await status()).lastAppliedRevision === commit);
    const again = await post(body, github(body, 'd-1', FORM));
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ triggered: false, reason: 'duplicate delivery ignored' });
    // The form's ref is read too: a push to another branch triggers nothing.
    const other = form({ ref: 'refs/heads/other' });
    const o = await post(other, github(other, 'd-2', `${FORM}; charset=utf-8`));
    expect(o.status).toBe(200);
    expect(await o.json()).toMatchObject({ triggered: false, reason: 'push to refs/heads/other is not the tracked ref' });
  });

  it('delivery-id-kept-after-refusal: a delivery refused with 400 is judged again when redelivered', async () => {
    const broken = 'payload=%7Bnot-json';
    const r = await post(broken, github(broken, 'd-3', FORM));
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ error: 'the payload field is not JSON' });
    const none = 'ref=refs%2Fheads%2Fmain';
    expect((await post(none, github(none, 'd-3', FORM))).status).toBe(400);
    const json = JSON.stringify({ ref: 'refs/heads/main' });
    const redelivered = await post(json, github(json, 'd-3', 'application/json'));
    expect(redelivered.status).toBe(202);
    expect(await redelivered.json()).toMatchObject({ triggered: true });
  });

  it('delivery-id-kept-after-refusal: GitLab stays JSON only, and its refused delivery id is not used up either', async () => {
    const gitlab = (type: string): Record<string, string> => ({
      'content-type': type,
      'x-gitlab-event': 'Push Hook',
      'x-gitlab-event-uuid': 'g-1',
      'x-gitlab-token': SECRET,
    });
    const asForm = form({ ref: 'refs/heads/main' });
    const r = await post(asForm, gitlab(FORM));
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ error: 'body is not JSON' });
    const json = JSON.stringify({ ref: 'refs/heads/main' });
    const ok = await post(json, gitlab('application/json'));
    expect(ok.status).toBe(202);
    expect((await post(json, gitlab('application/json'))).status).toBe(200);
  });
});
