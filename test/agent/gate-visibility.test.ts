/**
 * What the agent tells about promotion gates, as a real process with a webhook receiver: a rollout
 * its gate halts is on the page's "needs attention", in RolloutsHealthy and in the halted gauge in
 * the same pass; a promote and the gate's own advance are two WaveAdvanced events, each sent once;
 * a completion is sent once; a pass that fails before judging leaves no stale verdict.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAgent } from '../support/agent-process.js';
import type { AgentStatusView, RunningAgent } from '../support/agent-process.js';
import { cli } from '../support/cli.js';
import { gatedYaml } from '../support/manifests.js';
import { until } from '../support/poll.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const HOUR = 3600;
const KEY = 'Deployment/seven-zip-24-08';

let sim: TestSim;
let rx: Receiver;
let agent: RunningAgent | null = null;
let env: Record<string, string>;
let stateDir: string;
/** The arguments of the last gated agent, to restart it on the same repository and state. */
let agentArgs: string[] = [];

beforeEach(async () => {
  sim = await startTestSimulator({ timeScale: 60 });
  rx = await startReceiver();
  stateDir = await tempDir('packsync-state-');
  env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir };
});
afterEach(async () => {
  await agent?.stop();
  agent = null;
  await rx.close();
  await sim.close();
});

interface Hook {
  reason: string;
  object: { kind: string; name: string };
  metadata: { wave?: number };
}
const hooks = (reason: string): Hook[] =>
  rx.requests.map((r) => JSON.parse(r.body) as Hook).filter((h) => h.reason === reason && h.object.name === 'seven-zip-24-08');

/** The agent on a gated deployment, every event sent to the receiver; returns after the pass that saw wave 1. */
async function gatedAgent(promotion: string): Promise<RunningAgent> {
  const repo = await tempDir('packsync-repo-');
  await writeFile(join(repo, 'all.yaml'), gatedYaml(promotion));
  const dir = await tempDir('packsync-notify-');
  await mkdir(join(dir, 'secrets'));
  await writeFile(join(dir, 'secrets', 'hmac'), 'gate-visibility-hmac-0123456789\n');
  const notifications = join(dir, 'notifications.yaml');
  await writeFile(
    notifications,
    `providers:\n  - name: hook\n    type: webhook\n    address: ${rx.url}/hook\n    secretFile: secrets/hmac\nalerts:\n  - provider: hook\n    severity: info\n`,
  );
  agentArgs = ['--source', repo, '--interval', '1h', '--notifications', notifications];
  const a = await startAgent(agentArgs, env, stateDir);
  agent = a;
  await a.until('the deployment is added', (s) => s.passes >= 1 && s.history[0]?.result === 'Succeeded');
  await a.reconcile();
  expect((await sim.state()).deployments[0]).toMatchObject({ status: 'Running', currentWave: 1 });
  return a;
}

const healthy = (s: AgentStatusView) => s.conditions.find((c) => c.type === 'RolloutsHealthy');

