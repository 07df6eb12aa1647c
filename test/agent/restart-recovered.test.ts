/**
 * Regression: a failure that cleared while the agent was down never got its `Recovered`. The agent
 * knew its open failures in memory only; after a restart the notifications store still held the
 * failures it had sent (`"open": true`), and the first pass that found them gone said nothing: no
 * `Recovered` on /status, none at the receiver, the records open for ever. Real agent processes
 * (stopped with SIGTERM, started again on the same state directory), real git, the simulator, a
 * webhook receiver, the notifications store file.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../support/agent-process.js';
import { deploymentsYaml, flowDoc, manifestRepo } from '../support/manifests.js';
import { ERROR_HOOK_CONFIG, startNotifiedAgent } from '../support/notified-agent.js';
import { until as poll } from '../support/poll.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

/** One simulator per test: each repository creates the same objects. */
const sims: TestSim[] = [];
let rx: Receiver;
const agents: RunningAgent[] = [];

interface Hook {
  reason: string;
  object: { kind: string; name: string };
  revision: string | null;
  message: string;
}

const hooks = (path: string): Hook[] => rx.requests.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as Hook);
const until = <T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> =>
  poll(what, probe, 30_000, { intervalMs: 50, detail: () => rx.requests.map((r) => `${r.path} ${r.body.slice(0, 80)}`) });
const CONFIG = ERROR_HOOK_CONFIG;

/** The store's records once none is open any more (the Recovered was delivered and saved). */
async function closedRecords(stateDir: string): Promise<{ object: string; reason: string; open: boolean }[]> {
  return until('no failure left open in notifications.json', async () => {
    const s = JSON.parse(await readFile(join(stateDir, 'notifications.json'), 'utf8')) as {
      sent: Record<string, { object: string; reason: string; open: boolean }>;
    };
    const records = Object.values(s.sent);
    return records.every((r) => !r.open) && records;
  });
}

beforeAll(async () => {
  rx = await startReceiver();
});

async function simulator(): Promise<TestSim> {
  const sim = await startTestSimulator();
  sims.push(sim);
  return sim;
}

afterAll(async () => {
  for (const a of agents) await a.stop();
  await rx?.close();
  for (const s of sims) await s.close();
});

describe('a failure that clears while the agent is down', () => {
  it('recovered-after-restart: an invalid revision fixed while the agent was stopped is answered by a Recovered on the first pass after the restart', async () => {
    const sim = await simulator();
    const repo = await manifestRepo();
    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml().replace('state: running', 'state: runing'));
    const bad = await repo.commit('typo');
    const n = await startNotifiedAgent(sim, repo, CONFIG, { 'hook-url': `${rx.url}/hook-a` });
    agents.push(n.agent);
    await n.agent.until('the invalid revision', (s) => s.history[0]?.result === 'Invalid');
    const sent = await until('ValidationFailed sent', () => hooks('/hook-a').find((h) => h.reason === 'ValidationFailed'));
    expect(sent).toMatchObject({ object: { kind: 'Source', name: repo.fileUrl }, revision: bad });
    expect(await n.agent.stop()).toBe(0);

    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml());
    const fixed = await repo.commit('fix');
    const again = await n.restart();
    agents.push(again);
    const s = await again.until('the fix applied', (x) => x.lastAppliedRevision === fixed);
    expect(s.events.find((e) => e.reason === 'Recovered')).toMatchObject({ object: `Source/${repo.fileUrl}`, revision: fixed });
    const recovered = await until('Recovered sent', () => hooks('/hook-a').find((h) => h.reason === 'Recovered'));
    expect(recovered).toMatchObject({ object: { kind: 'Source', name: repo.fileUrl }, revision: fixed });
    expect(hooks('/hook-a').map((h) => h.reason)).toEqual(['ValidationFailed', 'Recovered']);
    expect((await closedRecords(n.stateDir)).map((r) => r.reason)).toEqual(['Recovered']);
  });

  it('recovered-after-restart: a failing object removed from git while the agent was stopped is answered after the restart', async () => {
    const sim = await simulator();
    const repo = await manifestRepo();
    const n = await startNotifiedAgent(sim, repo, CONFIG, { 'hook-url': `${rx.url}/hook-b` });
    agents.push(n.agent);
    await n.agent.until('first apply', (s) => s.lastAppliedRevision !== null);
    await writeFile(join(repo.work, 'z.yaml'), flowDoc('z', 'NoSuchApp'));
    await repo.commit('a flow of an app the catalog does not have');
    await n.agent.reconcile();
    await until('ApplyFailed Flow/z sent', () => hooks('/hook-b').find((h) => h.reason === 'ApplyFailed' && h.object.name === 'z'));
    expect(await n.agent.stop()).toBe(0);

    await rm(join(repo.work, 'z.yaml'));
    const removed = await repo.commit('remove the flow');
    const again = await n.restart();
    agents.push(again);
    const s = await again.until('the removal applied', (x) => x.lastAppliedRevision === removed);
    expect(s.events.find((e) => e.reason === 'Recovered')).toMatchObject({ object: 'Flow/z', revision: removed });
    await until('Recovered Flow/z sent', () => hooks('/hook-b').find((h) => h.reason === 'Recovered' && h.object.name === 'z'));
    expect(hooks('/hook-b').map((h) => h.reason)).toEqual(['ApplyFailed', 'Recovered']);
    expect((await closedRecords(n.stateDir)).map((r) => `${r.reason} ${r.object}`)).toEqual(['Recovered Flow/z']);
  });
});
