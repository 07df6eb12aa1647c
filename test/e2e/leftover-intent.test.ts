/**
 * An apply killed right after its flow creates reached the service (before their answers, so
 * before their records), then the flows' manifests removed: the flows it made are found by their
 * pending creates, listed, and deleted by `apply --prune` (operator audit, stop 49). Regression:
 * they stayed live, unowned and never mentioned (`plan --prune`: "No changes"), and the pending
 * creates were never resolved. The built CLI as a process, the simulator's journal and live state.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInventory } from '../../src/state/inventory-store.js';
import { writeRepo } from '../support/manifests.js';
import { until } from '../support/poll.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';

describe('a create interrupted, then its manifest removed', () => {
  it('leftover-intent-flows-pruned: the flows the killed apply made are listed by every plan, then deleted by apply --prune; no pending create is left', async () => {
    // Every call takes effect when it arrives and is answered 1.5 s later: a kill in between loses the answers.
    const sim = await startTestSimulator({ latencyMs: 1500 });
    try {
      const repo = await writeRepo();
      const stateDir = await tempDir('packsync-leftover-');
      const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
      const apply = spawnCli(['apply', '--auto-approve', repo, '--log-level', 'silent'], env);
      const creates = async (): Promise<number> => (await sim.journal(true)).filter((e) => e.path === '/v1/flow/create').length;
      await until('both flow creates reached the service', async () => (await creates()) === 2, 60_000);
      apply.child.kill('SIGKILL');
      expect((await apply.done).signal).toBe('SIGKILL');
      const made = (await sim.state()).flows.filter((f) => !f.deleted).map((f) => f.id);
      expect(made).toHaveLength(2);
      expect(Object.keys((await loadInventory(stateDir)).intents)).toEqual(expect.arrayContaining(['Flow/pwsh', 'Flow/seven-zip']));

      // The change is reverted: the flows and their deployments leave git.
      await rm(join(repo, 'flows.yaml'));
      await rm(join(repo, 'deployments.yaml'));
      const first = await spawnCli(['apply', '--auto-approve', repo], env).done;
      expect(first.code, first.stdout + first.stderr).toBe(0);
      // Listed as requiring pruning by every plan, each naming the flow its create made.
      const plan = await spawnCli(['plan', repo, '--detailed-exitcode'], env).done;
      expect(plan.code, plan.stdout).toBe(2);
      for (const id of made) expect(plan.stdout).toContain(`flow ${id}`);
      const pruned = await spawnCli(['apply', '--auto-approve', '--prune', repo], env).done;
      expect(pruned.code, pruned.stdout + pruned.stderr).toBe(0);
      expect((await sim.state()).flows.filter((f) => !f.deleted)).toEqual([]);
      const deletes = (await sim.journal(true)).filter((e) => e.method === 'DELETE').map((e) => e.path);
      expect(deletes.sort()).toEqual(made.map((id) => `/v1/flow/${id}`).sort());
      expect(Object.keys((await loadInventory(stateDir)).objects).filter((k) => k.startsWith('Flow/'))).toEqual([]);
    } finally {
      await sim.close();
    }
  }, 180_000);
});
