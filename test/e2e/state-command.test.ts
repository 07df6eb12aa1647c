/**
 * `packsync state list|show|mv|rm` against a state that a real apply wrote: the commands work
 * offline (no API URL or key), `mv` makes a manifest rename a no-op for the next plan, `rm` forgets
 * without touching the live object (the next plan reports it as a conflict naming --adopt), and a
 * refused edit leaves the state file byte for byte as it was.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDirectory } from '../../src/state/dir-lock.js';
import type { Inventory } from '../../src/state/inventory-types.js';
import { cli } from '../support/cli.js';
import { STANDARD_KEYS, writeRepo } from '../support/manifests.js';
import { editFile, tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';

let sim: TestSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

interface Converged {
  sim: TestSim;
  repo: string;
  stateDir: string;
  /** API env for plan/apply. */
  env: Record<string, string>;
  /** What `state` needs: the state directory only, no API URL or key. */
  offline: Record<string, string>;
}

/** A small repository applied to the simulator until the plan is empty. */
async function converged(): Promise<Converged> {
  sim = await startTestSimulator();
  const repo = await writeRepo();
  const stateDir = await tempDir('packsync-state-');
  const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
  const applied = await cli(['apply', '--auto-approve', repo], env);
  expect(applied.code, applied.stderr).toBe(0);
  const plan = await cli(['plan', repo], env);
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  expect(plan.stdout).toContain('No changes.');
  return { sim, repo, stateDir, env, offline: { PACKSYNC_STATE_DIR: stateDir } };
}

async function inventory(stateDir: string): Promise<Inventory> {
  return JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;
}

