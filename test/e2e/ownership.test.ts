/**
 * One live object belongs to one key (docs/reconcile.md). Regressions of a black-box review: a second Flow
 * naming the live flow Flow/pwsh owned was called "not owned by packsync", `--adopt` recorded it
 * under both keys, and removing the second manifest then made `--prune` delete the flow (and its
 * deployment) that Flow/pwsh, still in git, owned. Through the in-process CLI against the real
 * simulator; assertions on the journal, live state, the state directory and exit codes.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
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

const apply = (args: string[]): ReturnType<typeof cli> => cli(['apply', '--auto-approve', ...args], env);
const plan = (args: string[]): ReturnType<typeof cli> => cli(['plan', ...args], env);
const writes = async (): Promise<string[]> => sim.writes();
const inventoryFile = (): string => join(stateDir, 'inventory.json');
const inventory = async (): Promise<Inventory> => JSON.parse(await readFile(inventoryFile(), 'utf8')) as Inventory;

/** A second Flow whose display name is the one Flow/pwsh (examples/flows/pwsh.yaml) already has. */
const PWSH2 =
  'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata: { name: pwsh2 }\nspec:\n  name: PowerShell 7\n  app: PowerShell 7\n  scope: machine\n  flags: [stopCurrentAndStartNew]\n';

/** A Package naming PowerShell 7 by its catalog id: the same live package as Package/pwsh, which only the live catalog can tell. */
const pwshById = (appId: string): string =>
  `apiVersion: packsync.dev/v1\nkind: Package\nmetadata: { name: pwsh-by-id }\nspec:\n  catalog: { app: ${appId}, version: "7.4.6", scope: machine }\n`;

interface PlannedObject {
  key: string;
  change: string;
  error?: { code: string; message: string };
}
const planObjects = (stdout: string): PlannedObject[] => (JSON.parse(stdout) as { objects: PlannedObject[] }).objects;

async function converged(): Promise<string> {
  const repo = await copyExamples();
  const first = await apply([repo]);
  expect(first.code, first.stderr).toBe(0);
  return repo;
}

/** The live PowerShell flow and its deployment, as the simulator has them. */
async function livePwsh(): Promise<{ flows: string[]; deployments: string[] }> {
  const s = await sim.state();
  const flows = s.flows.filter((f) => f.name === 'PowerShell 7' && !f.deleted).map((f) => f.id);
  return { flows, deployments: s.deployments.filter((d) => flows.includes(d.flowId)).map((d) => d.id) };
}

/** Writes a state that records `from`'s live id under `to` too, as `apply --adopt` did before the fix. */
async function shareId(from: string, to: string, file: string): Promise<string> {
  const inv = await inventory();
  const e = inv.objects[from];
  if (!e) throw new Error(`${from} is not in the state`);
  inv.objects[to] = { ...e, name: to.slice(to.indexOf('/') + 1), file };
  await writeFile(inventoryFile(), JSON.stringify(inv));
  return e.id;
}

