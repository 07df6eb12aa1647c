/**
 * `Flow.spec.promotion` over the deployments the service starts by itself (issue 22.5, docs/reconcile.md
 * "Service-driven flows"): the flow's gate judges the service's 24.09 rollout as a Deployment's gate
 * would — soak, then skip-wave; a failing tenant, then stop and a hold — addressed as
 * `Flow/seven-zip@24.09`, with its state on the flow's entry; `packsync resume Flow/seven-zip@24.09`
 * releases the hold and the next apply starts it again. No Deployment manifest names 24.09.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/state/inventory-types.js';
import { cli } from '../support/cli.js';
import { flowsYaml, writeRepo } from '../support/manifests.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const HOUR = 3600;
const KEY = 'Flow/seven-zip@24.09';
let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
beforeEach(async () => {
  ({ sim, env, stateDir } = await simEnv({ timeScale: 60 }));
});
afterEach(() => sim.close());

const apply = async (repo: string): Promise<string> => {
  const r = await cli(['apply', repo, '--auto-approve'], env);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.stdout;
};
const serviceDeployment = async (): Promise<{ id: string; status: string; currentWave: number }> => {
  const d = (await sim.state()).deployments.find((x) => x.version === '24.09');
  if (!d) throw new Error('the service started no 24.09 deployment');
  return { id: d.id, status: d.status, currentWave: (d as { currentWave?: number }).currentWave ?? 0 };
};

describe('Flow.spec.promotion', () => {
  it("gates the service's own rollout: soak and skip-wave, a failing tenant stops and holds it, resume releases it", async () => {
    const repo = await writeRepo();
    await writeFile(join(repo, 'flows.yaml'), flowsYaml(['promotion: { soak: 6h, minDevices: 20, maxFailureRate: 10% }']));
    await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0 } });
    await apply(repo);
    await sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
    await sim.advance(120);
    const started = await serviceDeployment();
    expect(started.status).toBe('Running');

    // The first pass starts the soak clock; after the soak the gate skips the wave.
    await apply(repo);
    await sim.advance(6.5 * HOUR);
    const plan = await cli(['plan', repo, '-o', 'json'], env);
    const planned = (JSON.parse(plan.stdout) as { objects: { key: string; change: string; reasons: string[] }[] }).objects.find(
      (o) => o.key === KEY,
    );
    expect(planned).toMatchObject({ change: 'update' });
    expect(planned!.reasons.join(' ')).toMatch(/promotion gate passed on wave 1/);
    const before = (await sim.journal(true)).length;
    await apply(repo);
    const skips = (await sim.journal(true)).slice(before).filter((e) => e.path.endsWith('/skip-wave'));
    expect(skips.map((e) => e.path)).toEqual([`/v1/flow/deployment/${started.id}/skip-wave`]);
    expect((await serviceDeployment()).currentWave).toBe(2);

    // Half of wave 2's installs fail: the gate stops it and holds it, on the flow's state entry.
    await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0.5 } });
    await sim.advance(7 * HOUR);
    await apply(repo);
    await apply(repo);
    expect((await serviceDeployment()).status).toBe('Stopped');
    const inv = JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;
    expect(inv.objects['Flow/seven-zip']?.serviceGates?.[started.id]).toMatchObject({ version: '24.09', hold: { stopped: true } });
    expect(Object.keys(inv.objects).some((k) => k.includes('@'))).toBe(false);
    // promote is refused while held; resume releases it and the next apply starts it again.
    const promote = await cli(['promote', KEY, '--reason', 'try'], env);
    expect(promote.code).toBe(1);
    expect(promote.stderr).toMatch(/GATE_HELD/);
    await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0 } });
    const resumed = await cli(['resume', KEY, '--reason', 'vendor hotfix'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    await apply(repo);
    expect((await serviceDeployment()).status).toBe('Running');
  });
});
