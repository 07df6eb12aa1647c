/**
 * Deferred waits (docs/reconcile.md, "a pass never blocks for long on waiting work") against the real
 * simulator in real time, where a catalog import stays Pending/Running for about 32 seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/client.js';
import { errorCode } from '../../src/util/errors.js';
import { DEFAULT_WAIT, waitForPackage } from '../../src/apply/wait.js';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let api: ApiClient;
let packageId: string;
const noTick = (): void => undefined;
const packageReads = async (): Promise<number> =>
  (await sim.journal()).filter((e) => e.method === 'GET' && e.path === `/v1/package/${packageId}`).length;

beforeAll(async () => {
  sim = await startTestSimulator({ timeScale: 1 });
  api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
  packageId = await api.importApp(fixtureId(1, 'app', 'Mozilla Firefox'), { version: '133.0', scope: 1 });
});

afterAll(async () => {
  await api.close();
  await sim.close();
});

describe('waiting for package processing', () => {
  it('looks once and defers when the budget is 0 (WAIT_DEFERRED, not a timeout or failure)', async () => {
    const before = await packageReads();
    const err = await waitForPackage(api, packageId, { ...DEFAULT_WAIT, deferAfterMs: 0 }, noTick).catch((e: unknown) => e);
    expect(errorCode(err)).toBe('WAIT_DEFERRED');
    expect((err as Error).message).toMatch(/^package [0-9a-f-]+ is still (Pending|Running); a later pass continues$/);
    expect((await packageReads()) - before).toBe(1);
  });

  it('gives up a long wait within moments of the defer signal, and never holds longer than the budget', async () => {
    const newer = new AbortController();
    const t0 = Date.now();
    setTimeout(() => newer.abort(), 300);
    const err = await waitForPackage(api, packageId, { ...DEFAULT_WAIT, intervalMs: 5_000, deferSignal: newer.signal }, noTick).catch(
      (e: unknown) => e,
    );
    expect(errorCode(err)).toBe('WAIT_DEFERRED');
    expect(Date.now() - t0).toBeLessThan(1_500);

    const t1 = Date.now();
    const err2 = await waitForPackage(api, packageId, { ...DEFAULT_WAIT, intervalMs: 5_000, deferAfterMs: 400 }, noTick).catch(
      (e: unknown) => e,
    );
    expect(errorCode(err2)).toBe('WAIT_DEFERRED');
    expect(Date.now() - t1).toBeGreaterThanOrEqual(400);
    expect(Date.now() - t1).toBeLessThan(1_500);
  });

  it('blocks until the package is ready when no budget is set (the CLI apply)', async () => {
    const done = waitForPackage(api, packageId, { ...DEFAULT_WAIT, intervalMs: 50, maxIntervalMs: 100 }, noTick);
    setTimeout(() => void sim.admin('POST', `/_sim/packages/${packageId}/state`, { state: 'Completed' }), 300);
    await expect(done).resolves.toBeUndefined();
    expect((await api.getPackage(packageId)).state).toBe('Completed');
  });

  it("a package that ends in Error fails with PACKAGE_FAILED and the service's errorDetails", async () => {
    const failing = await api.importApp(fixtureId(1, 'app', 'Notepad++'), { version: '8.7.1', scope: 1 });
    const done = waitForPackage(api, failing, { ...DEFAULT_WAIT, intervalMs: 50, maxIntervalMs: 100 }, noTick).catch((e: unknown) => e);
    await sim.admin('POST', `/_sim/packages/${failing}/state`, { state: 'Error', errorDetails: 'MSI analysis failed: not a valid MSI' });
    const err = await done;
    expect(errorCode(err)).toBe('PACKAGE_FAILED');
    expect((err as Error).message).toContain('MSI analysis failed: not a valid MSI');
  });
});
