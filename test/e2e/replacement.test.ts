/**
 * Regression tests for the black-box review of replacement, each named after what broke, through
 * the in-process CLI against the real simulator: journal, live state, the state file, exit codes
 * and the plan and apply results as `--output json` prints them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/state/inventory-types.js';
import type { Plan } from '../../src/plan/types.js';
import type { ApplyResult } from '../../src/apply/executor.js';
import { cli } from '../support/cli.js';
import { copyExamples, editFile } from '../support/repo.js';
import { tempDir } from '../support/temp-dir.js';
import { INSTALLER_SCOPE } from '../../src/api/wire/index.js';
import type { JournalEntry, TestSim } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';

let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
useSim((s) => ({ sim, env, stateDir } = s));

const inventory = async (): Promise<Inventory> => JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;
const okWrites = async (from: number): Promise<string[]> =>
  (await sim.journal(true))
    .slice(from)
    .filter((e: JournalEntry) => e.status >= 200 && e.status < 300)
    .map((e) => `${e.method} ${e.path}`);

async function planJson(repo: string, args: string[] = []): Promise<{ code: number; plan: Plan }> {
  const r = await cli(['plan', repo, '-o', 'json', ...args], env);
  return { code: r.code, plan: JSON.parse(r.stdout) as Plan };
}

async function applyJson(repo: string, args: string[] = []): Promise<{ code: number; plan: Plan; result: ApplyResult }> {
  const r = await cli(['apply', repo, '--auto-approve', '-o', 'json', ...args], env);
  return { code: r.code, ...(JSON.parse(r.stdout) as { plan: Plan; result: ApplyResult }) };
}

async function converged(): Promise<string> {
  const repo = await copyExamples();
  const first = await cli(['apply', repo, '--auto-approve'], env);
  expect(first.code, first.stdout + first.stderr).toBe(0);
  return repo;
}

describe('replacement (black-box review)', () => {
  it('destroyed deployments stayed in the state after a flow replacement: named by their state key, forgotten with the old flow', async () => {
    const repo = await converged();
    // A package version edited in place leaves the previous deployment superseded on the flow.
    await editFile(join(repo, 'packages/seven-zip.yaml'), 'version: "24.08"', 'version: "24.07"');
    expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
    const before = await inventory();
    const supersededKey = Object.keys(before.objects).find((k) => k.startsWith('Deployment/seven-zip#'));
    expect(supersededKey).toBeDefined();
    const supersededId = before.objects[supersededKey!]!.id;
    const oldFlow = before.objects['Flow/seven-zip']!.id;

    await editFile(join(repo, 'flows/seven-zip.yaml'), /^ {2}scope: machine/m, '  scope: user');
    const planned = await planJson(repo, ['--allow-replace']);
    const flowPlan = planned.plan.objects.find((o) => o.key === 'Flow/seven-zip');
    expect(flowPlan?.destroys?.map((d) => d.key).sort()).toEqual(['Deployment/seven-zip', supersededKey].sort());
    expect(planned.plan.objects.find((o) => o.key === supersededKey)).toBeUndefined(); // not "kept for a revert"

    const from = (await sim.journal(true)).length;
    const applied = await applyJson(repo, ['--allow-replace']);
    expect(applied.code).toBe(0);
    expect(applied.result.counts.deleted).toBe(2);
    expect(await okWrites(from)).toContain(`DELETE /v1/flow/${oldFlow}`);
    const live = await sim.state();
    const liveFlows = new Set(live.flows.filter((f) => !f.deleted).map((f) => f.id));
    expect(live.deployments.filter((d) => d.id === supersededId && liveFlows.has(d.flowId))).toEqual([]);
    const after = await inventory();
    expect(Object.keys(after.objects).filter((k) => k.includes('#') && !k.startsWith('Package/'))).toEqual([]);
    expect((await cli(['plan', repo, '--detailed-exitcode'], env)).code).toBe(0);
  });

  it('a deployment replacement was counted as a change: plan and apply count one delete and one create', async () => {
    const repo = await converged();
    const oldId = (await inventory()).objects['Deployment/seven-zip']!.id;
    await editFile(join(repo, 'deployments/seven-zip.yaml'), 'state: running', 'state: running\n  version: "24.08.1"');
    const planned = await planJson(repo, ['--allow-replace']);
    expect(planned.plan.summary).toMatchObject({ create: 1, change: 0, delete: 1 });

    const from = (await sim.journal(true)).length;
    const applied = await applyJson(repo, ['--allow-replace']);
    expect(applied.code).toBe(0);
    expect(applied.result.counts).toMatchObject({ created: 1, configured: 0, deleted: 1, failed: 0 });
    const writes = await okWrites(from);
    expect(writes.indexOf(`DELETE /v1/flow/deployment/${oldId}`)).toBeGreaterThanOrEqual(0);
    expect(writes.findIndex((w) => w.endsWith('/add-deployment'))).toBeGreaterThan(writes.indexOf(`DELETE /v1/flow/deployment/${oldId}`));
    const entry = (await inventory()).objects['Deployment/seven-zip']!;
    expect(entry.id).not.toBe(oldId);
    expect((await sim.state()).deployments.map((d) => d.id)).toContain(entry.id);
  });

  it('a flow replacement whose add-deployment failed kept the old flow as superseded: the next apply finishes it', async () => {
    const repo = await converged();
    const oldFlow = (await inventory()).objects['Flow/seven-zip']!.id;
    await editFile(join(repo, 'flows/seven-zip.yaml'), /^ {2}scope: machine/m, '  scope: user');
    // Every try answers 5xx: the add fails after its retries, once the new flow exists.
    await sim.admin('PUT', '/_sim/faults', { '5xx': 1, path: '/add-deployment' });
    const from = (await sim.journal(true)).length;
    const failed = await cli(['apply', repo, '--auto-approve', '--allow-replace'], env);
    expect(failed.code).toBe(1);
    await sim.admin('PUT', '/_sim/faults', {});
    expect((await okWrites(from)).filter((w) => w.startsWith('DELETE'))).toEqual([]); // delete last: never reached
    const mid = await inventory();
    expect(mid.objects[`Flow/seven-zip#${oldFlow}`]?.replacing).toBeDefined();
    expect((await cli(['plan', repo, '--detailed-exitcode'], env)).code).toBe(1); // needs --allow-replace to finish

    const resumed = await cli(['apply', repo, '--auto-approve', '--allow-replace'], env);
    expect(resumed.code, resumed.stdout).toBe(0);
    const writes = await okWrites(from);
    expect(writes.filter((w) => w === 'POST /v1/flow/create')).toHaveLength(1);
    expect(writes.filter((w) => w.startsWith('DELETE'))).toEqual([`DELETE /v1/flow/${oldFlow}`]);
    const newFlow = (await inventory()).objects['Flow/seven-zip']!.id;
    expect((await sim.state()).flows.filter((f) => f.name === '7-Zip' && !f.deleted).map((f) => f.id)).toEqual([newFlow]);
    expect((await cli(['plan', repo, '--detailed-exitcode'], env)).code).toBe(0);
  });
  it('an adopted flow that differs from git was recorded as in sync: it is recorded as it is live and the next plan replaces it', async () => {
    const repo = await converged();
    const live = (await inventory()).objects['Flow/pwsh']!.id;
    await editFile(join(repo, 'flows/pwsh.yaml'), /^ {2}scope: machine/m, '  scope: user');
    // A fresh state directory: every live object is unowned, taken over with --adopt.
    const fresh = { ...env, PACKSYNC_STATE_DIR: await tempDir('packsync-state-adopt-') };
    const from = (await sim.journal(true)).length;
    const adopted = await cli(['apply', repo, '--auto-approve', '--adopt'], fresh);
    expect(adopted.code, adopted.stdout + adopted.stderr).toBe(0);
    expect(await okWrites(from)).toEqual([]);
    const inv = JSON.parse(await readFile(join(fresh.PACKSYNC_STATE_DIR, 'inventory.json'), 'utf8')) as Inventory;
    expect(inv.objects['Flow/pwsh']!.id).toBe(live);
    expect((inv.objects['Flow/pwsh']!.spec as Record<string, unknown>)['scope']).toBe(INSTALLER_SCOPE.machine);

    const r = await cli(['plan', repo, '-o', 'json', '--allow-replace', '--detailed-exitcode'], fresh);
    expect(r.code).toBe(2);
    const flow = (JSON.parse(r.stdout) as Plan).objects.find((o) => o.key === 'Flow/pwsh');
    expect([flow?.change, flow?.fields]).toEqual(['replace', [{ field: 'scope', from: 'machine', to: 'user' }]]);
  });
});
