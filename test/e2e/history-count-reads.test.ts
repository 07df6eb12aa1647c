/**
 * Regression: the first pass after many rollouts completed read every wave of a flow once per
 * completed deployment, four at a time, and counted none of it: the fleet-cli "no-op" after 47
 * virtual hours made 14,746 reads (3,753 shown) and took 98 s. The install counts now read each
 * wave once, at the client's concurrency, and the apply's reads include them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { writeFleet } from '../support/fleet.js';
import { normalisePath, simEnv } from '../support/sim.js';
import type { SimEnv } from '../support/sim.js';

let s: SimEnv | undefined;
afterEach(async () => {
  await s?.sim.close();
  s = undefined;
});

describe('install counts of completed rollouts', () => {
  it('reads each wave once, counts the reads in the apply, and still records the counts', async () => {
    s = await simEnv({ fleet: 'large' });
    // Six flows, four running deployments each, every flow on the service's one default wave.
    const fleet = await writeFleet({ flows: 6, deploymentsPerFlow: 4, packages: 12, state: () => 'running' });
    const first = await cli(['apply', fleet.dir, '--auto-approve'], s.env);
    expect(first.code, first.stderr).toBe(0);
    await s.sim.advance(7 * 24 * 3600);

    const before = (await s.sim.journal()).length;
    const second = await cli(['apply', fleet.dir, '--auto-approve', '-o', 'json'], s.env);
    expect(second.code, second.stderr).toBe(0);
    const calls = (await s.sim.journal()).slice(before);
    const waveReads = calls.filter((e) => normalisePath(e.path) === '/v1/flow/wave/{id}/live').map((e) => e.path);
    expect(waveReads.length).toBeGreaterThan(0);
    // Once per wave (six flows, one wave each), not once per completed deployment.
    expect(new Set(waveReads).size).toBe(waveReads.length);
    expect(waveReads.length).toBeLessThanOrEqual(6);
    const out = JSON.parse(second.stdout) as { plan: { reads: number }; result: { writes: number; reads: number } };
    expect(out.plan.reads + out.result.reads).toBe(calls.filter((e) => e.method === 'GET').length);

    // The report's evidence is still there: each wave's figures under the deployment it shows.
    const state = JSON.parse(await readFile(join(s.stateDir, 'inventory.json'), 'utf8')) as {
      history?: { rollouts?: { deploymentId: string; counts?: { tenants: Record<string, { installed: number }> } }[] };
    };
    const counted = (state.history?.rollouts ?? []).filter((r) => r.counts);
    expect(counted.length).toBe(waveReads.length);
    for (const r of counted) expect(Object.values(r.counts!.tenants).some((t) => t.installed > 0)).toBe(true);
  });
});
