/**
 * A pass starts the reads its state alone names (the details of every owned flow, the package and
 * flow lists) while its manifests load, as soon as the load knows it reads the files of the last
 * valid load (docs/architecture.md, "The
 * engine"; docs/performance.md, fleet-cli). What that must not change: an invalid repository makes
 * no call; a read failure is still the pass's error once the manifests are valid, never an
 * unhandled rejection; and the plan counts every read it made, each owned flow read once. Real
 * simulator, real state directory, the examples.
 */
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { applyPlanned, planPass, reconcile } from '../../src/engine/reconcile.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import { errorCode } from '../../src/util/errors.js';
import { tempDir } from '../support/temp-dir.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const EXAMPLES = new URL('../../examples/', import.meta.url).pathname;

let sim: TestSim;
let repo: string;
let stateDir: string;

beforeAll(async () => {
  sim = await startTestSimulator();
  repo = await tempDir('packsync-early-');
  for (const d of ['packages', 'flows', 'deployments', 'content']) await cp(join(EXAMPLES, d), join(repo, d), { recursive: true });
  stateDir = await tempDir('packsync-early-state-');
  const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
  const out = await reconcile({ path: repo, api, stateDir, planOptions: DEFAULT_PLAN_OPTIONS, apply: true });
  expect(out.kind === 'planned' && out.result?.failed).toBe(0);
});

afterAll(async () => {
  await sim?.close();
});

const flowReads = (paths: string[]): string[] => paths.filter((p) => /^\/v1\/flow\/[0-9a-f-]{36}$/.test(p));

describe('reads started before the manifests load', () => {
  it('plans nothing after an apply, from the owned flows read early and the rest after the load', async () => {
    const before = await sim.journalCount();
    const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
    const out = await planPass({ path: repo, api, stateDir, planOptions: DEFAULT_PLAN_OPTIONS });
    expect(out.kind).toBe('planned');
    if (out.kind !== 'planned') return;
    // The examples' promotion gates are judged every pass; nothing else is planned.
    expect(out.plan.actions.filter((a) => a.op !== 'gate')).toEqual([]);
    expect(out.plan.errors).toEqual([]);
    const made = (await sim.journal()).slice(before);
    // Each owned flow read once, and the plan counts every read the pass made.
    expect(flowReads(made.map((e) => e.path)).length).toBe(new Set(flowReads(made.map((e) => e.path))).size);
    expect(out.plan.reads).toBe(made.length);
  });

  it('an apply lets go of the pass’s live state and desired set before its writes (held through them: ~10 MB of a patch-tuesday apply); reconcile still returns both', async () => {
    const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
    const planned = await planPass({ path: repo, api, stateDir, planOptions: DEFAULT_PLAN_OPTIONS });
    expect(planned.kind).toBe('planned');
    if (planned.kind !== 'planned') return;
    const result = await applyPlanned(planned, api);
    expect(result?.failed).toBe(0);
    expect('live' in planned || 'desired' in planned).toBe(false);
    const out = await reconcile({ path: repo, api, stateDir, planOptions: DEFAULT_PLAN_OPTIONS, apply: true });
    expect(out.kind === 'planned' && out.live !== undefined && out.desired.packages.length > 0).toBe(true);
  });

  it('makes no call for an invalid repository, even one the state has applied before', async () => {
    const broken = await tempDir('packsync-early-broken-');
    await cp(repo, broken, { recursive: true });
    await writeFile(join(broken, 'flows', 'broken.yaml'), 'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata: { name: [unclosed\n');
    const before = await sim.journalCount();
    const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
    const out = await planPass({ path: broken, api, stateDir, planOptions: DEFAULT_PLAN_OPTIONS });
    expect(out.kind).toBe('invalid');
    if (out.kind !== 'invalid') return;
    expect(out.problems.some((p) => p.file === 'flows/broken.yaml' && p.severity === 'error')).toBe(true);
    expect(await sim.journalCount()).toBe(before);
  });

  it('fails with the read error once the manifests are valid, and writes nothing', async () => {
    const before = await sim.journalCount();
    const wrongKey = createApiClient({ baseUrl: sim.url, apiKey: 'not-the-key', retry: { maxAttempts: 1 } });
    const error = await planPass({ path: repo, api: wrongKey, stateDir, planOptions: DEFAULT_PLAN_OPTIONS }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(errorCode(error)).toBe('API_UNAUTHORIZED');
    expect((await sim.journal(true)).length).toBe((await sim.journal(true)).filter((e) => e.seq <= before).length);
  });
});
