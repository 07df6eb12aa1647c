/**
 * A revert reuses what a replacement kept as superseded. Regressions of a black-box review: the
 * revert's plan listed the reused entry twice (as reused, and again as a superseded leftover), and
 * with `--prune` it deleted the very deployment it reused (one DELETE, the rollout gone).
 * Through the in-process CLI against the real simulator.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/state/inventory-types.js';
import { cli } from '../support/cli.js';
import { copyExamples } from '../support/repo.js';
import type { TestSim } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';

let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
useSim((s) => ({ sim, env, stateDir } = s));

const inventory = async (): Promise<Inventory> => JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;

async function setVersion(repo: string, from: string, to: string): Promise<void> {
  const path = join(repo, 'packages/seven-zip.yaml');
  await writeFile(path, (await readFile(path, 'utf8')).split(`"${from}"`).join(`"${to}"`));
}

describe('a revert reuses kept entries once', () => {
  it('plans each reused entry once and apply --prune deletes nothing it reuses (regression: the revert deleted the deployment it reused)', async () => {
    const repo = await copyExamples();
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    await setVersion(repo, '24.08', '24.07');
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const kept = Object.keys((await inventory()).objects).filter((k) => k.includes('#'));
    expect(kept.length).toBeGreaterThan(0);
    await setVersion(repo, '24.07', '24.08');

    const plan = await cli(['plan', repo, '--prune', '--output', 'json'], env);
    expect(plan.code, plan.stderr).toBe(0);
    const objects = (JSON.parse(plan.stdout) as { objects: { key: string; change: string }[] }).objects;
    // Each kept entry is planned once: inside the revert of its main key, never as a leftover.
    for (const k of kept)
      expect(
        objects.filter((o) => o.key === k).map((o) => o.change),
        k,
      ).toEqual([]);
    expect(objects.filter((o) => o.change === 'delete' || o.change === 'forget')).toEqual([]);
    const ids = (await sim.state()).deployments.map((d) => d.id);

    const writes0 = (await sim.writes()).length;
    const r = await cli(['apply', '--auto-approve', '--prune', repo], env);
    expect(r.code, r.stderr).toBe(0);
    expect((await sim.writes()).slice(writes0)).toEqual([]);
    expect((await sim.state()).deployments.map((d) => d.id)).toEqual(ids);
    const inv = await inventory();
    for (const k of kept) {
      const [main, id] = k.split('#');
      expect(inv.objects[main ?? '']?.id, main).toBe(id);
      expect(inv.objects[k]).toBeUndefined();
    }
  });
});
