/**
 * The client under the simulator's own faults (not a scripted server): retries with Retry-After,
 * resets, timeouts, and a chunked upload of a multi-file directory while chunks fail.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/client.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let api: ApiClient;
afterEach(async () => {
  await api.close();
  await sim.close();
});

const noSleep = (): Promise<void> => Promise.resolve();

describe('client under simulator faults', () => {
  it('reads through 5xx, 429 and resets; every answer arrives and attempts stay bounded', async () => {
    sim = await startTestSimulator({ faults: '5xx=0.2,429=0.1,reset=0.1' });
    const attempts: number[] = [];
    api = createApiClient({
      baseUrl: sim.url,
      apiKey: sim.key,
      sleep: noSleep,
      retry: { maxAttempts: 8 },
      onRequest: (e) => attempts.push(e.attempt),
    });
    for (let i = 0; i < 30; i++) expect((await api.listTenants()).items.length).toBe(4);
    const journal = await sim.journal();
    expect(journal.some((e) => e.fault === '5xx')).toBe(true);
    expect(journal.some((e) => e.fault === 'reset-before' || e.fault === 'reset-after')).toBe(true);
    expect(Math.max(...attempts)).toBeLessThanOrEqual(8);
  });

  it('honours Retry-After from the simulator’s rate limit', async () => {
    sim = await startTestSimulator({ rateLimit: 2 });
    const delays: number[] = [];
    api = createApiClient({ baseUrl: sim.url, apiKey: sim.key, sleep: (ms) => (delays.push(ms), new Promise((r) => setTimeout(r, ms))) });
    for (let i = 0; i < 4; i++) await api.listTenants();
    expect(delays.some((d) => d >= 1000)).toBe(true);
  });

  it('times out a slow answer with API_TIMEOUT', async () => {
    sim = await startTestSimulator({ latencyMs: 300 });
    api = createApiClient({ baseUrl: sim.url, apiKey: sim.key, timeoutMs: 50, retry: { maxAttempts: 1 } });
    await expect(api.listTenants()).rejects.toMatchObject({ code: 'API_TIMEOUT' });
  });

  it('uploads a multi-file directory while chunks fail, and the package completes', async () => {
    sim = await startTestSimulator();
    api = createApiClient({ baseUrl: sim.url, apiKey: sim.key, sleep: noSleep, retry: { maxAttempts: 10 } });
    const pkg = await api.createPackage({ name: 'Faulty upload', sourceType: 'zip' });
    const dir = await tempDir('packsync-content-');
    await mkdir(join(dir, 'a/b'), { recursive: true });
    await writeFile(join(dir, 'one.bin'), Buffer.alloc(9 * 1024 * 1024, 1));
    await writeFile(join(dir, 'a/b/two.bin'), Buffer.alloc(5 * 1024 * 1024 + 3, 2));
    await writeFile(join(dir, 'a/empty.txt'), '');
    await sim.admin('PUT', '/_sim/faults', '5xx=0.3,reset=0.1');
    const files = await api.uploadContentDirectory(pkg.id, dir);
    await sim.admin('PUT', '/_sim/faults', 'none');
    expect(files.map((f) => f.fileName)).toEqual(['a/b/two.bin', 'a/empty.txt', 'one.bin']);
    const chunks = (await sim.journal()).filter((e) => e.path.endsWith(pkg.id) && e.method === 'POST');
    expect(chunks.some((e) => e.fault !== undefined)).toBe(true);
    await sim.advance(60);
    expect((await api.getPackage(pkg.id)).state).toBe('Completed');
  });
});
