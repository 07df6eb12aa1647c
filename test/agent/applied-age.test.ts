/**
 * Regression: `lastAppliedAt` (the banner's "Applied: <revision> <age>") was the time of the last
 * successful pass, so every no-op pass over the same revision made it look just applied. It is when
 * the revision in force came into force, and moves only when another revision is applied. The built
 * agent over real HTTP (its /status and page), a bare git remote, the simulator.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent } from '../support/agent-process.js';
import type { RunningAgent } from '../support/agent-process.js';
import type { TestRepo } from '../support/git.js';
import { deploymentsYaml, manifestRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let repo: TestRepo;
let agent: RunningAgent;

beforeAll(async () => {
  sim = await startTestSimulator();
  repo = await manifestRepo();
  const stateDir = await tempDir('packsync-applied-age-');
  agent = await startAgent(
    ['--source', repo.fileUrl, '--ref', 'main'],
    { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, HOME: stateDir },
    stateDir,
  );
});

afterAll(async () => {
  await agent?.stop();
  await sim?.close();
});

describe('lastAppliedAt', () => {
  it('applied-age-of-revision: stays at the time the revision came into force through no-op passes, and moves with the next revision', async () => {
    // Converged: nothing waits on the service any more (Reconciling=False), so the next pass is a no-op.
    const first = await agent.until(
      'first apply, converged',
      (s) => s.lastAppliedRevision !== null && agent.condition(s, 'Reconciling')?.status === 'False',
    );
    expect(first.lastAppliedAt).not.toBeNull();
    const noop = await agent.reconcile();
    expect(noop.history[0]).toMatchObject({ result: 'Succeeded', writes: 0, revision: first.lastAppliedRevision });
    expect(noop.lastPassAt! > first.lastPassAt!).toBe(true);
    expect(noop.lastAppliedAt).toBe(first.lastAppliedAt);

    await writeFile(join(repo.work, 'deployments.yaml'), deploymentsYaml({ state: 'stopped' }));
    const commit = await repo.commit('stop 7-Zip');
    const applied = await agent.reconcile();
    expect(applied.lastAppliedRevision).toBe(commit);
    // The pass that applied it (a requeued pass may have followed: the time is the first one's).
    const applying = applied.history.find((p) => p.revision === commit && p.writes > 0)!;
    expect(applied.lastAppliedAt! >= applying.startedAt).toBe(true);
    expect(applied.lastAppliedAt! > noop.lastPassAt!).toBe(true);
    const again = await agent.reconcile();
    expect(again.lastPassAt! > applied.lastAppliedAt!).toBe(true);
    expect(again.lastAppliedAt).toBe(applied.lastAppliedAt);
  });
});
