/**
 * Regression of a black-box review: a flow replacement stopped after the new flow was made and the
 * deployments added to it (its old flow's delete failed), then git reverted the flow edit. The next
 * plan said "apply with --allow-replace to finish it", and that apply created a third flow and
 * deleted both, restarting the untouched rollout from wave 1. A revert keeps what matches git: the
 * old flow and its deployments are kept, and only the new flow packsync made is deleted, once.
 * Through the in-process CLI against the real simulator; faults make the delete fail.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/state/inventory-types.js';
import { cli } from '../support/cli.js';
import { copyExamples, editFile } from '../support/repo.js';
import type { JournalEntry, TestSim } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';

let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
useSim((s) => ({ sim, env, stateDir } = s));

const inventory = async (): Promise<Inventory> => JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;
const writesSince = async (n: number): Promise<JournalEntry[]> =>
  (await sim.journal(true)).slice(n).filter((e) => e.status >= 200 && e.status < 300);
const flowsNamed = async (name: string): Promise<string[]> =>
  (await sim.state()).flows.filter((f) => f.name === name && !f.deleted).map((f) => f.id);

describe('a flow replacement git abandons after the new flow was made', () => {
  it('keeps the old flow and its running deployment, deletes only the new flow (regression: a third flow was created and both deleted)', async () => {
    const repo = await copyExamples();
    expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
    const before = await inventory();
    const oldFlow = before.objects['Flow/pwsh']!.id;
    const oldDeployment = before.objects['Deployment/pwsh']!.id;
    const oldStatus = (await sim.state()).deployments.find((d) => d.id === oldDeployment);

    await editFile(join(repo, 'flows/pwsh.yaml'), /^ {2}scope: machine/m, '  scope: user');
    await sim.admin('PUT', '/_sim/faults', `5xx=1,method=DELETE,path=/v1/flow/${oldFlow}`);
    const cut = await cli(['apply', repo, '--auto-approve', '--allow-replace'], env);
    await sim.admin('PUT', '/_sim/faults', 'none');

    expect(cut.code).toBe(1);
    const made = (await flowsNamed('PowerShell 7')).filter((id) => id !== oldFlow);
    expect(made).toHaveLength(1);
    const newFlow = made[0]!;
    expect((await sim.state()).deployments.filter((d) => d.flowId === newFlow)).toHaveLength(1);

    await editFile(join(repo, 'flows/pwsh.yaml'), /^ {2}scope: user/m, '  scope: machine');
    const plan = await cli(['plan', repo, '--output', 'json'], env);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const objects = (JSON.parse(plan.stdout) as { objects: { key: string; change: string }[] }).objects;
    expect(objects.filter((o) => o.change !== 'none').map((o) => `${o.key}:${o.change}`)).toEqual(
      expect.arrayContaining([`Flow/pwsh#${newFlow}:delete`]),
    );
    expect(objects.filter((o) => o.change === 'create' || o.change === 'replace' || o.change === 'requires-replacement')).toEqual([]);

    const start = (await sim.journal(true)).length;
    const r = await cli(['apply', repo, '--auto-approve'], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await writesSince(start)).map((e) => `${e.method} ${e.path}`)).toEqual([`DELETE /v1/flow/${newFlow}`]);
    expect(await flowsNamed('PowerShell 7')).toEqual([oldFlow]);
    const kept = (await sim.state()).deployments.find((d) => d.id === oldDeployment);
    expect(kept).toMatchObject({ flowId: oldFlow, status: oldStatus?.status, currentWave: oldStatus?.currentWave });

    const inv = await inventory();
    expect(inv.objects['Flow/pwsh']?.id).toBe(oldFlow);
    expect(inv.objects['Deployment/pwsh']?.id).toBe(oldDeployment);
    expect(Object.keys(inv.objects).filter((k) => k.includes('#'))).toEqual([]);
    expect((await cli(['plan', repo, '--detailed-exitcode'], env)).code).toBe(0);
  });

  it('a delete of the abandoned flow that fails is finished by the next apply, without --allow-replace', async () => {
    const repo = await copyExamples();
    expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
    const oldFlow = (await inventory()).objects['Flow/pwsh']!.id;
    const oldDeployment = (await inventory()).objects['Deployment/pwsh']!.id;
    await editFile(join(repo, 'flows/pwsh.yaml'), /^ {2}scope: machine/m, '  scope: user');
    await sim.admin('PUT', '/_sim/faults', `5xx=1,method=DELETE,path=/v1/flow/${oldFlow}`);
    expect((await cli(['apply', repo, '--auto-approve', '--allow-replace'], env)).code).toBe(1);
    const newFlow = (await flowsNamed('PowerShell 7')).find((id) => id !== oldFlow)!;

    await editFile(join(repo, 'flows/pwsh.yaml'), /^ {2}scope: user/m, '  scope: machine');
    await sim.admin('PUT', '/_sim/faults', `5xx=1,method=DELETE,path=/v1/flow/${newFlow}`);
    expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(1);
    await sim.admin('PUT', '/_sim/faults', 'none');
    // The state already says the old flow and deployment are git's again; the made flow is recorded apart.
    const mid = await inventory();
    expect(mid.objects['Flow/pwsh']?.id).toBe(oldFlow);
    expect(mid.objects['Deployment/pwsh']?.id).toBe(oldDeployment);
    expect(mid.objects[`Flow/pwsh#${newFlow}`]?.replacing).toMatchObject({ abandoned: true });

    const start = (await sim.journal(true)).length;
    const r = await cli(['apply', repo, '--auto-approve'], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await writesSince(start)).map((e) => `${e.method} ${e.path}`)).toEqual([`DELETE /v1/flow/${newFlow}`]);
    expect(await flowsNamed('PowerShell 7')).toEqual([oldFlow]);
    expect((await sim.state()).deployments.find((d) => d.id === oldDeployment)?.flowId).toBe(oldFlow);
    expect(Object.keys((await inventory()).objects).filter((k) => k.includes('#'))).toEqual([]);
    expect((await cli(['plan', repo, '--detailed-exitcode'], env)).code).toBe(0);
  });

  it('git changed the flow a third way: the plan says --allow-replace replaces it again and names what both flows destroy; it then deletes both once', async () => {
    const repo = await copyExamples();
    expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
    const oldFlow = (await inventory()).objects['Flow/pwsh']!.id;
    await editFile(join(repo, 'flows/pwsh.yaml'), /^ {2}scope: machine/m, '  scope: user');
    await sim.admin('PUT', '/_sim/faults', `5xx=1,method=DELETE,path=/v1/flow/${oldFlow}`);
    expect((await cli(['apply', repo, '--auto-approve', '--allow-replace'], env)).code).toBe(1);
    await sim.admin('PUT', '/_sim/faults', 'none');
    const newFlow = (await flowsNamed('PowerShell 7')).find((id) => id !== oldFlow)!;

    await editFile(join(repo, 'flows/pwsh.yaml'), /^ {2}flags: .*$/m, '  flags: []');
    const start = (await sim.journal(true)).length;
    const plan = await cli(['plan', repo, '--output', 'json'], env);
    expect(plan.code).toBe(1);
    type Obj = { key: string; change: string; reasons: string[]; destroys?: { id: string }[] };
    const flow = (JSON.parse(plan.stdout) as { objects: Obj[] }).objects.find((o) => o.key === 'Flow/pwsh')!;
    expect(flow.change).toBe('requires-replacement');
    expect(flow.reasons.join(' ')).toContain(`then flows ${newFlow} and ${oldFlow} are deleted`);
    const onFlows = (await sim.state()).deployments.filter((d) => d.flowId === oldFlow || d.flowId === newFlow).map((d) => d.id);
    expect(flow.destroys?.map((d) => d.id).sort()).toEqual(onFlows.sort());
    expect(await writesSince(start)).toEqual([]);

    const r = await cli(['apply', repo, '--auto-approve', '--allow-replace'], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const writes = (await writesSince(start)).map((e) => `${e.method} ${e.path}`);
    expect(writes.filter((w) => w === 'POST /v1/flow/create')).toHaveLength(1);
    expect(writes.filter((w) => w.startsWith('DELETE')).sort()).toEqual(
      [`DELETE /v1/flow/${newFlow}`, `DELETE /v1/flow/${oldFlow}`].sort(),
    );
    expect(await flowsNamed('PowerShell 7')).toHaveLength(1);
    expect((await cli(['plan', repo, '--detailed-exitcode'], env)).code).toBe(0);
  });
});