describe('promotion gates on the agent’s status, events and notifications', () => {
  it('a rollout its gate stops is on needs attention, RolloutsHealthy and the halted gauge in that same pass (regression: only one pass later)', async () => {
    await sim.admin('PUT', '/_sim/outcomes', { rules: [{ tenant: 'contoso.onmicrosoft.com', failureRate: 0.5 }] });
    const a = await gatedAgent('soak: 6h\nminDevices: 20\nmaxFailureRate: 10%');
    expect(healthy(await a.status())).toMatchObject({ status: 'True' });
    await sim.advance(2 * HOUR);
    const s = await a.reconcile();
    expect((await sim.writes()).filter((w) => w.endsWith('/stop'))).toHaveLength(1);
    expect(s.gates.find((g) => g.deployment === KEY)?.held).toMatchObject({ wave: 1, stopped: true });
    expect(healthy(s)).toMatchObject({ status: 'False', reason: 'RolloutHeld' });
    expect(healthy(s)?.message).toContain(KEY);
    expect(await a.counter('packsync_rollouts_halted', {})).toBe(1);
    const page = await (await fetch(`${a.base}/`)).text();
    const attention = /<div id=attention>(.*?)<\/div>/s.exec(page)?.[1] ?? '';
    expect(attention).toContain(KEY);
    expect(page).toMatch(/<p id=halted[^>]*>Rollouts not healthy: /);
  });

  it('a resume of a stopped rollout is Recovered in the pass that carries it out and starts the deployment, once, also across a restart (regression: one pass late)', async () => {
    await sim.admin('PUT', '/_sim/outcomes', { rules: [{ tenant: 'contoso.onmicrosoft.com', failureRate: 0.5 }] });
    const a = await gatedAgent('soak: 6h\nminDevices: 20\nmaxFailureRate: 10%\nonFailure: stop');
    await sim.advance(2 * HOUR);
    const held = await a.reconcile();
    expect(held.gates.find((g) => g.deployment === KEY)?.held).toMatchObject({ stopped: true });
    expect((await sim.state()).deployments[0]).toMatchObject({ status: 'Stopped' });
    const passes = held.passes;
    await sim.admin('PUT', '/_sim/outcomes', { rules: [] });
    // Handed to the agent, which holds the state: its next pass resumes, then starts the deployment.
    const resumed = await cli(['resume', KEY, '--reason', 'fixed the installer'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const s = await a.until('the pass that carried out the resume', (x) => x.passes > passes);
    expect((await sim.writes()).filter((w) => w.endsWith('/start'))).toHaveLength(1);
    const started = s.history.find((p) => Date.parse(p.startedAt) > Date.parse(held.lastPassAt ?? '') && p.writes > 0);
    expect(started).toBeDefined();
    const recovered = (x: AgentStatusView) => x.events.filter((e) => e.object === KEY && e.reason === 'Recovered');
    expect(recovered(s)).toHaveLength(1);
    expect(recovered(s)[0]?.message).toContain('released by packsync resume: fixed the installer');
    expect(Date.parse(recovered(s)[0]!.time)).toBeLessThanOrEqual(Date.parse(started!.startedAt) + started!.durationMs);
    // The next pass's gate report names the resume as its last command: not told again.
    expect(recovered(await a.reconcile())).toMatchObject([{ count: 1 }]);
    await a.stop();
    agent = await startAgent(agentArgs, env, stateDir);
    await agent.until('the restarted agent passed', (x) => x.passes >= 1);
    expect(recovered(await agent.reconcile())).toEqual([]);
  });

  it('a promote and the gate’s next advance are two WaveAdvanced events, and a completion is sent once (regression: the advance was merged into the promote; completion sent twice)', async () => {
    await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0 } });
    const a = await gatedAgent('soak: 1h\nminDevices: 20\nsuccessRate: 90%');
    // Handed to the agent, which holds the state.
    const promoted = await cli(['promote', KEY, '--reason', 'urgent'], env);
    expect(promoted.code, promoted.stderr).toBe(0);
    await sim.advance(2 * HOUR);
    await a.reconcile();
    expect((await sim.state()).deployments[0]).toMatchObject({ currentWave: 3 });
    await sim.advance(2 * HOUR);
    await a.reconcile();
    expect((await sim.state()).deployments[0]).toMatchObject({ status: 'Completed' });
    await until(
      'both advances and the completion delivered',
      () => hooks('WaveAdvanced').length >= 2 && hooks('RolloutCompleted').length >= 1,
    );
    // Anything still in flight arrives well within another pass.
    await a.reconcile();
    expect(hooks('WaveAdvanced').map((h) => h.metadata.wave)).toEqual([2, 3]);
    expect(hooks('RolloutCompleted')).toHaveLength(1);
    const events = (await a.status()).events.filter((e) => e.object === KEY && e.reason === 'WaveAdvanced');
    expect(events.map((e) => e.wave).sort()).toEqual([2, 3]);
  });

  it('right after a gate’s skip-wave, the promotion judgement names the wave it judged and says the skip was carried out, on /status and the page (regression: "skip to wave 2" next to currentWave 2)', async () => {
    await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0 } });
    const a = await gatedAgent('soak: 1h\nminDevices: 20\nsuccessRate: 90%');
    await sim.advance(2 * HOUR);
    const s = await a.reconcile();
    expect((await sim.state()).deployments[0]).toMatchObject({ currentWave: 2 });
    const row = s.rollouts.find((r) => r.deployment === KEY);
    expect(row).toMatchObject({ currentWave: 2, promotion: { wave: 1, action: 'skip-wave', carriedOut: true } });
    expect(row?.promotion?.line).toMatch(/→ Pass: skipped to wave 2$/);
    expect(s.gates.find((g) => g.deployment === KEY)).toEqual(row?.promotion);
    const page = await (await fetch(`${a.base}/`)).text();
    expect(page).toContain('wave 1 Pass: skipped to wave 2');
    expect(page).not.toContain('skip to wave 2');
    // The next pass judges wave 2, and nothing is carried out yet.
    const next = await a.reconcile();
    expect(next.gates.find((g) => g.deployment === KEY)).toMatchObject({ wave: 2, carriedOut: false });
  });

  it('a deployment the pass adds and starts is on the rollout board of that same pass (regression: missing until the next pass)', async () => {
    const repo = await tempDir('packsync-repo-');
    await writeFile(join(repo, 'all.yaml'), gatedYaml('soak: 6h'));
    agent = await startAgent(['--source', repo, '--interval', '1h'], env, stateDir);
    const s = await agent.until('the first pass', (x) => x.passes >= 1);
    expect(s.history[0]).toMatchObject({ result: 'Succeeded' });
    expect((await sim.writes()).filter((w) => w.endsWith('/add-deployment'))).toHaveLength(1);
    const live = (await sim.state()).deployments[0]!;
    expect(s.rollouts.find((r) => r.deployment === KEY)).toMatchObject({ id: live.id, status: 'Running', currentWave: 1, app: '7-Zip' });
    const page = await (await fetch(`${agent.base}/`)).text();
    expect(page).toContain('Rollouts (1 running of 1)');
  });

  it('a pass that fails before judging leaves every gate Unknown, not its last verdict (regression: stale verdicts)', async () => {
    const a = await gatedAgent('soak: 6h');
    const before = await a.reconcile();
    expect(before.gates.find((g) => g.deployment === KEY)?.verdict).toBe('Inconclusive');
    await sim.admin('PUT', '/_sim/faults', '5xx=1');
    const s = await a.reconcile();
    expect(s.history[0]?.result).toBe('Failed');
    expect(s.gates.find((g) => g.deployment === KEY)?.verdict).toBe('Unknown');
    expect(await a.counter('packsync_gate_verdict', { deployment: KEY, verdict: 'Unknown' })).toBe(1);
    expect(await a.counter('packsync_gate_verdict', { deployment: KEY, verdict: 'Inconclusive' })).toBe(0);
  });
});
