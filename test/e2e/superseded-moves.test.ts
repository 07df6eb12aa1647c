/**
 * Superseded entries (`Kind/NAME#ID`, kept so a revert reuses them) and ownership. Regressions of a
 * black-box review: a package whose edit landed on a version another key kept as superseded imported
 * that version a second time, and an automatic rename left the old key's superseded entries behind,
 * so the revert imported and added again (or failed OWNED_BY_ANOTHER_KEY on its own old deployment).
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

const apply = (args: string[]): ReturnType<typeof cli> => cli(['apply', '--auto-approve', ...args], env);
const inventory = async (): Promise<Inventory> => JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;
const creates = (ws: readonly string[]): string[] => ws.filter((w) => /^POST \/v1\/(app\/import|package|deployment)/i.test(w));

async function edit(repo: string, file: string, from: string, to: string): Promise<void> {
  const path = join(repo, file);
  const text = await readFile(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  await writeFile(path, text.split(from).join(to));
}

async function applied(repo: string): Promise<void> {
  const r = await apply([repo]);
  expect(r.code, r.stderr).toBe(0);
}

/** Live 7-Zip packages of `version` (machine scope) and the live deployments. */
async function live(version: string): Promise<{ packages: string[]; deployments: number }> {
  const s = await sim.state();
  const packages = s.packages.filter((p) => p.productName === '7-Zip' && p.productVersion === version).map((p) => p.id);
  return { packages, deployments: s.deployments.length };
}

/** Reverts 7-Zip 24.07 to 24.08: the kept package and deployment are reused, nothing imported or added. */
async function revertReusesKept(repo: string): Promise<void> {
  const before = await live('24.08');
  const writes0 = await sim.writes();
  await edit(repo, 'packages/seven-zip.yaml', '"24.07"', '"24.08"');
  await applied(repo);
  expect(creates((await sim.writes()).slice(writes0.length))).toEqual([]);
  expect(await live('24.08')).toEqual(before);
}

const SZ_B =
  'apiVersion: packsync.dev/v1\nkind: Package\nmetadata: { name: sz-b }\nspec:\n  catalog: { app: 7-Zip, version: "23.01", scope: machine }\n';

describe('superseded entries belong to their key', () => {
  it('a package replaced onto a version another key keeps as superseded is OWNED_BY_ANOTHER_KEY: exit 1, no second import', async () => {
    const repo = await copyExamples();
    await writeFile(join(repo, 'packages/sz-b.yaml'), SZ_B);
    await applied(repo);
    await edit(repo, 'packages/seven-zip.yaml', '"24.08"', '"24.07"');
    await applied(repo);
    const [kept] = (await live('24.08')).packages;
    expect((await inventory()).objects[`Package/seven-zip#${kept}`]?.superseded).toBeDefined();
    const inv0 = await inventory();
    const writes0 = (await sim.writes()).length;

    await edit(repo, 'packages/sz-b.yaml', '"23.01"', '"24.08"');
    const r = await apply([repo]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('OWNED_BY_ANOTHER_KEY');
    expect(r.stdout + r.stderr).toContain(`Package/seven-zip#${kept}`);
    expect((await sim.writes()).length).toBe(writes0);
    expect((await live('24.08')).packages).toEqual([kept]);
    expect(await inventory()).toEqual(inv0);

    // The remedy it names: forget the kept entry, then --adopt takes the package over, no import.
    const old = inv0.objects['Package/sz-b']?.id ?? '';
    expect((await cli(['state', 'rm', `Package/seven-zip#${kept}`], env)).code).toBe(0);
    const adopted = await apply([repo, '--adopt']);
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(creates((await sim.writes()).slice(writes0))).toEqual([]);
    expect((await live('24.08')).packages).toEqual([kept]);
    const inv = await inventory();
    expect(inv.objects['Package/sz-b']?.id).toBe(kept);
    expect(inv.objects[`Package/sz-b#${old}`]?.superseded).toBeDefined();
  });

  it('a Package renamed after an edit carries its superseded entry: the revert reuses the kept package and deployment, no import, no add', async () => {
    const repo = await copyExamples();
    await applied(repo);
    await edit(repo, 'packages/seven-zip.yaml', '"24.08"', '"24.07"');
    await applied(repo);
    const [kept] = (await live('24.08')).packages;
    await edit(repo, 'packages/seven-zip.yaml', 'name: seven-zip', 'name: sz');
    await edit(repo, 'deployments/seven-zip.yaml', 'package: seven-zip', 'package: sz');
    await applied(repo);
    const moved = await inventory();
    expect(moved.objects[`Package/sz#${kept}`]?.superseded).toBeDefined();
    expect(moved.objects[`Package/seven-zip#${kept}`]).toBeUndefined();

    await revertReusesKept(repo);
    const inv = await inventory();
    expect(inv.objects['Package/sz']?.id).toBe(kept);
    expect(Object.keys(inv.objects).filter((k) => k.includes('seven-zip#') && k.startsWith('Package/'))).toEqual([]);
  });

  it('a Deployment renamed after an edit carries its superseded entry: the revert reuses the kept deployment, exit 0, no add', async () => {
    const repo = await copyExamples();
    await applied(repo);
    await edit(repo, 'packages/seven-zip.yaml', '"24.08"', '"24.07"');
    await applied(repo);
    const first = await inventory();
    const keptDep = Object.keys(first.objects).find((k) => k.startsWith('Deployment/seven-zip#'));
    expect(keptDep).toBeDefined();
    const keptId = keptDep?.slice(keptDep.indexOf('#') + 1) ?? '';
    await edit(repo, 'deployments/seven-zip.yaml', 'name: seven-zip', 'name: sz-dep');
    await applied(repo);
    const moved = await inventory();
    expect(moved.objects[`Deployment/sz-dep#${keptId}`]?.superseded).toBeDefined();
    expect(moved.objects[keptDep ?? '']).toBeUndefined();

    await revertReusesKept(repo);
    expect((await inventory()).objects['Deployment/sz-dep']?.id).toBe(keptId);
  });
});
