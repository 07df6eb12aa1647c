/**
 * The flow list is read only to find flows the state does not own (live/snapshot.ts
 * `flowListNeeded`; docs/reconcile.md, "Reading the live state"). Every owned flow is read by its
 * id anyway, so a pass whose desired flows are all owned, with no create pending, skips the list:
 * at 3,750 flows one ~8.5 MB answer that the service built and this process parsed while the first
 * reads waited (docs/performance.md, fleet-cli, seventeenth session). What the list found must
 * still be found: a flow deleted outside packsync is created again once, a new manifest's flow is
 * looked up by name (a live flow of that name is a conflict, never a second copy).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { flowDoc } from '../support/manifests.js';
import { copyExamples, tempDir } from '../support/repo.js';
import type { TestSim } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';

let sim: TestSim;
let env: Record<string, string>;
useSim((s) => ({ sim, env } = s));

const apply = (repo: string, more: string[] = []): ReturnType<typeof cli> => cli(['apply', repo, '--auto-approve', ...more], env);

/** Calls since the journal held `from` entries, as `METHOD /path`. */
async function callsSince(from: number): Promise<string[]> {
  return (await sim.journal()).slice(from).map((e) => `${e.method} ${e.path}`);
}

const FLOW_LIST = 'GET /v1/flow';
/** A Flow manifest the converged repository does not have (a second 7-Zip ring). */
const NEW_FLOW = flowDoc('seven-zip-ring-2', '7-Zip', ['name: 7-Zip ring 2']);
const liveFlowsNamed = async (name: string): Promise<string[]> =>
  (await sim.state()).flows.filter((f) => f.name === name && !f.deleted).map((f) => f.id);

async function converged(): Promise<string> {
  const repo = await copyExamples();
  const first = await apply(repo);
  expect(first.code, first.stderr).toBe(0);
  return repo;
}

describe('the flow list', () => {
  it('is not read when every desired flow is owned; each owned flow is read by its id', async () => {
    const repo = await converged();
    const before = await sim.journalCount();
    const r = await apply(repo);
    expect(r.code, r.stderr).toBe(0);
    const calls = await callsSince(before);
    expect(calls).not.toContain(FLOW_LIST);
    const owned = (await sim.state()).flows.filter((f) => !f.deleted).map((f) => `GET /v1/flow/${f.id}`);
    for (const read of owned) expect(calls).toContain(read);
    expect(calls.filter((c) => !c.startsWith('GET '))).toEqual([]);
  });

  it('not read, still finds a flow deleted outside packsync and creates it again once', async () => {
    const repo = await converged();
    const [gone] = await liveFlowsNamed('PowerShell 7');
    expect(gone).toBeDefined();
    await sim.admin('DELETE', `/v1/flow/${gone}`);
    const before = await sim.journalCount();
    const r = await apply(repo);
    expect(r.code, r.stderr).toBe(0);
    const calls = await callsSince(before);
    expect(calls).not.toContain(FLOW_LIST);
    expect(calls.filter((c) => c === 'POST /v1/flow/create')).toHaveLength(1);
    const now = await liveFlowsNamed('PowerShell 7');
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(gone);
  });

  it('is read for a flow new in git: a live flow of its name the state does not own is a conflict, not a second copy', async () => {
    const repo = await converged();
    // Another packsync (its own state) made a flow of the name the new manifest will use.
    const other = await copyExamples();
    await writeFile(join(other, 'flows', 'seven-zip-ring-2.yaml'), NEW_FLOW);
    const made = await apply(other, ['--state-dir', await tempDir('packsync-other-state-'), '--adopt']);
    expect(made.code, made.stderr).toBe(0);
    expect(await liveFlowsNamed('7-Zip ring 2')).toHaveLength(1);

    await writeFile(join(repo, 'flows', 'seven-zip-ring-2.yaml'), NEW_FLOW);
    const before = await sim.journalCount();
    const r = await apply(repo);
    expect(r.code).toBe(1);
    const calls = await callsSince(before);
    expect(calls).toContain(FLOW_LIST);
    expect(calls.filter((c) => !c.startsWith('GET '))).toEqual([]);
    expect(await liveFlowsNamed('7-Zip ring 2')).toHaveLength(1);
  });

  it('is read for a flow new in git, which is then created once', async () => {
    const repo = await converged();
    await writeFile(join(repo, 'flows', 'seven-zip-ring-2.yaml'), NEW_FLOW);
    const before = await sim.journalCount();
    const r = await apply(repo);
    expect(r.code, r.stderr).toBe(0);
    const calls = await callsSince(before);
    expect(calls).toContain(FLOW_LIST);
    expect(calls.filter((c) => c === 'POST /v1/flow/create')).toHaveLength(1);
    expect(await liveFlowsNamed('7-Zip ring 2')).toHaveLength(1);
    // And the pass after it, with every desired flow owned again, does not read it.
    const after = await sim.journalCount();
    expect((await apply(repo)).code).toBe(0);
    expect(await callsSince(after)).not.toContain(FLOW_LIST);
  });
});
