/**
 * The agent with promotion gates, as a real process: the soak clock survives a SIGKILL between two
 * passes, and the gate shows in /status (gates, and promotion on the rollout), /metrics and events.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAgent } from '../support/agent-process.js';
import type { AgentStatusView, RunningAgent } from '../support/agent-process.js';
import { cli } from '../support/cli.js';
import { gatedYaml } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const HOUR = 3600;
const KEY = 'Deployment/seven-zip-24-08';

interface Rollout {
  deployment: string;
  wave: number;
  verdict: string;
  soak: { elapsedMs: number; requiredMs: number };
  tenants: { name: string; verdict: string }[];
  line: string;
}
type StatusWithRollouts = AgentStatusView & { gates: Rollout[] };

let sim: TestSim;
let agent: RunningAgent | null = null;
let env: Record<string, string>;
let stateDir: string;

beforeEach(async () => {
  sim = await startTestSimulator({ timeScale: 60 });
  stateDir = await tempDir('packsync-state-');
  env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir };
});
afterEach(async () => {
  await agent?.stop();
  agent = null;
  await sim.close();
});

const rollout = async (a: RunningAgent): Promise<Rollout | undefined> =>
  ((await a.status()) as StatusWithRollouts).gates.find((r) => r.deployment === KEY);

describe('agent with promotion gates', () => {
  it('keeps the soak clock across a SIGKILL between two passes, then promotes and reports it', async () => {
    // No device fails: the default outcomes fail a few at random, which could put the success rate
    // either side of the 95% default when the gate judges.
    await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0 } });
    const repo = await tempDir('packsync-repo-');
    await writeFile(join(repo, 'all.yaml'), gatedYaml('soak: 6h'));
    const first = await startAgent(['--source', repo], env, stateDir);
    agent = first;
    await first.until('the deployment is added', (s) => s.passes >= 1 && s.history[0]?.result === 'Succeeded');
    await first.reconcile();
    const seen = await rollout(first);
    expect(seen).toMatchObject({ wave: 1, verdict: 'Inconclusive' });
    expect(seen?.soak.requiredMs).toBe(6 * HOUR * 1000);

    await sim.advance(4 * HOUR);
    first.spawned.child.kill('SIGKILL');
    expect((await first.spawned.done).signal).toBe('SIGKILL');

    // A new process: its first pass finds the soak 4 h old, not restarted.
    const second = await startAgent(['--source', repo], env, stateDir);
    agent = second;
    await second.until(
      'the first pass after the restart',
      (s) => s.passes >= 1 && s.conditions.find((c) => c.type === 'Reconciling')?.status !== 'True',
    );
    const after = await rollout(second);
    expect(after?.soak.elapsedMs).toBeGreaterThanOrEqual(4 * HOUR * 1000);
    expect(after?.line).toMatch(/^Deployment\/seven-zip-24-08 {2}wave 1\/3: soak 4h\d*m?\/6h/);
    expect((await sim.state()).deployments[0]).toMatchObject({ currentWave: 1 });

    await sim.advance(2.5 * HOUR);
    const promoted = (await second.reconcile()) as StatusWithRollouts;
    expect((await sim.state()).deployments[0]).toMatchObject({ status: 'Running', currentWave: 2 });
    expect(promoted.gates.find((r) => r.deployment === KEY)).toMatchObject({
      wave: 1,
      verdict: 'Pass',
      tenants: [{ name: 'Contoso', verdict: 'Pass' }],
    });
    expect(promoted.events.filter((e) => e.reason === 'WaveAdvanced' && e.object === KEY).map((e) => e.message)).toEqual([
      expect.stringMatching(/^wave 1 → 2 of 3: soaked;/),
    ]);
    expect(await second.counter('packsync_gate_actions_total', { action: 'skip-wave' })).toBe(1);
    expect(await second.counter('packsync_gate_verdict', { deployment: KEY, verdict: 'Pass' })).toBe(1);
    expect(await second.counter('packsync_wave_success_ratio', { deployment: KEY, wave: '1', tenant: 'Contoso' })).toBeGreaterThan(0.9);
    expect((await sim.writes()).filter((w) => w.endsWith('/skip-wave'))).toHaveLength(1);
  });

  it('a promote queued on the last wave reports the rollout completed, not a wave past the last', async () => {
    const repo = await tempDir('packsync-repo-');
    await writeFile(join(repo, 'all.yaml'), gatedYaml('soak: 6h'));
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    // Without an agent, promote skips the wave itself: to wave 2, then to the last (3 of 3).
    for (const wave of [2, 3]) {
      expect((await cli(['promote', KEY], env)).code).toBe(0);
      expect((await sim.state()).deployments[0]).toMatchObject({ status: 'Running', currentWave: wave, waveCount: 3 });
    }
    const running = await startAgent(['--source', repo], env, stateDir);
    agent = running;
    await running.until('the first pass', (s) => s.passes >= 1 && s.conditions.find((c) => c.type === 'Reconciling')?.status !== 'True');
    // The agent holds the state: promote is queued, carried out by its next pass, and says what it did.
    const queued = await cli(['promote', KEY, '--reason', 'ship it'], env);
    expect(queued.code).toBe(0);
    expect(queued.stdout).toContain('wave 3/3 → completed the rollout');
    expect((await sim.state()).deployments[0]).toMatchObject({ status: 'Completed' });
    const s = await running.until('the promote is reported', (x) =>
      x.events.some((e) => e.object === KEY && e.reason === 'RolloutCompleted'),
    );
    const events = s.events.filter((e) => e.object === KEY);
    expect(events.filter((e) => e.reason === 'WaveAdvanced')).toEqual([]);
    expect(events.find((e) => e.reason === 'RolloutCompleted')).toMatchObject({
      wave: 3,
      message: expect.stringMatching(/^completed: wave 3\/3 skipped by packsync promote: ship it/) as string,
    });
    expect(events.every((e) => (e.wave ?? 0) <= 3)).toBe(true);
  });
});
