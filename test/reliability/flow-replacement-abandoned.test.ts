/**
 * Regressions: a flow replacement interrupted during the new flow's create (the built CLI, stopped
 * by Ctrl-C or SIGKILL while the simulator still serves the create) was then finished the wrong
 * way. (1) Git reverted to the old flow's spec: the next apply adopted the half-made new flow as in
 * sync, moved the deployment onto it and deleted the old flow git describes; later plans said no
 * changes with the live flow in the wrong scope. (2) The flow left git and was pruned: the old
 * flow was deleted, the half-made new flow stayed live in no state entry, never mentioned again.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/state/inventory-types.js';
import { INSTALLER_SCOPE } from '../../src/api/wire/index.js';
import { cli } from '../support/cli.js';
import { until } from '../support/poll.js';
import { copyExamples, editFile } from '../support/repo.js';
import type { JournalEntry, TestSim } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';
import { spawnCli } from '../support/spawn-cli.js';
import { sleep } from './support/env.js';

let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
useSim((s) => ({ sim, env, stateDir } = s));

const inventory = async (): Promise<Inventory> => JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;
const writesSince = async (n: number): Promise<JournalEntry[]> => (await sim.journal(true)).slice(n);
const isCreate = (e: JournalEntry): boolean => e.method === 'POST' && e.path === '/v1/flow/create';
const liveFlows = async (name: string): Promise<{ id: string; scope: number }[]> =>
  (await sim.state()).flows.filter((f) => f.name === name && !f.deleted).map((f) => ({ id: f.id, scope: f.scope }));

/** Starts `apply --allow-replace`, stops it with `signal` while the new flow's create is in flight; returns once the create was served. */
async function interruptCreate(
  repo: string,
  signal: 'SIGINT' | 'SIGKILL',
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  await sim.admin('PUT', '/_sim/faults', { latency: '700ms', path: '/v1/flow/create' });
  const start = (await sim.journal(true)).length;
  const run = spawnCli(['apply', repo, '--auto-approve', '--allow-replace', '--log-level', 'silent'], env);
  let ended = false;
  void run.done.then(() => (ended = true));
  while (!(await writesSince(start)).some(isCreate)) {
    if (ended) throw new Error(`apply ended before the create: ${(await run.done).stdout}`);
    await sleep(5);
  }
  run.child.kill(signal);
  const end = await run.done;
  await until('the interrupted create to be served', async () => ((await writesSince(start)).find(isCreate)?.status ?? 0) > 0);
  await sim.admin('PUT', '/_sim/faults', {});
  return end;
}

async function replacementCut(
  signal: 'SIGINT' | 'SIGKILL',
): Promise<{ repo: string; oldFlow: string; newFlow: string; oldDeployment: string }> {
  const repo = await copyExamples();
  const first = await cli(['apply', repo, '--auto-approve'], env);
  expect(first.code, first.stdout + first.stderr).toBe(0);
  const inv = await inventory();
  const oldFlow = inv.objects['Flow/pwsh']!.id;
  const oldDeployment = inv.objects['Deployment/pwsh']!.id;
  await editFile(join(repo, 'flows/pwsh.yaml'), /^ {2}scope: machine/m, '  scope: user');
  const end = await interruptCreate(repo, signal);
  if (signal === 'SIGINT') expect(end.code).toBe(130);
  else expect(end.signal).toBe('SIGKILL');
  const made = (await liveFlows('PowerShell 7')).filter((f) => f.id !== oldFlow);
  expect(made.map((f) => f.scope)).toEqual([INSTALLER_SCOPE.user]);
  return { repo, oldFlow, newFlow: made[0]!.id, oldDeployment };
}

describe('a flow replacement interrupted during its create', () => {
  it('git reverted to the old flow: the old flow and its deployment are kept, the half-made new flow is deleted once', async () => {
    const { repo, oldFlow, newFlow, oldDeployment } = await replacementCut('SIGINT');
    await editFile(join(repo, 'flows/pwsh.yaml'), /^ {2}scope: user/m, '  scope: machine');
    const start = (await sim.journal(true)).length;

    const r = await cli(['apply', repo, '--auto-approve', '--allow-replace'], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);

    const writes = (await writesSince(start)).filter((e) => e.status >= 200 && e.status < 300).map((e) => `${e.method} ${e.path}`);
    expect(writes.filter((w) => w.startsWith('DELETE'))).toEqual([`DELETE /v1/flow/${newFlow}`]);
    expect(writes.filter((w) => w.includes('/flow/'))).toEqual([`DELETE /v1/flow/${newFlow}`]);
    expect(await liveFlows('PowerShell 7')).toEqual([{ id: oldFlow, scope: INSTALLER_SCOPE.machine }]);
    expect((await sim.state()).deployments.filter((d) => d.id === oldDeployment).map((d) => d.flowId)).toEqual([oldFlow]);

    const inv = await inventory();
    expect(inv.objects['Flow/pwsh']!.id).toBe(oldFlow);
    expect(inv.objects['Deployment/pwsh']!.id).toBe(oldDeployment);
    expect(Object.keys(inv.objects).filter((k) => k.includes('#'))).toEqual([]);
    expect(inv.intents).toEqual({});
    expect((await cli(['plan', repo, '--detailed-exitcode', '--allow-replace'], env)).code).toBe(0);
  });

  it('the flow left git: prune deletes the half-made new flow with the old one', async () => {
    const { repo, oldFlow, newFlow, oldDeployment } = await replacementCut('SIGKILL');
    await rm(join(repo, 'flows/pwsh.yaml'));
    await rm(join(repo, 'deployments/pwsh.yaml'));
    const start = (await sim.journal(true)).length;

    const r = await cli(['apply', repo, '--auto-approve', '--prune'], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);

    const deletes = (await writesSince(start)).filter((e) => e.method === 'DELETE' && e.status < 300).map((e) => e.path);
    expect(deletes.sort()).toEqual([`/v1/flow/deployment/${oldDeployment}`, `/v1/flow/${newFlow}`, `/v1/flow/${oldFlow}`].sort());
    expect(await liveFlows('PowerShell 7')).toEqual([]);
    const inv = await inventory();
    expect(Object.keys(inv.objects).filter((k) => k.startsWith('Flow/pwsh') || k.startsWith('Deployment/pwsh'))).toEqual([]);
    expect(inv.intents).toEqual({});
    expect((await cli(['plan', repo, '--detailed-exitcode'], env)).code).toBe(0);
  });
});
