/**
 * Regression: an interrupted flow replacement was never completed. `apply --allow-replace` (the
 * built CLI, a real process) is stopped by SIGKILL or Ctrl-C while one call of the replacement is
 * in flight (the simulator delays that call, and still serves it after the client died): the
 * create of the new flow, the add-deployment onto it, the delete of the old flow. Before the fix
 * the next apply adopted the new flow, added the deployment to it and kept the old flow (with its
 * Running deployment) as "superseded so a revert reuses it", and plan said no changes. Now the
 * next apply without --allow-replace writes nothing and exits 1, and with it finishes the
 * replacement: across both runs one create, one add-deployment onto the new flow, one delete of
 * the old flow, and a state with no trace of the old flow or of the deployments it took.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/state/inventory-types.js';
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
const ok = (e: JournalEntry): boolean => e.status >= 200 && e.status < 300;

interface Point {
  name: string;
  /** The path fragment the simulator delays (so the kill lands while that call is in flight). */
  delay: (oldFlow: string) => string;
  /** The call the kill waits for. */
  hit: (e: JournalEntry, oldFlow: string) => boolean;
  signal: 'SIGKILL' | 'SIGINT';
}

const POINTS: Point[] = [
  {
    name: 'SIGKILL while the new flow is being created',
    delay: () => '/v1/flow/create',
    hit: (e) => e.method === 'POST' && e.path === '/v1/flow/create',
    signal: 'SIGKILL',
  },
  {
    name: 'SIGKILL while the deployment is being added to the new flow',
    delay: () => '/add-deployment',
    hit: (e) => e.method === 'POST' && e.path.endsWith('/add-deployment'),
    signal: 'SIGKILL',
  },
  {
    name: 'SIGKILL while the old flow is being deleted',
    delay: (old) => `/v1/flow/${old}`,
    hit: (e, old) => e.method === 'DELETE' && e.path === `/v1/flow/${old}`,
    signal: 'SIGKILL',
  },
  {
    name: 'Ctrl-C while the new flow is being created',
    delay: () => '/v1/flow/create',
    hit: (e) => e.method === 'POST' && e.path === '/v1/flow/create',
    signal: 'SIGINT',
  },
];

/** Starts the replacement and stops it once `p.hit` is in flight; returns when the simulator has served that call. */
async function interrupt(repo: string, p: Point, oldFlow: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  await sim.admin('PUT', '/_sim/faults', { latency: '700ms', path: p.delay(oldFlow) });
  const start = (await sim.journal(true)).length;
  const run = spawnCli(['apply', repo, '--auto-approve', '--allow-replace', '--log-level', 'silent'], env);
  let ended = false;
  void run.done.then(() => (ended = true));
  while (!(await writesSince(start)).some((e) => p.hit(e, oldFlow))) {
    if (ended) throw new Error(`apply ended before ${p.name}: ${(await run.done).stdout}`);
    await sleep(5);
  }
  run.child.kill(p.signal);
  const end = await run.done;
  // The call was sent: the service carries it out whether or not anyone waits for the answer.
  await until(
    'the interrupted call to be served',
    async () => ((await writesSince(start)).find((e) => p.hit(e, oldFlow))?.status ?? 0) > 0,
  );
  await sim.admin('PUT', '/_sim/faults', {});
  return end;
}

describe('an interrupted flow replacement is completed by the next apply', () => {
  it.each(POINTS)('$name', async (p) => {
    const repo = await copyExamples();
    const first = await cli(['apply', repo, '--auto-approve'], env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const before = await inventory();
    const oldFlow = before.objects['Flow/seven-zip']!.id;
    const oldDeployment = before.objects['Deployment/seven-zip']!.id;
    await editFile(join(repo, 'flows/seven-zip.yaml'), /^ {2}scope: machine/m, '  scope: user');
    const start = (await sim.journal(true)).length;

    const end = await interrupt(repo, p, oldFlow);
    if (p.signal === 'SIGINT') expect(end.code).toBe(130);
    else expect(end.signal).toBe('SIGKILL');

    const oldStillLive = (await sim.state()).flows.some((f) => f.id === oldFlow && !f.deleted);
    if (oldStillLive) {
      // Without --allow-replace the replacement in progress is shown as needing it: nothing is written.
      const n = (await sim.journal(true)).length;
      const refused = await cli(['apply', repo, '--auto-approve'], env);
      expect(refused.code, refused.stdout).toBe(1);
      expect(await writesSince(n)).toEqual([]);
      expect((await cli(['plan', repo, '--detailed-exitcode'], env)).code).toBe(1);
    }

    const resumed = await cli(['apply', repo, '--auto-approve', '--allow-replace'], env);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);

    const inv = await inventory();
    const newFlow = inv.objects['Flow/seven-zip']!.id;
    const newDeployment = inv.objects['Deployment/seven-zip']!;
    expect(newFlow).not.toBe(oldFlow);
    expect(newDeployment.flowId).toBe(newFlow);

    // Journal: the replacement happened once, whatever the moment of the interruption.
    const writes = (await writesSince(start)).filter(ok);
    expect(writes.filter((e) => e.path === '/v1/flow/create')).toHaveLength(1);
    expect(writes.filter((e) => e.path.endsWith('/add-deployment')).map((e) => e.path)).toEqual([`/v1/flow/${newFlow}/add-deployment`]);
    expect(writes.filter((e) => e.method === 'DELETE').map((e) => e.path)).toEqual([`/v1/flow/${oldFlow}`]);

    // Live: one 7-Zip flow, the new one, with the deployment running; the old flow and its deployment gone.
    const live = await sim.state();
    expect(live.flows.filter((f) => f.name === '7-Zip' && !f.deleted).map((f) => f.id)).toEqual([newFlow]);
    const onNew = live.deployments.filter((d) => d.flowId === newFlow);
    expect(onNew.map((d) => [d.id, d.status])).toEqual([[newDeployment.id, 'Running']]);
    const liveFlows = new Set(live.flows.filter((f) => !f.deleted).map((f) => f.id));
    expect(live.deployments.filter((d) => d.id === oldDeployment && liveFlows.has(d.flowId))).toEqual([]);

    // State: no replacement left in progress, no pending create, no entry for an object that is gone.
    expect(Object.keys(inv.objects).filter((k) => k.includes('#'))).toEqual([]);
    expect(inv.intents).toEqual({});
    const liveIds = new Set([...liveFlows, ...live.deployments.filter((d) => liveFlows.has(d.flowId)).map((d) => d.id)]);
    for (const [key, e] of Object.entries(inv.objects))
      if (e.kind === 'Flow' || e.kind === 'Deployment') expect(liveIds.has(e.id), `${key} ${e.id} is live`).toBe(true);

    expect((await cli(['plan', repo, '--detailed-exitcode'], env)).code).toBe(0);
    expect((await cli(['plan', repo, '--detailed-exitcode', '--allow-replace'], env)).code).toBe(0);
  });
});
