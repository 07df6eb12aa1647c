/**
 * The agent never blocks a pass on the service's background work (docs/reconcile.md), and leaves drift it
 * did not cause alone unless told to heal it (docs/manifests.md). `packsync run` follows a real git
 * repository against a simulator running in real time, where a catalog import stays processing for
 * about 32 seconds unless the test advances the virtual clock.
 *
 * Regression (operator review rows 17 and 18): a commit stopping a deployment reached the service
 * 31.8 s after the push, because the pass was blocked in `wait for processing`; and a stop made in
 * the web console was undone by the agent's default `--drift heal` within 10–12 s.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import { signBody } from '../../src/agent/http/webhook.js';
import type { TestRepo } from '../support/git.js';
import { spawnAgent } from '../support/agent-process.js';
import { catalogPackageDoc, deploymentDoc, deploymentsYaml, flowDoc, manifestRepo, yamlDocs } from '../support/manifests.js';
import { until as waitUntil } from '../support/poll.js';
import { tempDir } from '../support/repo.js';
import { normalisePath, startTestSimulator } from '../support/sim.js';
import type { JournalEntry, TestSim } from '../support/sim.js';
import type { Spawned } from '../support/spawn-cli.js';

const SECRET = 'webhook-secret-waiting-0123456789';
let sim: TestSim;
let repo: TestRepo;
let agent: Spawned;
let base: string;

const status = async (): Promise<AgentStatus> => (await (await fetch(`${base}/status`)).json()) as AgentStatus;

const until = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number): Promise<T> =>
  waitUntil(what, probe, timeoutMs, { detail: () => status() });

async function webhook(): Promise<void> {
  const body = JSON.stringify({ ref: 'refs/heads/main' });
  const res = await fetch(`${base}/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-hub-signature-256': signBody(SECRET, body),
      'x-github-delivery': `d-${Math.random()}`,
    },
    body,
  });
  expect(res.status).toBe(202);
}

async function reconcileNow(): Promise<void> {
  const res = await fetch(`${base}/reconcile`, { method: 'POST', headers: { authorization: `Bearer ${SECRET}` } });
  expect(res.status).toBe(202);
}

/** Successful writes whose normalised route is `route`, after journal position `afterSeq` (status 0 is a call still in flight). */
async function writesTo(route: string, afterSeq = 0): Promise<JournalEntry[]> {
  return (await sim.journal(true)).filter(
    (e) => e.seq > afterSeq && e.status >= 200 && e.status < 300 && `${e.method} ${normalisePath(e.path)}` === route,
  );
}

const lastSeq = async (): Promise<number> => (await sim.journal()).reduce((n, e) => Math.max(n, e.seq), 0);

const FIREFOX = yamlDocs(
  catalogPackageDoc('firefox-133', 'Mozilla Firefox', '133.0'),
  flowDoc('firefox', 'Mozilla Firefox'),
  deploymentDoc('firefox-133', 'firefox', 'running'),
);

beforeAll(async () => {
  sim = await startTestSimulator({ timeScale: 1 });
  repo = await manifestRepo();
  const stateDir = await tempDir('packsync-agent-state-');
  // Default drift policy on purpose: the second test is about it.
  ({ spawned: agent, base } = await spawnAgent(
    ['--source', repo.fileUrl, '--ref', 'main', '--log-format', 'json'],
    { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir },
    { secret: SECRET },
  ));
  // The first imports take 32 virtual seconds: move the clock on instead of waiting for them.
  await until(
    'the initial repository converged',
    async () => {
      const deployments = (await sim.state()).deployments;
      if (deployments.length === 2) return true;
      if ((await sim.state()).packages.some((p) => p.state === 'Pending' || p.state === 'Running')) await sim.advance(40);
      // Throws (and the probe is retried) until the agent listens.
      const passes = (await status()).passes;
      await reconcileNow();
      await until('the triggered pass', async () => (await status()).passes > passes, 15_000);
      return false;
    },
    50_000,
  );
});

afterAll(async () => {
  if (agent.child.exitCode === null) agent.child.kill('SIGTERM');
  await agent.done;
  await sim.close();
});

