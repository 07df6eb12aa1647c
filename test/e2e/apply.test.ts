/**
 * plan/apply through the CLI against the real simulator over HTTP, asserting on the simulator's
 * journal of writes and its state.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { deploymentsYaml, writeRepo } from '../support/manifests.js';
import { copyExamples } from '../support/repo.js';
import { countBy } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';

let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
useSim((s) => ({ sim, env, stateDir } = s));

describe('apply against the simulator', () => {
  it('converges with exactly the expected calls, then a second apply makes none', async () => {
    const repo = await writeRepo({ wave: 2 });
    const first = await cli(['apply', '--auto-approve', repo], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Apply complete: 6 created, 0 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed/);
    expect(countBy(await sim.writes())).toEqual({
      'POST /v1/app/import/{id}': 2,
      'POST /v1/flow/create': 2,
      'POST /v1/flow/{id}/add-deployment': 2,
      'POST /v1/flow/deployment/{id}/skip-wave': 1,
    });
    const state = await sim.state();
    expect(state.packages.map((p) => `${p.productName} ${p.productVersion} ${p.state}`).sort()).toEqual([
      '7-Zip 24.08 Completed',
      'PowerShell 7 7.4.6 Completed',
    ]);
    expect(state.deployments.map((d) => `${d.status}@${d.currentWave}`).sort()).toEqual(['NotStarted@0', 'Running@2']);

    const before = (await sim.journal(true)).length;
    const second = await cli(['apply', '--auto-approve', repo], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/No changes/);
    expect((await sim.journal(true)).length).toBe(before);
  });

  it('converges examples/ with exactly the expected calls, and a second apply makes none', async () => {
    const repo = await copyExamples();
    const first = await cli(['apply', '--auto-approve', repo], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Apply complete: 23 created, 0 configured, 0 deleted, 0 unchanged, 0 skipped, 0 failed/);
    const writes = countBy(await sim.writes());
    expect(writes).toEqual({
      // 2 packages by hand + the baseline's 3 (examples/baselines/standard-apps.yaml).
      'POST /v1/app/import/{id}': 5,
      'POST /v1/package/create': 1,
      'POST /v1/package/content/{id}': 2,
      'POST /v1/package/content/{id}/finalize': 1,
      'POST /v1/flow/create': 8, // 3 by hand + the baseline's 3 apps × 2 rings, one omitted by an exception
      'POST /v1/flow/{id}/add-deployment': 8,
      'POST /v1/flow/deployment/{id}/skip-wave': 1, // seven-zip: wave gate 2 in a 3-wave patch group
      'POST /v1/tenant/{id}/upload': 1,
    });
    const before = (await sim.journal(true)).length;
    expect((await cli(['apply', '--auto-approve', repo], env)).stdout).toMatch(/No changes/);
    expect((await sim.journal(true)).length).toBe(before);
  });

  it('plan --detailed-exitcode says 2 before and 0 after converging, and plan never writes', async () => {
    const repo = await writeRepo();
    const planned = await cli(['plan', repo, '--detailed-exitcode'], env);
    expect(planned.code).toBe(2);
    expect(planned.stdout).toMatch(/Plan: 6 to create, 0 to change, 0 to delete, 0 unchanged\./);
    expect(await sim.writes()).toEqual([]);
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const after = await cli(['plan', repo, '--detailed-exitcode'], env);
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/Plan: 0 to create, 0 to change, 0 to delete, 6 unchanged\./);
  });

  it('makes exactly the calls for one edit: stopping a deployment is one stop', async () => {
    const repo = await writeRepo();
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const before = (await sim.writes()).length;
    await writeFile(join(repo, 'deployments.yaml'), deploymentsYaml({ state: 'stopped' }));
    const r = await cli(['apply', '--auto-approve', repo], env);
    expect(r.code).toBe(0);
    expect((await sim.writes()).slice(before)).toEqual(['POST /v1/flow/deployment/{id}/stop']);
  });

  it('skips waves until the wave gate, and calls update-content once per contentRevision change', async () => {
    const repo = await writeRepo();
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    let before = (await sim.writes()).length;
    await writeFile(join(repo, 'deployments.yaml'), deploymentsYaml({ wave: 3 }));
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    expect((await sim.writes()).slice(before)).toEqual([
      'POST /v1/flow/deployment/{id}/skip-wave',
      'POST /v1/flow/deployment/{id}/skip-wave',
    ]);
    before = (await sim.writes()).length;
    await writeFile(join(repo, 'deployments.yaml'), deploymentsYaml({ wave: 3, contentRevision: 1 }));
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    await writeFile(join(repo, 'deployments.yaml'), deploymentsYaml({ wave: 3, contentRevision: 2 }));
    await sim.advance(120);
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    // One call per change of contentRevision (1, then 2), none for the unchanged third apply.
    expect((await sim.writes()).slice(before)).toEqual([
      'POST /v1/flow/deployment/{id}/update-content',
      'POST /v1/flow/deployment/{id}/update-content',
    ]);
  });

  it('prunes only what packsync created, deployments before flows, and only with --prune', async () => {
    const repo = await writeRepo();
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    // Someone else's flow must survive any prune.
    await sim.admin('POST', '/v1/flow/create', { name: 'Hand made' });
    await writeFile(join(repo, 'deployments.yaml'), deploymentsYaml().split('---')[0]!);
    await writeFile(join(repo, 'flows.yaml'), (await import('../support/manifests.js')).flowsYaml().split('---')[0]!);
    const before = (await sim.writes()).length;
    const kept = await cli(['apply', '--auto-approve', repo], env);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toMatch(/no longer in git/);
    expect((await sim.writes()).length).toBe(before);
    const pruned = await cli(['apply', '--auto-approve', repo, '--prune'], env);
    expect(pruned.code).toBe(0);
    expect((await sim.writes()).slice(before)).toEqual(['DELETE /v1/flow/deployment/{id}', 'DELETE /v1/flow/{id}']);
    const state = await sim.state();
    expect(
      state.flows
        .filter((f) => !f.deleted)
        .map((f) => f.name)
        .sort(),
    ).toEqual(['Hand made', 'seven-zip']); // spec.name defaults to metadata.name (docs/manifests.md)
  });

  it('heals a deployment stopped outside git, or only reports it with --drift report', async () => {
    const repo = await writeRepo();
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const running = (await sim.state()).deployments.find((d) => d.status === 'Running')!;
    await sim.admin('POST', `/_sim/deployments/${running.id}/status`, { status: 'Stopped' });
    let before = (await sim.writes()).length;
    const report = await cli(['apply', '--auto-approve', repo, '--drift', 'report'], env);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/stopped outside packsync while git says running \(drift: report\)/);
    expect((await sim.writes()).length).toBe(before);
    const heal = await cli(['apply', '--auto-approve', repo], env);
    expect(heal.code).toBe(0);
    expect((await sim.writes()).slice(before)).toEqual(['POST /v1/flow/deployment/{id}/start']);
    before = (await sim.writes()).length;
    expect((await cli(['apply', '--auto-approve', repo], env)).stdout).toMatch(/No changes/);
    expect((await sim.writes()).length).toBe(before);
  });

  it('a flow or deployment deleted in the console is reported under --drift report, never made again; apply heals it (regression: --drift report re-added and started it)', async () => {
    const repo = await writeRepo();
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const live = await sim.state();
    const running = live.deployments.find((d) => d.status === 'Running')!;
    const flow = live.flows.find((f) => f.id !== running.flowId && !f.deleted)!;
    // Deleted through the API, as a person does in the console: the flow takes its deployments with it.
    for (const path of [`/v1/flow/deployment/${running.id}`, `/v1/flow/${flow.id}`]) {
      await sim.admin('DELETE', path);
    }
    const before = (await sim.writes()).length;
    const plan = await cli(['plan', repo, '--drift', 'report', '--detailed-exitcode', '--output', 'json'], env);
    expect(plan.code).toBe(2);
    const objects = (JSON.parse(plan.stdout) as { objects: { key: string; change: string; drift?: string; actions: unknown[] }[] }).objects;
    const drifted = objects.filter((o) => o.drift === 'reported');
    expect(drifted.map((o) => o.change)).toEqual(drifted.map(() => 'drift'));
    expect(drifted.filter((o) => o.key.startsWith('Flow/'))).toHaveLength(1);
    // The running one deleted alone, and the flow's own, deleted with it.
    expect(drifted.filter((o) => o.key.startsWith('Deployment/')).length).toBeGreaterThanOrEqual(2);
    expect(drifted.every((o) => o.actions.length === 0)).toBe(true);
    expect(objects.filter((o) => o.change === 'create')).toEqual([]);
    const report = await cli(['apply', '--auto-approve', repo, '--drift', 'report'], env);
    expect(report.code).toBe(0);
    expect((await sim.writes()).length).toBe(before);

    const heal = await cli(['apply', '--auto-approve', repo], env);
    expect(heal.code, heal.stdout + heal.stderr).toBe(0);
    const writes = (await sim.writes()).slice(before);
    expect(writes.filter((w) => w === 'POST /v1/flow/create')).toHaveLength(1);
    expect(writes.filter((w) => w === 'POST /v1/flow/{id}/add-deployment').length).toBeGreaterThanOrEqual(2);
    expect((await cli(['plan', repo, '--detailed-exitcode'], env)).code).toBe(0);
  });

  it('uploads custom package content in chunks, finalizes it, and uploads it to a tenant once', async () => {
    const repo = await writeRepo({ withCustom: true });
    const r = await cli(['apply', '--auto-approve', repo], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const writes = countBy(await sim.writes());
    expect(writes['POST /v1/package/create']).toBe(1);
    expect(writes['POST /v1/package/content/{id}']).toBe(3); // 5 MiB + 17 B in 4 MiB chunks, plus the small file
    expect(writes['POST /v1/package/content/{id}/finalize']).toBe(1);
    expect(writes['POST /v1/tenant/{id}/upload']).toBe(1);
    const state = await sim.state();
    expect(state.uploads.map((u) => u.state)).toEqual(['Completed']);
    const before = (await sim.journal(true)).length;
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    expect((await sim.journal(true)).length).toBe(before);
  });

  it('counts every write call in the summary: each content chunk and the finalize too (they counted as one)', async () => {
    const repo = await writeRepo({ withCustom: true });
    const r = await cli(['apply', '--auto-approve', repo, '--output', 'json'], env);
    expect(r.code, r.stderr).toBe(0);
    const { result } = JSON.parse(r.stdout) as { result: { writes: number } };
    const journal = await sim.journal(true);
    expect(journal.filter((e) => e.path.includes('/package/content/'))).toHaveLength(4);
    expect(result.writes).toBe(journal.length);
  });

  it('rejects an invalid repository with file:line:col, exit 1 and zero API calls', async () => {
    const repo = await writeRepo();
    await writeFile(join(repo, 'deployments.yaml'), deploymentsYaml().replace('state: running', 'state: runing'));
    const r = await cli(['apply', '--auto-approve', repo], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/deployments\.yaml:\d+:\d+: .*state.*running/);
    expect(await sim.journal()).toEqual([]);
  });

  it('applies a saved plan exactly, and refuses it when live state moved since', async () => {
    const repo = await writeRepo();
    const planFile = join(stateDir, 'plan.json');
    expect((await cli(['plan', repo, '--out', planFile], env)).code).toBe(0);
    const ok = await cli(['apply', '--auto-approve', planFile], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/Apply complete: 6 created/);
    await writeFile(join(repo, 'deployments.yaml'), deploymentsYaml({ state: 'stopped' }));
    expect((await cli(['plan', repo, '--out', planFile], env)).code).toBe(0);
    // An owned flow deleted outside packsync: what the plan was made from moved.
    const pwsh = (await sim.state()).flows.find((f) => f.name === 'pwsh' && !f.deleted)!;
    await sim.admin('DELETE', `/v1/flow/${pwsh.id}`);
    const before = (await sim.journal(true)).length;
    const stale = await cli(['apply', '--auto-approve', planFile], env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/stale plan: the live state changed/);
    expect((await sim.journal(true)).length).toBe(before);
  });

  it('a flow created outside packsync that no manifest names does not make a saved plan stale: the plan never read it', async () => {
    // The flow list is read only to find flows the state does not own (docs/reconcile.md): a plan whose
    // desired flows are all owned reads each by its id, so an unrelated new flow is not one of its inputs.
    const repo = await writeRepo();
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const planFile = join(stateDir, 'plan.json');
    await writeFile(join(repo, 'deployments.yaml'), deploymentsYaml({ state: 'stopped' }));
    expect((await cli(['plan', repo, '--out', planFile], env)).code).toBe(0);
    await sim.admin('POST', '/v1/flow/create', { name: 'Someone else' });
    const r = await cli(['apply', '--auto-approve', planFile], env);
    expect(r.code, r.stderr).toBe(0);
    expect((await sim.state()).deployments.filter((d) => d.status === 'Stopped')).not.toHaveLength(0);
  });

  it('never prints the API key', async () => {
    const repo = await writeRepo();
    const r = await cli(['apply', '--auto-approve', repo, '--output', 'json'], env);
    const bad = await cli(['apply', '--auto-approve', repo], { ...env, PACKSYNC_API_URL: 'http://127.0.0.1:1' });
    for (const text of [r.stdout, r.stderr, bad.stdout, bad.stderr]) expect(text).not.toContain(sim.key);
  });
});
