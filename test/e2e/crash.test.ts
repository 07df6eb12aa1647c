/**
 * Crash safety: the apply process is killed with SIGKILL at many points of a converge, then run
 * again. The service ends converged with no duplicate package, flow, deployment or upload, and the
 * inventory is always readable. The full count (50+ points) runs in `npm run test:reliability`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInventory } from '../../src/apply/inventory-store.js';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { normalisePath, startTestSimulator } from '../support/sim.js';
import type { SimState, TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';

const POINTS = Number(process.env.PACKSYNC_CRASH_POINTS ?? 12);

export function duplicates(s: SimState): string[] {
  const dup = (keys: string[]): string[] => keys.filter((k, i) => keys.indexOf(k) !== i);
  return [
    ...dup(s.packages.map((p) => (p.isCustom ? `custom ${p.productName} ${p.productVersion}` : `catalog ${p.appId} ${p.productVersion}`))),
    ...dup(s.flows.filter((f) => !f.deleted).map((f) => `flow ${f.name}`)),
    ...dup(s.deployments.map((d) => `deployment ${d.flowId} ${d.packageId}`)),
    ...dup(s.uploads.map((u) => `upload ${u.tenantId} ${u.packageId}`)),
  ];
}

/** Kills `apply` once its journal has grown by `after` entries (or it finishes first). */
async function applyAndKill(sim: TestSim, repo: string, env: Record<string, string>, after: number): Promise<string | null> {
  const start = (await sim.journal()).length;
  const p = spawnCli(['apply', repo, '--log-level', 'silent'], env);
  let finished = false;
  void p.done.then(() => (finished = true));
  for (;;) {
    if (finished) return null;
    const j = await sim.journal();
    if (j.length - start >= after) {
      p.child.kill('SIGKILL');
      await p.done;
      const last = j[j.length - 1];
      return last ? `${last.method} ${normalisePath(last.path)}` : null;
    }
    await new Promise((r) => setTimeout(r, 3));
  }
}

describe('crash safety', () => {
  it(`converges with no duplicates after SIGKILL at ${POINTS} points`, async () => {
    const sim = await startTestSimulator({ latencyMs: 15 });
    try {
      const repo = await writeRepo({ withCustom: true, wave: 2 });
      const stateDir = await tempDir('packsync-state-');
      const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
      const hits: Record<string, number> = {};
      let seed = 7;
      const rand = (n: number): number => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return 1 + (seed % n);
      };
      for (let i = 0; i < POINTS; i++) {
        const hit = await applyAndKill(sim, repo, env, rand(12));
        if (hit) hits[hit] = (hits[hit] ?? 0) + 1;
        // The inventory is never torn, whatever the moment of the kill.
        JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8').catch(() => '{}'));
        expect(duplicates(await sim.state())).toEqual([]);
      }
      const final = await cli(['apply', repo], env);
      expect(final.stdout + final.stderr).toMatch(/Apply complete/);
      expect(final.code).toBe(0);
      const again = await cli(['plan', repo, '--detailed-exitcode'], env);
      expect(again.code).toBe(0);
      const state = await sim.state();
      expect(duplicates(state)).toEqual([]);
      expect(state.flows.filter((f) => !f.deleted)).toHaveLength(2);
      expect(state.deployments).toHaveLength(2);
      expect(Object.keys((await loadInventory(stateDir)).intents)).toEqual([]);
      expect(Object.keys(hits).length).toBeGreaterThan(1);
    } finally {
      await sim.close();
    }
  });
});