describe('packsync run while a package is processing', () => {
  it('applies a commit that stops a deployment within 5 s of its webhook while another package is still processing; the waiting deployment is added exactly once later', async () => {
    const seven = (await sim.state()).deployments.find((d) => d.status === 'Running');
    expect(seven, 'the 7-Zip deployment runs before the test').toBeDefined();
    const start = await lastSeq();

    // Commit 1: a new catalog package with its flow and a running deployment.
    await writeFile(join(repo.work, 'firefox.yaml'), FIREFOX);
    const first = await repo.commit('add Firefox 133');
    await webhook();
    const [imported] = await until(
      'the Firefox import',
      async () => {
        const xs = await writesTo('POST /v1/app/import/{id}', start);
        return xs.length > 0 ? xs : undefined;
      },
      15_000,
    );
    expect(imported).toBeDefined();

    // Commit 2, while Firefox is processing: stop 7-Zip.
    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml({ state: 'stopped' }));
    const second = await repo.commit('emergency stop of 7-Zip');
    const firefoxState = async (): Promise<string | undefined> =>
      (await sim.state()).packages.find((p) => p.productName.includes('Firefox') && p.productVersion === '133.0')?.state;
    expect(['Pending', 'Running']).toContain(await firefoxState());
    const triggered = Date.now();
    await webhook();
    await until('the stop call', async () => (await writesTo('POST /v1/flow/deployment/{id}/stop', start)).length > 0, 5_000);
    const latencyMs = Date.now() - triggered;
    expect(latencyMs).toBeLessThan(5_000);
    // It really happened while the import was still processing (32 virtual seconds, real time).
    expect(['Pending', 'Running']).toContain(await firefoxState());
    expect((await writesTo('POST /v1/flow/deployment/{id}/stop', start)).map((e) => e.path)).toEqual([
      `/v1/flow/deployment/${seven!.id}/stop`,
    ]);
    expect(await writesTo('POST /v1/flow/{id}/add-deployment', start)).toHaveLength(0);

    // The pass that left Firefox waiting succeeded (waiting is not a failure) and said so.
    const waitingPass = await until(
      'a pass of the second commit',
      async () => (await status()).history.find((h) => h.revision === second),
      10_000,
    );
    expect(waitingPass.result).toBe('Succeeded');
    expect(waitingPass.message).toMatch(/waiting on the service/);
    expect((await status()).objects.find((o) => o.key === 'Deployment/firefox-133')).toMatchObject({ outcome: 'skipped', waiting: true });
    // Between passes /status says the revision is applied but still converging, not idle.
    await until(
      'Reconciling=WaitingOnService',
      async () =>
        (await status()).conditions.find((c) => c.type === 'Reconciling' && c.status === 'True' && c.reason === 'WaitingOnService'),
      10_000,
    );

    // The import finishes; the requeued pass (no trigger from the test) adds the deployment.
    await sim.advance(40);
    await until('the Firefox deployment', async () => (await writesTo('POST /v1/flow/{id}/add-deployment', start)).length > 0, 20_000);
    // Nothing waits any more once the pass that added it has finished: no requeue follows it.
    const s = await until(
      'the pass that added it finished, nothing waiting',
      async () => {
        const x = await status();
        const ff = x.objects.find((o) => o.key === 'Deployment/firefox-133');
        return ff && !ff.waiting && ff.outcome !== 'skipped' && x.nextPassAt === null ? x : undefined;
      },
      20_000,
    );
    expect(s.history.some((h) => h.trigger === 'requeue: waiting on the service' && h.result === 'Succeeded')).toBe(true);
    expect(s.lastAppliedRevision).toBe(second);
    expect(s.history.find((h) => h.revision === first)?.result).toBe('Succeeded');
    // Several passes saw Firefox waiting; none repeated a create.
    expect(await writesTo('POST /v1/app/import/{id}', start)).toHaveLength(1);
    expect(await writesTo('POST /v1/flow/create', start)).toHaveLength(1);
    expect(await writesTo('POST /v1/flow/{id}/add-deployment', start)).toHaveLength(1);
    expect((await sim.state()).deployments.filter((d) => d.status === 'Running')).toHaveLength(1);
    expect(s.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
  });

  it('a deployment stopped in the web console is not restarted by the agent under the default drift policy', async () => {
    const firefox = (await sim.state()).deployments.find((d) => d.status === 'Running');
    expect(firefox, 'the Firefox deployment runs').toBeDefined();
    // What the console does: the same API call, made by a person.
    const stopped = await fetch(`${sim.url}/v1/flow/deployment/${firefox!.id}/stop`, { method: 'POST', headers: { 'X-API-Key': sim.key } });
    expect(stopped.status).toBeLessThan(300);
    const after = await lastSeq();
    const passes = (await status()).passes;
    await reconcileNow();
    // The pass that read the live state after the stop is the one that reports its drift.
    const s = await until(
      'a pass that saw the console stop',
      async () => {
        const x = await status();
        return x.passes > passes && x.objects.find((o) => o.key === 'Deployment/firefox-133')?.drift === true ? x : undefined;
      },
      15_000,
    );
    expect(s.history[0]?.result).toBe('Succeeded');
    expect(await writesTo('POST /v1/flow/deployment/{id}/start', after)).toHaveLength(0);
    expect((await sim.state()).deployments.find((d) => d.id === firefox!.id)?.status).toBe('Stopped');
    expect(s.objects.find((o) => o.key === 'Deployment/firefox-133')).toMatchObject({ drift: true });
    expect(s.events.some((e) => e.reason === 'DriftDetected' && e.object === 'Deployment/firefox-133')).toBe(true);
  });
});
