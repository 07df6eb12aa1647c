/**
 * Blast radius per action (docs/policy.md, plan/reach.ts) through the CLI against the simulator: the
 * figures are checked against the simulator's own fixtures (the patch group's waves and each
 * tenant's managed devices), and the journal shows the order the moves ran in.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { cli } from '../support/cli.js';
import { catalogPackageDoc, deploymentDoc, flowDoc, PILOT_FIRST, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;
let repo: string;
beforeEach(async () => {
  ({ sim, env } = await simEnv());
  repo = await tempDir('packsync-repo-');
});
afterEach(() => sim.close());

const write = (state: string, more: string[] = []): Promise<void> =>
  writeFile(
    join(repo, 'all.yaml'),
    yamlDocs(
      catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08'),
      flowDoc('seven-zip', '7-Zip', [`patchGroup: ${PILOT_FIRST}`]),
      deploymentDoc('seven-zip-24-08', 'seven-zip', state, more),
    ),
  );

/** Tenants and devices of waves 1..`upTo` of "Pilot first", from the simulator's fixtures (not from packsync). */
async function waves(upTo: number): Promise<{ tenants: number; devices: number; of: number }> {
  const fx = (await sim.admin('GET', '/_sim/fixtures')) as {
    tenants: { id: string; devices: number }[];
    patchGroups: { id: string; waves: { tenantIds: string[] }[] }[];
  };
  const group = fx.patchGroups.find((g) => g.id === PILOT_FIRST)!;
  const ids = group.waves.slice(0, upTo).flatMap((w) => w.tenantIds);
  const devices = ids.reduce((n, id) => n + (fx.tenants.find((t) => t.id === id)?.devices ?? 0), 0);
  return { tenants: ids.length, devices, of: group.waves.length };
}

it('update-content-reach-after-skips: an update-content after the same plan’s skip-waves reaches every wave they take the rollout to, not only the live wave', async () => {
  // Started, then stopped at wave 1.
  await write('running');
  expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
  await write('stopped');
  expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
  expect((await sim.state()).deployments[0]).toMatchObject({ status: 'Stopped', currentWave: 1 });

  await write('running', ['wave: 3', 'contentRevision: 2']);
  const json = await cli(['plan', repo, '--output', 'json'], env);
  expect(json.code, json.stderr).toBe(0);
  const p = JSON.parse(json.stdout) as Plan;
  const all = await waves(3);
  expect(all.of).toBe(3);
  const update = p.actions.find((a) => a.op === 'update-content');
  expect(update).toMatchObject({ tenants: all.tenants, devices: all.devices });
  expect(update?.description).toContain(`(waves 1-3 of 3), ${all.devices.toLocaleString('en-US')} devices`);

  // It does run after both skips: the journal's order.
  const before = (await sim.writes()).length;
  expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
  expect((await sim.writes()).slice(before)).toEqual([
    'POST /v1/flow/deployment/{id}/start',
    'POST /v1/flow/deployment/{id}/skip-wave',
    'POST /v1/flow/deployment/{id}/skip-wave',
    'POST /v1/flow/deployment/{id}/update-content',
  ]);
  expect((await sim.state()).deployments[0]).toMatchObject({ currentWave: 3 });
});
