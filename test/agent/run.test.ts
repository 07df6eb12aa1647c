/**
 * `packsync run` end to end: the built CLI follows a bare repository served by `git daemon`,
 * converges the simulator, reacts to signed webhooks, stalls on an invalid commit without applying
 * any of it, recovers on the next good one, serves probes and Prometheus metrics, and stops cleanly
 * on SIGTERM.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import { signBody } from '../../src/agent/http/webhook.js';
import { loadInventory } from '../../src/state/inventory-store.js';
import { startGitDaemon } from '../support/git.js';
import type { GitDaemon, TestRepo } from '../support/git.js';
import { spawnAgent } from '../support/agent-process.js';
import { deploymentsYaml, manifestRepo } from '../support/manifests.js';
import { until as waitUntil } from '../support/poll.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import type { Spawned } from '../support/spawn-cli.js';
import { parsePrometheus } from './prometheus.js';

const SECRET = 'webhook-secret-0123456789abcdef';
let sim: TestSim;
let repo: TestRepo;
let daemon: GitDaemon;
let agent: Spawned;
let base: string;
let stateDir: string;

const status = async (): Promise<AgentStatus> => (await (await fetch(`${base}/status`)).json()) as AgentStatus;

const until = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> =>
  waitUntil(what, probe, timeoutMs, { detail: () => status() });

async function push(sign: (body: string) => Record<string, string>, ref = 'refs/heads/main'): Promise<Response> {
  const body = JSON.stringify({ ref });
  return fetch(`${base}/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', ...sign(body) },
    body,
  });
}
const github = (body: string): Record<string, string> => ({
  'x-hub-signature-256': signBody(SECRET, body),
  'x-github-delivery': `d-${Math.random()}`,
});

beforeAll(async () => {
  sim = await startTestSimulator();
  repo = await manifestRepo();
  daemon = await startGitDaemon(repo);
  stateDir = await tempDir('packsync-agent-state-');
  ({ spawned: agent, base } = await spawnAgent(
    ['--source', daemon.url(repo), '--ref', 'main', '--log-format', 'json'],
    { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir },
    { secret: SECRET },
  ));
});

afterAll(async () => {
  if (agent.child.exitCode === null) agent.child.kill('SIGKILL');
  await daemon.stop();
  await sim.close();
});

describe('packsync run following a git repository', () => {
  it('applies the first commit on startup and reports it as ready', async () => {
    const head = await repo.commit('no-op to know the head');
    await until(
      'first apply',
      async () => (await status()).lastAppliedRevision !== null && (await status()).lastAppliedRevision !== undefined,
    );
    // The startup pass may have seen the first or the second commit; a webhook brings the head.
    expect((await push(github)).status).toBe(202);
    await until('head applied', async () => (await status()).lastAppliedRevision === head);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const s = await status();
    expect(s.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'ReconciliationSucceeded' });
    expect((await sim.state()).deployments.map((d) => d.status).sort()).toEqual(['NotStarted', 'Running']);
  });

  it('refuses a missing or wrong signature with 401', async () => {
    // That a refusal triggers nothing is decided before the answer is sent: sidecar-triggers.test.ts
    // checks it without waiting for a pass that does not come.
    for (const sign of [
      (): Record<string, string> => ({}),
      (): Record<string, string> => ({ 'x-hub-signature-256': signBody('wrong-secret-wrong-secret', '{}') }),
      (): Record<string, string> => ({ 'x-gitlab-token': 'nope' }),
    ]) {
      const r = await push(sign);
      expect(r.status).toBe(401);
      expect(await r.json()).toMatchObject({ error: expect.any(String) as string });
    }
  });

  it('applies the next commit promptly after a signed push; a replayed delivery is ignored', async () => {
    const before = (await sim.writes()).length;
    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml({ state: 'stopped' }));
    const commit = await repo.commit('stop 7-Zip');
    const headers = github('');
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const signed = { ...headers, 'x-hub-signature-256': signBody(SECRET, body) };
    expect((await push(() => signed)).status).toBe(202);
    await until('stop applied', async () => (await status()).lastAppliedRevision === commit);
    expect((await sim.writes()).slice(before)).toEqual(['POST /v1/flow/deployment/{id}/stop']);
    const replay = await push(() => signed);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ triggered: false, reason: 'duplicate delivery ignored' });
    expect((await push(github, 'refs/heads/other')).status).toBe(200);
  });

  it('stalls on an invalid commit without applying any of it, then recovers on the next good one', async () => {
    const before = (await sim.writes()).length;
    const good = (await status()).lastAppliedRevision;
    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml({ state: 'running' }).replace('state: pending', 'state: paused'));
    const bad = await repo.commit('typo');
    expect((await push(github)).status).toBe(202);
    const s = await until('stalled', async () => {
      const x = await status();
      return x.lastAttemptedRevision === bad && x.history[0]?.result === 'Invalid' ? x : undefined;
    });
    expect(s.lastAppliedRevision).toBe(good);
    expect(s.conditions.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True', reason: 'ValidationFailed' });
    expect(s.problems[0]).toMatchObject({ file: 'deployments.yaml', line: expect.any(Number) as number });
    // Readiness is "can do its job" (docs/reconcile.md): an invalid revision keeps the pod in its Service so
    // the fixing commit's webhook arrives; sync health is in the conditions.
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect(s.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'ValidationFailed' });
    expect((await sim.writes()).length).toBe(before);
    // The same invalid revision again: still stalled, and its event is not repeated.
    const passes = s.passes;
    expect((await push(github)).status).toBe(202);
    await until('second invalid pass', async () => (await status()).passes > passes);
    expect((await status()).events.filter((e) => e.reason === 'ValidationFailed' && e.revision === bad).length).toBe(1);

    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml({ state: 'running' }));
    const fixed = await repo.commit('fix typo');
    expect((await push(github)).status).toBe(202);
    await until('recovered', async () => (await status()).lastAppliedRevision === fixed);
    expect((await sim.writes()).slice(before)).toEqual(['POST /v1/flow/deployment/{id}/start']);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it('serves Prometheus metrics that parse, with passes, API requests and objects', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const m = parsePrometheus(await res.text());
    expect(m.get('packsync_reconcile_passes_total')?.find((s) => s.labels.result === 'Succeeded')?.value).toBeGreaterThanOrEqual(2);
    expect(m.get('packsync_reconcile_passes_total')?.find((s) => s.labels.result === 'Invalid')?.value).toBe(2);
    expect(m.get('packsync_api_requests_total')?.some((s) => s.labels.operation === 'stopDeployment' && s.labels.code === '200')).toBe(
      true,
    );
    expect(m.get('packsync_objects')?.length).toBeGreaterThan(0);
    expect(m.get('packsync_last_applied_timestamp_seconds')?.[0]?.value).toBeGreaterThan(1.7e9);
    expect(m.has('packsync_process_resident_memory_bytes')).toBe(true);
  });

  it('stops on SIGTERM during a pass with exit 0 within 10 s and a readable inventory', async () => {
    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml({ state: 'stopped' }));
    await repo.commit('stop again');
    expect((await push(github)).status).toBe(202);
    const t0 = Date.now();
    agent.child.kill('SIGTERM');
    const done = await agent.done;
    expect(done.code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    const inv = await loadInventory(stateDir);
    expect(Object.keys(inv.objects).length).toBe(6);
    expect(done.stdout + done.stderr).not.toContain(SECRET);
    expect(done.stdout + done.stderr).not.toContain(sim.key);
  });
});
