/**
 * Regression tests for the operator review's safe-apply observations (issue 10), each named after
 * what broke, through the in-process CLI against the real simulator; assertions on the journal,
 * the simulator's live state, the state directory and exit codes.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/state/inventory-types.js';
import { cli } from '../support/cli.js';
import { copyExamples, editFile } from '../support/repo.js';
import { countBy } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';

let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
useSim((s) => ({ sim, env, stateDir } = s));

const apply = (args: string[]): ReturnType<typeof cli> => cli(['apply', '--auto-approve', ...args], env);
const plan = (args: string[]): ReturnType<typeof cli> => cli(['plan', ...args], env);
const writeCount = async (): Promise<number> => (await sim.journal(true)).length;
const inventory = async (): Promise<Inventory> => JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;

async function converged(): Promise<string> {
  const repo = await copyExamples();
  const first = await apply([repo]);
  expect(first.code, first.stderr).toBe(0);
  return repo;
}

describe('safe apply (issue 10 observations)', () => {
  it('obs 1: a patch group given by name is resolved before anything is written: its own name changes nothing, an unknown one is an error and nothing is deleted (no delete-then-failed-create)', async () => {
    const repo = await converged();
    const flows = async (): Promise<number> => (await sim.state()).flows.filter((f) => !f.deleted).length;
    // 3 flows by hand + 5 of examples/baselines/standard-apps.yaml.
    expect(await flows()).toBe(8);
    // The flow's patch group (2e346735-…) is "Pilot first": the same group by its name is no change.
    await editFile(join(repo, 'flows/seven-zip.yaml'), /patchGroup: \S+/, 'patchGroup: Pilot first');
    const same = await plan([repo, '--detailed-exitcode']);
    expect(same.code, same.stdout + same.stderr).toBe(0);
    await editFile(join(repo, 'flows/seven-zip.yaml'), /patchGroup: .+/, 'patchGroup: Pilot frist');
    const before = await writeCount();
    const r = await apply([repo, '--allow-replace']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/flows\/seven-zip\.yaml:13:\d+: .*unknown patch group "Pilot frist"; did you mean "Pilot first"/);
    expect(await writeCount()).toBe(before);
    expect(await flows()).toBe(8);
  });

  it('obs 4: renaming a Deployment is a move: no API call, even with --prune --adopt, and the rollout keeps its id', async () => {
    const repo = await converged();
    const oldId = (await inventory()).objects['Deployment/seven-zip']?.id;
    expect(oldId).toBeDefined();
    await editFile(join(repo, 'deployments/seven-zip.yaml'), /name: seven-zip/, 'name: seven-zip-current');
    const planned = await plan([repo, '--detailed-exitcode']);
    expect(planned.code).toBe(2);
    expect(planned.stdout).toMatch(/Deployment\/seven-zip has moved to Deployment\/seven-zip-current/);
    expect(planned.stdout).not.toMatch(/will be deleted|conflict/);
    const before = await writeCount();
    const r = await apply([repo, '--prune', '--adopt']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await writeCount()).toBe(before);
    const inv = await inventory();
    expect(inv.objects['Deployment/seven-zip-current']?.id).toBe(oldId);
    expect(inv.objects['Deployment/seven-zip']).toBeUndefined();
    expect((await sim.state()).deployments.map((d) => d.id)).toContain(oldId);
    expect((await plan([repo, '--detailed-exitcode'])).code).toBe(0);
  });

  it('obs 4: renaming a Package and a Flow (and the references to them) is a move with zero API writes', async () => {
    const repo = await converged();
    const inv0 = await inventory();
    await editFile(join(repo, 'packages/seven-zip.yaml'), /name: seven-zip/, 'name: seven-zip-app');
    await editFile(join(repo, 'flows/seven-zip.yaml'), /name: seven-zip\n/, 'name: seven-zip-flow\n');
    await editFile(
      join(repo, 'deployments/seven-zip.yaml'),
      /flow: seven-zip\n  package: seven-zip/,
      'flow: seven-zip-flow\n  package: seven-zip-app',
    );
    const planned = await plan([repo, '--prune', '--detailed-exitcode']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(2);
    expect(planned.stdout).toMatch(/Package\/seven-zip has moved to Package\/seven-zip-app/);
    expect(planned.stdout).toMatch(/Flow\/seven-zip has moved to Flow\/seven-zip-flow/);
    expect(planned.stdout).not.toMatch(/will be (deleted|created|replaced)|requires replacement/);
    const before = await writeCount();
    const r = await apply([repo, '--prune']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await writeCount()).toBe(before);
    const inv = await inventory();
    expect(inv.objects['Package/seven-zip-app']?.id).toBe(inv0.objects['Package/seven-zip']?.id);
    expect(inv.objects['Flow/seven-zip-flow']?.id).toBe(inv0.objects['Flow/seven-zip']?.id);
    expect(inv.objects['Deployment/seven-zip']?.id).toBe(inv0.objects['Deployment/seven-zip']?.id);
    expect((await plan([repo, '--detailed-exitcode'])).code).toBe(0);
  });

  it('obs 5: plan FILE --prune prunes only what came from that file, never objects from other files', async () => {
    const repo = await copyExamples();
    // A self-contained file (package, flow and deployment of one app) beside the examples.
    const vlc = (withDeployment: boolean): string =>
      [
        'apiVersion: packsync.dev/v1\nkind: Package\nmetadata: { name: vlc }\nspec:\n  catalog: { app: VLC media player, version: "3.0.21" }',
        'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata: { name: vlc }\nspec: { app: VLC media player }',
        ...(withDeployment
          ? ['apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata: { name: vlc }\nspec: { flow: vlc, package: vlc, state: pending }']
          : []),
      ].join('\n---\n');
    const file = join(repo, 'vlc.yaml');
    await writeFile(file, vlc(true));
    expect((await apply([repo])).code).toBe(0);

    const single = await plan([join(repo, 'packages/pwsh.yaml'), '--prune']);
    expect(single.code, single.stdout + single.stderr).toBe(0);
    expect(single.stdout).not.toMatch(/will be deleted/);
    expect(single.stdout).toMatch(/Plan: 0 to create, 0 to change, 0 to delete/);

    await writeFile(file, vlc(false));
    const before = countBy(await sim.writes());
    const r = await apply([file, '--prune']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const after = countBy(await sim.writes());
    expect((after['DELETE /v1/flow/deployment/{id}'] ?? 0) - (before['DELETE /v1/flow/deployment/{id}'] ?? 0)).toBe(1);
    expect(after['DELETE /v1/flow/{id}'] ?? 0).toBe(before['DELETE /v1/flow/{id}'] ?? 0);
    // 3 deployments by hand + 5 of examples/baselines/standard-apps.yaml.
    expect((await sim.state()).deployments).toHaveLength(8);
  });

  it('obs 8: a pending deployment started outside git is reported drift, not a change apply cannot make, on every pass', async () => {
    const repo = await converged();
    const id = (await inventory()).objects['Deployment/pwsh']?.id;
    await fetch(`${sim.url}/v1/flow/deployment/${id ?? ''}/start`, { method: 'POST', headers: { 'X-API-Key': sim.key } });
    for (let i = 0; i < 2; i++) {
      const p = await plan([repo, '--detailed-exitcode', '-o', 'json']);
      expect(p.code).toBe(2);
      const o = (JSON.parse(p.stdout) as { objects: { key: string; change: string; drift?: string }[] }).objects.find(
        (x) => x.key === 'Deployment/pwsh',
      );
      expect(o).toMatchObject({ change: 'drift', drift: 'reported' });
      const before = await writeCount();
      expect((await apply([repo])).code).toBe(0);
      expect(await writeCount()).toBe(before);
    }
  });

  it('a pending deployment packsync started (git said running earlier) is told as such, and apply tells it as drifted, not skipped, exit 0 like any reported drift (regression: "started outside git", "1 skipped")', async () => {
    const repo = await converged();
    await editFile(join(repo, 'deployments/seven-zip.yaml'), 'state: running', 'state: pending');
    const p = await plan([repo, '--detailed-exitcode', '-o', 'json']);
    expect(p.code).toBe(2);
    const o = (JSON.parse(p.stdout) as { objects: { key: string; change: string; drift?: string; reasons: string[] }[] }).objects.find(
      (x) => x.key === 'Deployment/seven-zip',
    );
    expect(o).toMatchObject({ change: 'drift', drift: 'reported' });
    expect(o?.reasons.join(' ')).toContain('started by packsync while git said running');
    expect(o?.reasons.join(' ')).not.toContain('started outside git');
    const before = await writeCount();
    const r = await apply([repo, '--no-color']);
    expect(r.code, r.stderr).toBe(0);
    expect(await writeCount()).toBe(before);
    expect(r.stdout).toMatch(/unchanged, 0 skipped, 1 drifted \(reported, not healed\), 0 failed/);
    expect(r.stdout).toContain('! Deployment/seven-zip: drifted (reported, not healed): is Running');
    expect(r.stdout).not.toMatch(/Deployment\/seven-zip: skipped/);
  });

  it('obs 9: a version edited in place keeps the old deployment as superseded; --prune sees it; a revert reuses it with zero creates', async () => {
    const repo = await converged();
    const inv0 = await inventory();
    const oldPkg = inv0.objects['Package/seven-zip']?.id ?? '';
    const oldDep = inv0.objects['Deployment/seven-zip']?.id ?? '';
    const pkgFile = join(repo, 'packages/seven-zip.yaml');
    await editFile(pkgFile, 'version: "24.08"', 'version: "24.07"');
    const upgraded = await apply([repo]);
    expect(upgraded.code, upgraded.stdout + upgraded.stderr).toBe(0);
    const inv1 = await inventory();
    expect(inv1.objects[`Deployment/seven-zip#${oldDep}`]?.superseded).toBeDefined();
    expect(inv1.objects[`Package/seven-zip#${oldPkg}`]?.superseded).toBeDefined();
    const listed = await plan([repo, '--prune']);
    expect(listed.stdout).toContain(`Deployment/seven-zip#${oldDep} will be deleted`);
    const plain = await plan([repo]);
    expect(plain.stdout).toMatch(/superseded by a newer version \(live: Running, wave \d\/3\)/);

    await editFile(pkgFile, 'version: "24.07"', 'version: "24.08"');
    const before = countBy(await sim.writes());
    const reverted = await apply([repo]);
    expect(reverted.code, reverted.stdout + reverted.stderr).toBe(0);
    const after = countBy(await sim.writes());
    for (const op of ['POST /v1/app/import/{id}', 'POST /v1/flow/{id}/add-deployment']) expect(after[op] ?? 0).toBe(before[op] ?? 0);
    const inv2 = await inventory();
    expect(inv2.objects['Package/seven-zip']?.id).toBe(oldPkg);
    expect(inv2.objects['Deployment/seven-zip']?.id).toBe(oldDep);
    // Converged; the 24.07 package and deployment are now the superseded ones, listed, not changed.
    const again = await plan([repo, '--detailed-exitcode', '-o', 'json']);
    expect(again.code).toBe(0);
    const objs = (JSON.parse(again.stdout) as { objects: { key: string; change: string }[] }).objects;
    expect(objs.filter((o) => o.change !== 'none' && o.change !== 'orphan')).toEqual([]);
    expect(objs.filter((o) => o.change === 'orphan').map((o) => o.key.split('#')[0])).toEqual([
      'Deployment/seven-zip',
      'Package/seven-zip',
    ]);
  });

  it('obs 10: a flow replacement creates first, deletes last, counts the destroyed deployment and speaks manifest words', async () => {
    const repo = await converged();
    await editFile(join(repo, 'flows/seven-zip.yaml'), 'scope: machine', 'scope: user');
    const planned = await plan([repo, '--allow-replace']);
    expect(planned.stdout).toMatch(/scope: "machine" → "user"/);
    expect(planned.stdout).toMatch(/Deployment\/seven-zip \(deployment [0-9a-f-]+, Running, wave \d\/3\) will be destroyed/);
    expect(planned.stdout).toMatch(/1 to delete/);
    const blocked = await plan([repo, '--detailed-exitcode']);
    expect(blocked.code).toBe(1); // a pending replacement is not a green plan

    const before = (await sim.journal(true)).length;
    const r = await apply([repo, '--allow-replace']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/[1-9]\d* deleted/);
    const writes = (await sim.journal(true)).slice(before).map((e) => `${e.method} ${e.path.replace(/[0-9a-f-]{36}/g, '{id}')}`);
    const create = writes.indexOf('POST /v1/flow/create');
    const add = writes.indexOf('POST /v1/flow/{id}/add-deployment');
    const del = writes.indexOf('DELETE /v1/flow/{id}');
    expect(create).toBeGreaterThanOrEqual(0);
    expect(add).toBeGreaterThan(create);
    expect(del).toBeGreaterThan(add);
    expect((await plan([repo, '--detailed-exitcode'])).code).toBe(0);
  });
});