describe('packsync state', () => {
  it('state list shows every owned object with its live id, kind and file, sorted by key, offline', async () => {
    const c = await converged();
    const inv = await inventory(c.stateDir);
    const live = await c.sim.state();

    const json = await cli(['state', 'list', '--output', 'json'], c.offline);
    expect(json.code, json.stderr).toBe(0);
    const listing = JSON.parse(json.stdout) as {
      stateDir: string;
      objects: { key: string; id: string; kind: string; file: string | null; superseded: boolean }[];
      intents: unknown[];
    };
    expect(listing.stateDir).toBe(c.stateDir);
    expect(listing.objects.map((o) => o.key)).toEqual(STANDARD_KEYS);
    expect(listing.intents).toEqual([]);
    for (const o of listing.objects) {
      expect(o.id).toBe(inv.objects[o.key]?.id);
      expect(o.kind).toBe(o.key.split('/')[0]);
      expect(o.superseded).toBe(false);
      expect(o.file).toMatch(/(packages|flows|deployments)\.yaml$/);
    }
    // The ids are the live objects the simulator holds.
    const dep = listing.objects.find((o) => o.key === 'Deployment/pwsh-7-4-6');
    expect(live.deployments.map((d) => d.id)).toContain(dep?.id);
    expect(live.flows.find((f) => f.name === 'pwsh')?.id).toBe(listing.objects.find((o) => o.key === 'Flow/pwsh')?.id);

    const text = await cli(['state', 'list'], c.offline);
    expect(text.code, text.stderr).toBe(0);
    const rows = text.stdout.split('\n').filter((l) => /^(Package|Flow|Deployment|TenantUpload)\//.test(l));
    expect(rows.map((r) => r.split(/\s+/)[0])).toEqual(STANDARD_KEYS);
    for (const r of rows) expect(r).toContain(inv.objects[r.split(/\s+/)[0] ?? '']?.id ?? 'missing');
    expect(text.stdout).toContain(`6 entries in ${c.stateDir}.`);

    // --state-dir wins over the environment.
    const flag = await cli(['state', 'list', '--state-dir', c.stateDir], { PACKSYNC_STATE_DIR: '/nonexistent/elsewhere' });
    expect(flag.stdout).toBe(text.stdout);
  });

  it('state show prints the whole entry; an unknown key exits 1 with a did-you-mean; a bad key names the argument', async () => {
    const c = await converged();
    const inv = await inventory(c.stateDir);
    const shown = await cli(['state', 'show', 'Deployment/pwsh-7-4-6', '-o', 'json'], c.offline);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({ key: 'Deployment/pwsh-7-4-6', entry: inv.objects['Deployment/pwsh-7-4-6'] });

    const text = await cli(['state', 'show', 'Deployment/pwsh-7-4-6'], c.offline);
    expect(text.code).toBe(0);
    const e = inv.objects['Deployment/pwsh-7-4-6']!;
    for (const s of [
      `id: ${e.id}`,
      `specHash: ${e.specHash}`,
      `flowId: ${e.flowId ?? '?'}`,
      `packageId: ${e.packageId ?? '?'}`,
      'appliedState: pending',
      'flow: pwsh',
      'file:',
    ])
      expect(text.stdout).toContain(s);

    const typo = await cli(['state', 'show', 'Deployment/pwsh-7-4-7'], c.offline);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('STATE_KEY: Deployment "pwsh-7-4-7" is not in the state in');
    expect(typo.stderr).toContain('did you mean "Deployment/pwsh-7-4-6"?');

    const badKind = await cli(['state', 'show', 'deployment/pwsh-7-4-6'], c.offline);
    expect(badKind.code).toBe(1);
    expect(badKind.stderr).toContain('KEY "deployment/pwsh-7-4-6" is not a state key');
    expect(badKind.stderr).toContain('did you mean "Deployment/pwsh-7-4-6"?');

    const noSlash = await cli(['state', 'show', 'pwsh'], c.offline);
    expect(noSlash.code).toBe(1);
    expect(noSlash.stderr).toContain('KEY "pwsh" is not a state key');
  });

  it('state mv then renaming metadata.name: the next plan has no changes and the simulator sees zero writes', async () => {
    const c = await converged();
    const before = await inventory(c.stateDir);
    const writes = (await c.sim.writes()).length;

    const mv = await cli(['state', 'mv', 'Deployment/pwsh-7-4-6', 'Deployment/pwsh'], c.offline);
    expect(mv.code, mv.stderr).toBe(0);
    expect(mv.stdout).toContain('Moved Deployment/pwsh-7-4-6 to Deployment/pwsh.');
    const after = await inventory(c.stateDir);
    expect(after.objects['Deployment/pwsh-7-4-6']).toBeUndefined();
    const { updatedAt: _a, ...moved } = after.objects['Deployment/pwsh']!;
    const { updatedAt: _b, ...was } = before.objects['Deployment/pwsh-7-4-6']!;
    expect(moved).toEqual({ ...was, name: 'pwsh' });

    await editFile(join(c.repo, 'deployments.yaml'), 'name: pwsh-7-4-6', 'name: pwsh');
    const plan = await cli(['plan', c.repo, '-o', 'json'], c.env);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const p = JSON.parse(plan.stdout) as { objects: { key: string; change: string }[] };
    expect(p.objects.filter((o) => o.change !== 'none')).toEqual([]);
    expect(p.objects.map((o) => o.key)).toContain('Deployment/pwsh');
    const apply = await cli(['apply', '--auto-approve', c.repo], c.env);
    expect(apply.code, apply.stderr).toBe(0);
    expect((await c.sim.writes()).length).toBe(writes);
  });

  it('state mv of a flow carries the references: the deployment that names it stays unchanged', async () => {
    const c = await converged();
    const writes = (await c.sim.writes()).length;
    const mv = await cli(['state', 'mv', 'Flow/pwsh', 'Flow/powershell'], c.offline);
    expect(mv.code, mv.stderr).toBe(0);
    expect(mv.stdout).toContain('Moved Flow/pwsh to Flow/powershell.');
    expect(mv.stdout).toContain('references to pwsh now name powershell in: Deployment/pwsh-7-4-6');
    // The live flow keeps its name (spec.name), the manifest key changes, the deployment follows.
    await editFile(join(c.repo, 'flows.yaml'), /name: pwsh\nspec:\n/, 'name: powershell\nspec:\n  name: pwsh\n');
    await editFile(join(c.repo, 'deployments.yaml'), 'flow: pwsh', 'flow: powershell');
    const plan = await cli(['plan', c.repo], c.env);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    expect((await c.sim.writes()).length).toBe(writes);
  });

  it('state rm forgets without an API call: the deployment stays live and the next plan is a conflict naming --adopt', async () => {
    const c = await converged();
    const id = (await inventory(c.stateDir)).objects['Deployment/seven-zip-24-08']!.id;
    const journalBefore = (await c.sim.journal()).length;

    const rm = await cli(['state', 'rm', 'Deployment/seven-zip-24-08'], c.offline);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain(`Forgot Deployment/seven-zip-24-08 (live id ${id}`);
    expect(rm.stdout).toContain('the live objects are untouched');
    // Not a single request of any kind, let alone a delete.
    expect((await c.sim.journal()).length).toBe(journalBefore);
    expect((await c.sim.journal()).some((e) => e.method === 'DELETE')).toBe(false);
    expect((await c.sim.state()).deployments.map((d) => d.id)).toContain(id);
    const inv = await inventory(c.stateDir);
    expect(Object.keys(inv.objects).sort()).toEqual(STANDARD_KEYS.filter((k) => k !== 'Deployment/seven-zip-24-08'));

    const plan = await cli(['plan', c.repo], c.env);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain('Deployment/seven-zip-24-08');
    expect(plan.stdout + plan.stderr).toContain('--adopt');
    expect((await c.sim.journal(true)).filter((e) => e.method === 'DELETE')).toEqual([]);
  });

  it('refused edits leave the state file byte for byte: mv onto an existing key, across kinds, rm with one unknown key', async () => {
    const c = await converged();
    const file = join(c.stateDir, 'inventory.json');
    const bytes = await readFile(file, 'utf8');

    const onto = await cli(['state', 'mv', 'Deployment/pwsh-7-4-6', 'Deployment/seven-zip-24-08'], c.offline);
    expect(onto.code).toBe(1);
    expect(onto.stderr).toContain('Deployment/seven-zip-24-08 already exists in the state');

    const kinds = await cli(['state', 'mv', 'Deployment/pwsh-7-4-6', 'Flow/pwsh-7-4-6'], c.offline);
    expect(kinds.code).toBe(1);
    expect(kinds.stderr).toContain('keeps its kind');

    const badNew = await cli(['state', 'mv', 'Deployment/pwsh-7-4-6', 'Deployment/Not_A_Name'], c.offline);
    expect(badNew.code).toBe(1);
    expect(badNew.stderr).toContain('NEW "Deployment/Not_A_Name"');

    const unknownOld = await cli(['state', 'mv', 'Deployment/pwsh', 'Deployment/powershell'], c.offline);
    expect(unknownOld.code).toBe(1);
    expect(unknownOld.stderr).toContain('STATE_KEY: Deployment "pwsh" is not in the state in');

    const rm = await cli(['state', 'rm', 'Deployment/pwsh-7-4-6', 'Flow/pwsj'], c.offline);
    expect(rm.code).toBe(1);
    expect(rm.stderr).toContain('did you mean "Flow/pwsh"?');

    expect(await readFile(file, 'utf8')).toBe(bytes);
  });

  it('state mv and rm take the state lock (exit 1 naming the holder); promote and resume queue for the holder and withdraw when it never passes: nothing changes', async () => {
    const c = await converged();
    const file = join(c.stateDir, 'inventory.json');
    const bytes = await readFile(file, 'utf8');
    const journal = (await c.sim.journal(true)).length;
    // A real holder: this test process (alive, same host), as a running apply or agent would be.
    const held = await lockDirectory(c.stateDir, () => undefined);
    try {
      for (const r of [
        await cli(['state', 'mv', 'Deployment/pwsh-7-4-6', 'Deployment/powershell'], c.offline),
        await cli(['state', 'rm', 'Deployment/pwsh-7-4-6'], c.offline),
      ]) {
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(`STATE_LOCKED: the state directory ${c.stateDir} is locked by pid ${process.pid}`);
      }
      // A holder that never passes: the queued promote is withdrawn after --wait (test/e2e/gate-requests.test.ts).
      const promote = await cli(['promote', 'Deployment/pwsh-7-4-6', '--reason', 'now', '--wait', '1'], c.env);
      expect(promote.code).toBe(1);
      expect(promote.stderr).toContain('GATE_REQUEST_TIMEOUT');
    } finally {
      await held.release();
    }
    expect(await readFile(file, 'utf8')).toBe(bytes);
    expect((await c.sim.journal(true)).length).toBe(journal);
    // Released: the same edit goes through.
    const mv = await cli(['state', 'mv', 'Deployment/pwsh-7-4-6', 'Deployment/powershell'], c.offline);
    expect(mv.code, mv.stderr).toBe(0);
    expect(Object.keys((await inventory(c.stateDir)).objects)).toContain('Deployment/powershell');
  });

  it('superseded entries show as such, move with their main key, and a revert after the rename still reuses them', async () => {
    const c = await converged();
    // A version edited in place: the 24.08 package and its deployment stay in the state as superseded.
    await editFile(join(c.repo, 'packages.yaml'), 'version: "24.08"', 'version: "24.07"');
    const edited = await cli(['apply', '--auto-approve', c.repo], c.env);
    expect(edited.code, edited.stdout + edited.stderr).toBe(0);
    const inv = await inventory(c.stateDir);
    const keptPkg = Object.keys(inv.objects).find((k) => k.startsWith('Package/seven-zip-24-08#'))!;
    const keptDep = Object.keys(inv.objects).find((k) => k.startsWith('Deployment/seven-zip-24-08#'))!;
    expect(keptPkg).toBeDefined();
    expect(keptDep).toBeDefined();
    const oldPackageId = inv.objects[keptPkg]!.id;

    const list = await cli(['state', 'list', '-o', 'json'], c.offline);
    const objects = (JSON.parse(list.stdout) as { objects: { key: string; superseded: boolean }[] }).objects;
    expect(
      objects
        .filter((o) => o.superseded)
        .map((o) => o.key)
        .sort(),
    ).toEqual([keptDep, keptPkg].sort());
    const text = await cli(['state', 'list'], c.offline);
    expect(text.stdout.split('\n').find((l) => l.startsWith(keptPkg))).toMatch(/superseded$/);
    expect(text.stdout).toContain('(2 superseded)');

    const mv = await cli(['state', 'mv', 'Package/seven-zip-24-08', 'Package/seven-zip'], c.offline);
    expect(mv.code, mv.stderr).toBe(0);
    expect(mv.stdout).toContain(`${keptPkg} → Package/seven-zip#${oldPackageId}`);
    const moved = await inventory(c.stateDir);
    expect(moved.objects[`Package/seven-zip#${oldPackageId}`]?.name).toBe(`seven-zip#${oldPackageId}`);
    expect(Object.keys(moved.objects).filter((k) => k.startsWith('Package/seven-zip-24-08'))).toEqual([]);
    // Both deployments (current and superseded) now name the package by its new key.
    expect((moved.objects['Deployment/seven-zip-24-08']?.spec as { package: string }).package).toBe('seven-zip');
    expect((moved.objects[keptDep]?.spec as { package: string }).package).toBe('seven-zip');

    await editFile(join(c.repo, 'packages.yaml'), 'name: seven-zip-24-08', 'name: seven-zip');
    await editFile(join(c.repo, 'deployments.yaml'), 'package: seven-zip-24-08', 'package: seven-zip');
    const writes = (await c.sim.writes()).length;
    const plan = await cli(['plan', c.repo, '-o', 'json'], c.env);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // Nothing changes; the superseded entries are listed as every plan lists them (docs/reconcile.md).
    const changed = (JSON.parse(plan.stdout) as { objects: { key: string; change: string }[] }).objects.filter((o) => o.change !== 'none');
    expect(changed.map((o) => o.key).sort()).toEqual([keptDep, `Package/seven-zip#${oldPackageId}`].sort());

    // Reverting the version reuses the package kept under the moved key: nothing is imported.
    await editFile(join(c.repo, 'packages.yaml'), 'version: "24.07"', 'version: "24.08"');
    const revert = await cli(['plan', c.repo, '-o', 'json'], c.env);
    expect(revert.code, revert.stderr).toBe(0);
    const ops = (JSON.parse(revert.stdout) as { actions: { op: string }[] }).actions.map((a) => a.op);
    expect(ops).not.toContain('import-package');
    expect(ops).not.toContain('add-deployment');
    expect(revert.stdout).toContain(`reusing live package ${oldPackageId}`);
    expect((await c.sim.writes()).length).toBe(writes);

    // Forgetting the main key says which superseded entries stay.
    const rm = await cli(['state', 'rm', 'Deployment/seven-zip-24-08'], c.offline);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain(`Still in the state (superseded, --prune deletes them): ${keptDep}`);
  });

  it('pending intents are listed apart, shown, moved with their key and forgotten by rm', async () => {
    const stateDir = await tempDir('packsync-state-');
    const at = '2025-01-01T00:00:00.000Z';
    const inv: Inventory = {
      version: 1,
      objects: {},
      intents: { 'Flow/pwsh': { key: 'Flow/pwsh', op: 'create-flow', at, knownIds: [], match: { name: 'pwsh' } } },
    };
    await writeFile(join(stateDir, 'inventory.json'), JSON.stringify(inv));
    const env = { PACKSYNC_STATE_DIR: stateDir };
    const list = await cli(['state', 'list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('Pending creates (1), resolved by the next plan or apply:');
    expect(list.stdout).toContain(`Flow/pwsh  create-flow since ${at}`);
    const show = await cli(['state', 'show', 'Flow/pwsh', '-o', 'json'], env);
    expect(JSON.parse(show.stdout)).toEqual({ key: 'Flow/pwsh', intent: inv.intents['Flow/pwsh'] });

    const mv = await cli(['state', 'mv', 'Flow/pwsh', 'Flow/powershell'], env);
    expect(mv.code, mv.stderr).toBe(0);
    expect(mv.stdout).toContain('with its pending create');
    expect((await inventory(stateDir)).intents).toEqual({ 'Flow/powershell': { ...inv.intents['Flow/pwsh'], key: 'Flow/powershell' } });

    const rm = await cli(['state', 'rm', 'Flow/powershell'], env);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain('Forgot Flow/powershell and its pending create.');
    expect(await inventory(stateDir)).toMatchObject({ version: 1, objects: {}, intents: {} });
  });

  it('the built binary runs state list, mv and rm with no API URL or key', async () => {
    const c = await converged();
    const env = { PACKSYNC_STATE_DIR: c.stateDir };
    const list = await spawnCli(['state', 'list'], env).done;
    expect(list.code, list.stderr).toBe(0);
    for (const k of STANDARD_KEYS) expect(list.stdout).toContain(k);

    const mv = await spawnCli(['state', 'mv', 'Package/pwsh-7-4-6', 'Package/pwsh'], env).done;
    expect(mv.code, mv.stderr).toBe(0);
    expect(mv.stdout).toContain('Moved Package/pwsh-7-4-6 to Package/pwsh.');
    const inv = await inventory(c.stateDir);
    expect(inv.objects['Package/pwsh']?.name).toBe('pwsh');
    expect((inv.objects['Deployment/pwsh-7-4-6']?.spec as { package: string }).package).toBe('pwsh');

    const bad = await spawnCli(['state', 'rm', 'Depolyment/pwsh-7-4-6'], env).done;
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('KEY "Depolyment/pwsh-7-4-6" is not a state key');

    const rm = await spawnCli(['state', 'rm', 'Deployment/pwsh-7-4-6', 'Package/pwsh'], env).done;
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain('Forgot Deployment/pwsh-7-4-6');
    expect(rm.stdout).toContain('Forgot Package/pwsh');
    expect(Object.keys((await inventory(c.stateDir)).objects)).not.toContain('Package/pwsh');
  });

  it('an empty state, or the default ./.packsync not made yet, lists as empty; a named directory that does not exist is STATE_NOT_FOUND; nothing is created', async () => {
    const parent = await tempDir('packsync-state-');
    const list = await cli(['state', 'list'], { PACKSYNC_STATE_DIR: parent });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('is empty');
    const rm = await cli(['state', 'rm', 'Flow/pwsh'], { PACKSYNC_STATE_DIR: parent });
    expect(rm.code).toBe(1);
    expect(rm.stderr).toContain('the state in');
    await expect(readFile(join(parent, 'inventory.json'))).rejects.toThrow();
    // No --state-dir and no PACKSYNC_STATE_DIR: ./.packsync may not exist yet.
    const byDefault = await cli(['state', 'list'], {}, parent);
    expect(byDefault.code).toBe(0);
    expect(byDefault.stdout).toContain('is empty');
    // A named one that does not exist is a typo, as a missing container is for --state-url.
    const dir = join(parent, 'never-written');
    for (const args of [
      ['state', 'list'],
      ['state', 'rm', 'Flow/pwsh'],
    ]) {
      const r = await cli(args, { PACKSYNC_STATE_DIR: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('STATE_NOT_FOUND');
    }
    expect(await readdir(parent)).toEqual([]);
  });
});