describe('one live object, one key', () => {
  it('a second Flow naming the live flow Flow/pwsh owns is a validation error: --adopt writes nothing and --prune then deletes nothing', async () => {
    const repo = await converged();
    const before = await livePwsh();
    await writeFile(join(repo, 'flows/pwsh2.yaml'), PWSH2);
    const writes0 = (await writes()).length;

    const planned = await plan([repo]);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toMatch(
      /flows\/pwsh2\.yaml:5:9: Flow "pwsh2": Flow "pwsh" \(flows\/pwsh\.yaml:\d+:\d+\) already describes the live flow/,
    );
    expect(planned.stdout + planned.stderr).not.toMatch(/not owned by packsync/);
    const adopted = await apply([repo, '--adopt']);
    expect(adopted.code).toBe(1);
    expect(Object.keys((await inventory()).objects)).not.toContain('Flow/pwsh2');

    await rm(join(repo, 'flows/pwsh2.yaml'));
    const pruned = await apply([repo, '--prune']);
    expect(pruned.code, pruned.stdout + pruned.stderr).toBe(0);
    expect((await writes()).length).toBe(writes0);
    expect(await livePwsh()).toEqual(before);
    expect((await inventory()).objects['Flow/pwsh']?.id).toBe(before.flows[0]);
  });

  it('a Flow applied on its own whose live flow a Flow of another file owns is OWNED_BY_ANOTHER_KEY naming that key, never adopted', async () => {
    const repo = await converged();
    const file = join(repo, 'flows/pwsh2.yaml');
    await writeFile(file, PWSH2);
    const writes0 = (await writes()).length;

    const planned = await plan([file, '--output', 'json']);
    expect(planned.code).toBe(1);
    const objects = planObjects(planned.stdout);
    const o = objects.find((x) => x.key === 'Flow/pwsh2');
    expect(o?.change).toBe('error');
    expect(o?.error?.code).toBe('OWNED_BY_ANOTHER_KEY');
    expect(o?.error?.message).toMatch(/owned by Flow\/pwsh \(recorded from .*flows\/pwsh\.yaml, outside the applied path\)/);
    expect(planned.stdout).not.toMatch(/not owned by packsync/);

    const adopted = await apply([file, '--adopt']);
    expect(adopted.code).toBe(1);
    expect((await writes()).length).toBe(writes0);
    expect(Object.keys((await inventory()).objects)).not.toContain('Flow/pwsh2');
  });

  it('a Package naming its catalog app by id, which another Package owns live, is OWNED_BY_ANOTHER_KEY: exit 1, zero writes, --adopt takes nothing', async () => {
    const repo = await converged();
    const inv0 = await inventory();
    const owned = (await sim.state()).packages.find((p) => p.id === inv0.objects['Package/pwsh']?.id);
    expect(owned?.appId).toBeTruthy();
    await writeFile(join(repo, 'packages/pwsh-by-id.yaml'), pwshById(owned?.appId ?? ''));
    const writes0 = (await writes()).length;

    const planned = await plan([repo]);
    expect(planned.code).toBe(1);
    expect(planned.stdout).toMatch(
      /Package\/pwsh-by-id[\s\S]*OWNED_BY_ANOTHER_KEY[\s\S]*already owned by Package\/pwsh, which is still in git/,
    );
    const adopted = await apply([repo, '--adopt', '--prune']);
    expect(adopted.code).toBe(1);
    expect((await writes()).length).toBe(writes0);
    expect(await inventory()).toEqual(inv0);
  });

  it('a state with two keys on one live flow (from before the fix): plan names both and `state rm`; --prune forgets the key git left, deletes nothing', async () => {
    const repo = await converged();
    const before = await livePwsh();
    const id = await shareId('Flow/pwsh', 'Flow/pwsh2', join(repo, 'flows/pwsh2.yaml'));
    const writes0 = (await writes()).length;

    const planned = await plan([repo, '--prune']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/Flow\/pwsh2[\s\S]*also recorded under Flow\/pwsh[\s\S]*nothing is deleted/);
    expect(planned.stdout).not.toMatch(/will be deleted/);
    const listed = await plan([repo]);
    expect(listed.stdout).toMatch(/packsync state rm Flow\/pwsh2/);

    const pruned = await apply([repo, '--prune', '--output', 'json']);
    expect(pruned.code, pruned.stdout + pruned.stderr).toBe(0);
    // A forget is counted as the plan counts it, a change: never as a delete.
    expect((JSON.parse(pruned.stdout) as { result: { counts: Record<string, number> } }).result.counts).toMatchObject({
      deleted: 0,
      configured: 1,
    });
    expect((await writes()).filter((w) => w.startsWith('DELETE'))).toEqual([]);
    expect((await writes()).length).toBe(writes0);
    expect(await livePwsh()).toEqual(before);
    const inv = await inventory();
    expect(inv.objects['Flow/pwsh2']).toBeUndefined();
    expect(inv.objects['Flow/pwsh']?.id).toBe(id);
  });

  it('a state with two keys git still describes on one live package: STATE_SHARED_ID on each, exit 1, zero writes, until `state rm` forgets one', async () => {
    const repo = await converged();
    const inv0 = await inventory();
    const appId = (await sim.state()).packages.find((p) => p.id === inv0.objects['Package/pwsh']?.id)?.appId ?? '';
    await writeFile(join(repo, 'packages/pwsh-by-id.yaml'), pwshById(appId));
    await shareId('Package/pwsh', 'Package/pwsh-by-id', join(repo, 'packages/pwsh-by-id.yaml'));
    const inv1 = await inventory();
    const writes0 = (await writes()).length;

    const planned = await plan([repo, '--output', 'json']);
    expect(planned.code).toBe(1);
    const objects = planObjects(planned.stdout);
    const shared = objects.filter((o) => o.error?.code === 'STATE_SHARED_ID').map((o) => o.key);
    expect(shared.sort()).toEqual(['Package/pwsh', 'Package/pwsh-by-id']);
    expect(objects.find((o) => o.key === 'Package/pwsh-by-id')?.error?.message).toMatch(
      /under Package\/pwsh and Package\/pwsh-by-id[\s\S]*packsync state rm Package\/pwsh-by-id/,
    );
    expect((await apply([repo, '--prune', '--adopt'])).code).toBe(1);
    expect((await writes()).length).toBe(writes0);
    expect(await inventory()).toEqual(inv1);

    expect((await cli(['state', 'rm', 'Package/pwsh-by-id'], env)).code).toBe(0);
    await rm(join(repo, 'packages/pwsh-by-id.yaml'));
    expect((await plan([repo, '--detailed-exitcode'])).code).toBe(0);
  });
});
