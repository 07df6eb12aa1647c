/**
 * A `spec.wave` hold that does not change is one occurrence, whatever commits come and go.
 * Regression: the revision was part of GateHeld's identity, so every new commit re-raised the hold
 * as a new event and sent it again to chat and webhooks. Real agent process, git, webhook receiver.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNotifiedAgent } from '../support/notified-agent.js';
import type { RunningAgent } from '../support/agent-process.js';
import type { TestRepo } from '../support/git.js';
import { deploymentsYaml, manifestRepo } from '../support/manifests.js';
import { until as poll } from '../support/poll.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const KEY = 'Deployment/seven-zip-24-08';
let sim: TestSim;
let repo: TestRepo;
let rx: Receiver;
let agent: RunningAgent;

const hooks = (): { reason: string; object: { name: string }; revision: string }[] =>
  rx.requests
    .filter((r) => r.path === '/hook')
    .map((r) => JSON.parse(r.body) as { reason: string; object: { name: string }; revision: string });

beforeAll(async () => {
  sim = await startTestSimulator();
  rx = await startReceiver();
  repo = await manifestRepo({ wave: 1 });
  ({ agent } = await startNotifiedAgent(
    sim,
    repo,
    // A spec.wave hold is sent only where an alert names GateHeld (docs/agent.md "Notifications").
    'providers:\n  - name: hook\n    type: webhook\n    addressFile: secrets/hook-url\nalerts:\n  - provider: hook\n    reasons: [GateHeld, ApplySucceeded]\n',
    { 'hook-url': `${rx.url}/hook` },
  ));
});

afterAll(async () => {
  await agent?.stop();
  await rx?.close();
  await sim?.close();
});

describe('GateHeld identity', () => {
  it('an unchanged spec.wave hold is one GateHeld across new commits, sent once', async () => {
    await agent.until('first apply', (s) => s.lastAppliedRevision !== null);
    const first = await agent.reconcile();
    expect(first.events.filter((e) => e.reason === 'GateHeld' && e.object === KEY)).toMatchObject([{ wave: 1 }]);
    for (const n of [1, 2]) {
      await repo.commit(`unrelated commit ${n}`);
      await agent.reconcile();
    }
    // A commit that writes (PowerShell starts): its ApplySucceeded is sent after the pass's GateHeld.
    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml({ wave: 1, pwshState: 'running' }));
    const last = await repo.commit('start PowerShell');
    const s = await agent.reconcile();
    expect(s.lastAppliedRevision).toBe(last);
    const held = s.events.filter((e) => e.reason === 'GateHeld' && e.object === KEY);
    expect(held).toHaveLength(1);
    expect(held[0]!.count).toBeGreaterThanOrEqual(4);
    await poll(
      'ApplySucceeded of the last commit sent',
      () => hooks().some((h) => h.reason === 'ApplySucceeded' && h.revision === last),
      30_000,
    );
    expect(hooks().filter((h) => h.reason === 'GateHeld')).toHaveLength(1);
  });
});
