/**
 * A pass starts the reads its state alone names (the details of every owned flow, the package and
 * flow lists) before it loads its manifests, and loads them while those reads wait on the service
 * (docs/architecture.md, "The engine"; docs/performance.md, fleet-cli). What that must not change:
 * invalid manifests are still the pass's answer, whatever the reads met; a read failure is still
 * the pass's error once the manifests are valid, never an unhandled rejection; and the plan is the
 * one a pass that read after loading makes. Real simulator, real state directory, the examples.
 */
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { planPass, reconcile } from '../../src/engine/reconcile.js';
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

  it('still answers with the manifests problems when they are invalid, whatever the early reads met', async () => {
    const broken = await tempDir('packsync-early-broken-');
    await cp(repo, broken, { recursive: true });
    await writeFile(join(broken, 'flows', 'broken.yaml'), 'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata: { name: [unclosed\n');
    const before = await sim.journalCount();
    const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
    const out = await planPass({ path: broken, api, stateDir, planOptions: DEFAULT_PLAN_OPTIONS });
    expect(out.kind).toBe('invalid');
    if (out.kind !== 'invalid') return;
    expect(out.problems.some((p) => p.file === 'flows/broken.yaml' && p.severity === 'error')).toBe(true);
    // The owned flows' reads were under way before the load found the error: reads only.
    const made = (await sim.journal()).slice(before);
    expect(flowReads(made.map((e) => e.path)).length).toBeGreaterThan(0);
    expect(made.filter((e) => e.method !== 'GET')).toEqual([]);
    // Refused reads (a wrong key) are not the answer either, and nothing is left unhandled.
    const wrongKey = createApiClient({ baseUrl: sim.url, apiKey: 'not-the-key', retry: { maxAttempts: 1 } });
    const again = await planPass({ path: broken, api: wrongKey, stateDir, planOptions: DEFAULT_PLAN_OPTIONS });
    expect(again.kind).toBe('invalid');
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
