/**
 * The agent and change windows (docs/policy.md), as its own process against the simulator whose
 * virtual clock starts on a chosen Saturday: the held start is shown in /status and on the status
 * page with its next window, the next pass is scheduled for the window's start (not a polling
 * requeue), and a pass once the window is open starts the deployment. No sleeping: the simulator's
 * clock is advanced and passes are triggered.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startAgent } from '../support/agent-process.js';
import type { RunningAgent } from '../support/agent-process.js';
import { cli } from '../support/cli.js';
import { spawnCli } from '../support/spawn-cli.js';
import { catalogPackageDoc, deploymentDoc, flowDoc, PILOT_FIRST, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim | null = null;
let agent: RunningAgent | null = null;
afterEach(async () => {
  await agent?.stop();
  agent = null;
  await sim?.close();
  sim = null;
});

const WINDOWS = ['windows:', '  timezone: Europe/Oslo', '  allow: ["Mon-Thu 08:00-16:00"]'];
const yaml = (state: string, windows = WINDOWS): string =>
  yamlDocs(
    catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08'),
    flowDoc('seven-zip', '7-Zip', [`patchGroup: ${PILOT_FIRST}`, ...windows]),
    deploymentDoc('seven-zip-24-08', 'seven-zip', state),
  );

it('the agent holds the start until Monday 08:00 Oslo, shows the next window, wakes for it (no polling) and starts it in the window', async () => {
  sim = await startTestSimulator({ timeScale: 60, clockStart: Date.parse('2026-11-28T12:00:00Z') });
  const stateDir = await tempDir('packsync-state-');
  const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
  const repo = await tempDir('packsync-repo-');
  await writeFile(join(repo, 'all.yaml'), yaml('pending'));
  expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
  await writeFile(join(repo, 'all.yaml'), yaml('running'));

  agent = await startAgent(['--source', repo, '--interval', '1h'], env, await tempDir('packsync-secret-'));
  const s = await agent.until('the first pass', (x) => x.passes >= 1);
  expect(s.history[0]?.result).toBe('Succeeded');
  expect(s.windows).toEqual([
    expect.objectContaining({
      key: 'Deployment/seven-zip-24-08',
      open: false,
      until: '2026-11-30T07:00:00.000Z',
      reason: 'waits for window Mon 08:00 Europe/Oslo (2026-11-30)',
    }),
  ]);
  expect(s.rollouts.find((r) => r.deployment === 'Deployment/seven-zip-24-08')?.window).toMatchObject({
    until: '2026-11-30T07:00:00.000Z',
  });
  // Not a "waiting on the service" requeue every few seconds: the next pass is the window's start
  // (measured on the service's clock, waited locally; at most a day ahead).
  expect(agent.condition(s, 'Reconciling')?.reason).not.toBe('WaitingOnService');
  expect(Date.parse(s.nextPassAt ?? '') - Date.now()).toBeGreaterThan(60_000);
  expect(await (await fetch(agent.base)).text()).toContain('waits for window Mon 08:00 Europe/Oslo (2026-11-30)');
  expect((await sim.writes()).filter((w) => w.includes('/start'))).toEqual([]);

  // Monday 07:00 UTC = 08:00 in Oslo (winter time): the next pass starts it.
  const now = ((await sim.admin('GET', '/_sim/clock')) as { epochMs: number }).epochMs;
  await sim.advance(Math.ceil((Date.parse('2026-11-30T07:00:30Z') - now) / 1000));
  const open = await agent.reconcile();
  expect(open.windows?.[0]).toMatchObject({ open: true });
  expect((await sim.writes()).filter((w) => w.includes('/start'))).toEqual(['POST /v1/flow/deployment/{id}/start']);
});

it('promote --ignore-windows handed to the running agent skips now and the agent reports WindowIgnored with who and why', async () => {
  sim = await startTestSimulator({ timeScale: 60, clockStart: Date.parse('2026-11-28T12:00:00Z') });
  const stateDir = await tempDir('packsync-state-');
  const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
  const repo = await tempDir('packsync-repo-');
  // Started on a weekday morning before the window rule arrived; the window is closed now (Saturday).
  await writeFile(join(repo, 'all.yaml'), yaml('running', []));
  expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
  await writeFile(join(repo, 'all.yaml'), yaml('running'));
  agent = await startAgent(['--source', repo, '--interval', '1h'], env, await tempDir('packsync-secret-'));
  await agent.until('the first pass', (x) => x.passes >= 1);
  const writes = (await sim.writes()).length;

  const key = 'Deployment/seven-zip-24-08';
  const r = await spawnCli(['promote', key, '--reason', 'urgent fix', '--ignore-windows', '--actor', 'Ada <ada@example.com>'], env).done;
  expect(r.code, r.stderr).toBe(0);
  expect((await sim.writes()).slice(writes)).toEqual(['POST /v1/flow/deployment/{id}/skip-wave']);
  const s = await agent.until('the break-glass event', (x) => x.events.some((e) => e.reason === 'WindowIgnored'));
  expect(s.events.find((e) => e.reason === 'WindowIgnored')).toMatchObject({ object: key });
  expect(s.events.find((e) => e.reason === 'WindowIgnored')?.message).toContain('Ada <ada@example.com>: urgent fix');
});

it('a promotion gate that passes while the window is closed is not told as done: no skip, no WaveAdvanced, carriedOut false; in the window it is (regression: reported as skipped)', async () => {
  sim = await startTestSimulator({ timeScale: 60, clockStart: Date.parse('2026-11-28T12:00:00Z') });
  const stateDir = await tempDir('packsync-state-');
  const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
  await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0 } });
  const repo = await tempDir('packsync-repo-');
  await writeFile(join(repo, 'all.yaml'), yaml('running', []));
  expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
  const gated = yaml('running').replace('state: running', 'state: running\n  promotion: { soak: 1h, minDevices: 5, successRate: 90% }');
  await writeFile(join(repo, 'all.yaml'), gated);
  agent = await startAgent(['--source', repo, '--interval', '1h'], env, await tempDir('packsync-secret-'));
  await agent.until('the first pass', (x) => x.passes >= 1);
  const key = 'Deployment/seven-zip-24-08';

  await sim.advance(3 * 3600);
  const held = await agent.reconcile();
  expect((await sim.writes()).filter((w) => w.endsWith('/skip-wave'))).toEqual([]);
  expect((await sim.state()).deployments[0]).toMatchObject({ currentWave: 1 });
  const gate = held.gates.find((g) => g.deployment === key);
  expect(gate).toMatchObject({ verdict: 'Pass', carriedOut: false });
  expect(gate?.line).toContain('waits for window Mon 08:00 Europe/Oslo');
  expect(held.events.filter((e) => e.object === key && e.reason === 'WaveAdvanced')).toEqual([]);

  // Monday in the window: the service moved to wave 2 by itself over the weekend (wave 1 soaks 24 h);
  // the gate judges wave 2 once its soak has run, and its skip is carried out and told.
  const now = ((await sim.admin('GET', '/_sim/clock')) as { epochMs: number }).epochMs;
  await sim.advance(Math.ceil((Date.parse('2026-11-30T07:00:30Z') - now) / 1000));
  await agent.reconcile();
  await sim.advance(2 * 3600);
  const open = await agent.reconcile();
  expect((await sim.writes()).filter((w) => w.endsWith('/skip-wave'))).toHaveLength(1);
  expect(open.gates.find((g) => g.deployment === key)).toMatchObject({ wave: 2, carriedOut: true });
  expect(open.events.filter((e) => e.object === key && e.reason === 'WaveAdvanced')).toHaveLength(1);
});
