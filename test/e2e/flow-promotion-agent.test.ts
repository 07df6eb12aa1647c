/**
 * `Flow.spec.promotion` under the agent (issue 22.5): the service's own rollout of 24.09 is on `/status`
 * `gates` as `Flow/seven-zip@24.09`, and the gate's stop is a `GateHeld` event that notifications carry,
 * as for a Deployment's gate.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent } from '../support/agent-process.js';
import type { RunningAgent } from '../support/agent-process.js';
import { flowsYaml, writeRepo } from '../support/manifests.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const HOUR = 3600;
let sim: TestSim;
let agent: RunningAgent;
let rx: Receiver;

beforeAll(async () => {
  sim = await startTestSimulator({ timeScale: 60 });
  rx = await startReceiver();
  const repo = await writeRepo();
  await writeFile(join(repo, 'flows.yaml'), flowsYaml(['promotion: { soak: 6h, minDevices: 20, maxFailureRate: 10% }']));
  const dir = await tempDir('packsync-flow-gate-notify-');
  await writeFile(
    join(dir, 'notify.yaml'),
    `providers:\n  - name: hook\n    type: webhook\n    address: ${rx.url}/hook\nalerts:\n  - provider: hook\n    reasons: [GateHeld]\n`,
  );
  await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0.5 } });
  const stateDir = await tempDir('packsync-flow-gate-state-');
  agent = await startAgent(
    ['--source', repo, '--interval', '1h', '--notifications', join(dir, 'notify.yaml')],
    { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir },
    stateDir,
  );
  await agent.until('the first pass', (s) => s.lastAppliedRevision !== null);
});

afterAll(async () => {
  await agent?.stop();
  await rx?.close();
  await sim?.close();
});

describe('a flow gate under the agent', () => {
  it("shows the service's rollout on /status gates and tells its hold as GateHeld", async () => {
    await sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
    await sim.advance(120);
    await agent.reconcile();
    await sim.advance(7 * HOUR);
    await agent.reconcile();
    const s = await agent.reconcile();
    const gate = s.gates.find((g) => g.deployment === 'Flow/seven-zip@24.09');
    expect(gate?.held).toBeDefined();
    await rx.waitFor(1);
    const hooks = rx.requests
      .filter((r) => r.path === '/hook')
      .map((r) => JSON.parse(r.body) as { reason: string; object: { kind: string; name: string } });
    expect(hooks).toEqual(
      expect.arrayContaining([expect.objectContaining({ reason: 'GateHeld', object: { kind: 'Flow', name: 'seven-zip@24.09' } })]),
    );
  });

  it('service-started-rollout-metrics: the gated rollout has its wave series under the name its gate has on /status', async () => {
    const gate = (await agent.status()).gates.find((g) => g.deployment.startsWith('Flow/seven-zip@'));
    expect(gate?.deployment).toBe('Flow/seven-zip@24.09');
    const text = await (await fetch(`${agent.base}/metrics`)).text();
    // Held on wave 1 (stopped): its series stays until the service removes the deployment.
    expect(text).toContain('packsync_rollout_wave{deployment="Flow/seven-zip@24.09",flow="seven-zip"} 1');
  });
});
