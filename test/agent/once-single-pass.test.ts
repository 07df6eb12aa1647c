/**
 * `run --once` is exactly one pass. Regression: a failed pass scheduled its backoff retry, and the
 * once-branch never cleared it, so a "retry after failure" pass started after the result was
 * printed and the state's lock released. Here the agent runs in this (long-lived) process with an
 * API client that stays open; its timers are fake (advancing with real time while the pass runs),
 * so a retry it left behind is fired at once afterwards instead of waited for.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Agent } from '../../src/agent/loop.js';
import { createMetrics } from '../../src/agent/http/metrics.js';
import { runAgent } from '../../src/agent/start.js';
import { createApiClient } from '../../src/api/client.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import { openState } from '../../src/state/open-state.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSimulator();
});
afterAll(() => sim.close());

/** Longer than the first backoff retry can be (2 s base: between 1 and 2 s, Agent.backoffMs). */
const PAST_FIRST_RETRY_MS = 2500;

describe('run --once', () => {
  it('a failed once-pass starts no retry pass after its result', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const trigger = vi.spyOn(Agent.prototype, 'trigger');
    try {
      await failedOncePass(trigger);
    } finally {
      trigger.mockRestore();
      vi.useRealTimers();
    }
  });
});

/** A once-pass that fails on a 5xx; what happens after its result is the test. */
async function failedOncePass(trigger: { mock: { calls: unknown[][] } }): Promise<void> {
  await sim.admin('PUT', '/_sim/faults', { '5xx': 1 });
  const stateDir = await tempDir('packsync-once-');
  const state = openState({ stateDir, env: {}, warn: () => undefined });
  await state.lock();
  const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key, retry: { maxAttempts: 1 } });
  const once = await runAgent({
    source: { source: await writeRepo(), ref: 'main', cwd: process.cwd(), env: {} },
    api,
    stateDir,
    state,
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(false),
    planOptions: { ...DEFAULT_PLAN_OPTIONS, drift: 'report' },
    concurrency: 4,
    readConcurrency: 4,
    passTimeoutMs: 60_000,
    watch: false,
    webhookSecret: null,
    notifications: null,
    once: true,
  });
  await state.close();
  expect(once).toMatchObject({ result: 'Failed', ok: false });
  expect(trigger.mock.calls.map((c) => c[0])).toEqual(['once']);
  // Every timer left behind fires now, a backoff retry first among them: none may start a pass.
  await vi.advanceTimersByTimeAsync(PAST_FIRST_RETRY_MS);
  expect(trigger.mock.calls.map((c) => c[0])).toEqual(['once']);
  // The pass's own reads may still land after its result (siblings of the read that failed), but
  // each collection is read once: a second pass would read them all again.
  const reads = (await sim.journal()).map((e) => `${e.method} ${e.path}`);
  expect(reads).toContain('GET /v1/app');
  expect(reads.filter((r) => r === 'GET /v1/app')).toHaveLength(1);
  expect(new Set(reads).size).toBe(reads.length);
  await sim.admin('PUT', '/_sim/faults', { '5xx': 0 });
}
