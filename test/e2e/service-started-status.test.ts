/**
 * Service-driven flows on the agent's surfaces (issue 22.5, docs/reconcile.md "Service-driven flows"):
 * a deployment the service started by itself in an owned flow is listed on `/status`
 * (`serviceStarted`: flow, version, status, wave) and on the status page under "Started by the
 * service", and is never a rollout of git's nor something that needs attention.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheus } from '../agent/prometheus.js';
import type { Sample } from '../agent/prometheus.js';
import { startAgent } from '../support/agent-process.js';
import type { RunningAgent } from '../support/agent-process.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let agent: RunningAgent;

/** The samples of one metric family on the agent's /metrics (only that family is parsed). */
async function family(name: string): Promise<Sample[]> {
  const text = await (await fetch(`${agent.base}/metrics`)).text();
  const lines = text.split('\n').filter((l) => l.startsWith(`# TYPE ${name} `) || l.startsWith(`${name}{`));
  return parsePrometheus(lines.join('\n')).get(name) ?? [];
}

beforeAll(async () => {
  sim = await startTestSimulator();
  const stateDir = await tempDir('packsync-service-started-');
  agent = await startAgent(
    ['--source', await writeRepo(), '--interval', '1h'],
    { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir },
    stateDir,
  );
  await agent.until('the first pass', (s) => s.lastAppliedRevision !== null);
});

afterAll(async () => {
  await agent?.stop();
  await sim?.close();
});

describe('a deployment the service started', () => {
  it('status-lists-always-present: /status lists serviceStarted, expiredExceptions and windows as [] (approvals null) while there are none', async () => {
    // Before, these keys were left out when empty, so `jq '.serviceStarted | length'` failed instead of saying 0.
    const s = await agent.reconcile();
    expect(s).toMatchObject({ serviceStarted: [], expiredExceptions: [], windows: [], approvals: null });
  });

  it('is on /status and the page as started by the service, not on git’s rollout board', async () => {
    await sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
    await sim.advance(120);
    const s = await agent.reconcile();
    expect(s.serviceStarted).toEqual([expect.objectContaining({ flow: 'Flow/seven-zip', version: '24.09', status: 'Running' })]);
    expect(s.rollouts.map((r) => r.version)).not.toContain('24.09');
    const page = await (await fetch(`${agent.base}/`)).text();
    expect(page).toMatch(/Started by the service \(1\)[\s\S]*<code>Flow\/seven-zip<\/code><td>24\.09<td>Running/);
  });

  it('service-started-rollout-metrics: its wave and success ratio are exported as Flow/NAME@VERSION, as a rollout of git’s is', async () => {
    // Before, the rollout series were built from git's board alone: the service's rollouts had none.
    const wave = await family('packsync_rollout_wave');
    expect(wave).toContainEqual({ labels: { deployment: 'Flow/seven-zip@24.09', flow: 'seven-zip' }, value: 1 });
    // Reports arrive as the service's clock runs; the ratio is read from the current wave's live data.
    await sim.advance(6 * 3600);
    await agent.reconcile();
    const ratio = (await family('packsync_rollout_success_ratio')).find((x) => x.labels.deployment === 'Flow/seven-zip@24.09');
    expect(ratio?.labels).toEqual({ deployment: 'Flow/seven-zip@24.09', flow: 'seven-zip' });
    expect(ratio?.value).toBeGreaterThan(0);
    expect(ratio?.value).toBeLessThanOrEqual(1);
    // Git's board is unchanged: the service's deployment is still not one of its rollouts.
    expect((await agent.status()).rollouts.map((r) => r.deployment)).not.toContain('Flow/seven-zip@24.09');
  });
});
