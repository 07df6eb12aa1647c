/**
 * Regression: a pass whose caller named no read concurrency (`export`, `update`'s plan bodies, the
 * demo) kept 8 reads going whatever the client's `--api-concurrency` was: with 16 slots, half sat
 * idle. The default is now twice the client's slots (live/read-concurrency.ts), as the CLI's
 * `--read-concurrency` is; so does `update`'s catalog read, which kept 16 (as many as the client
 * sent at once at `--api-concurrency 16`, so no read waited for a freed slot).
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { readsAtOnce } from '../../src/live/read-concurrency.js';
import { startInventoryReads } from '../../src/live/snapshot.js';
import { inventoryOwningFlows } from '../support/inventory.js';
import { until } from '../support/poll.js';
import { json, makeClient, startServer } from '../api/helpers.js';
import type { TestServer } from '../api/helpers.js';

let server: TestServer | undefined;
const held: ServerResponse[] = [];
afterEach(async () => {
  for (const res of held.splice(0)) if (!res.destroyed) json(res, 200, []);
  await server?.close();
  server = undefined;
});

describe('reads with no concurrency named', () => {
  it.each([5, 12])('keep twice the client’s %i slots going', async (slots) => {
    server = await startServer((_req, res) => {
      held.push(res);
    });
    const { client } = makeClient(server.url, { concurrency: slots });
    const reads = startInventoryReads(client, inventoryOwningFlows(60));
    // Every slot taken and every answer held: what was started is what the default allows.
    await until('every slot taken', () => server!.requests.length === slots, 10_000, { intervalMs: 5 });
    expect(server.requests.length).toBe(slots);
    // The package list, and twice the slots of flow details (the flow list waits: the state owns flows).
    expect(reads.reads()).toBe(1 + 2 * slots);
    reads.stop();
  });
});

describe('readsAtOnce', () => {
  it('is twice the client’s slots unless a number is asked for', () => {
    const { client } = makeClient('http://127.0.0.1:9', { concurrency: 16 });
    expect(readsAtOnce(client, undefined)).toBe(32);
    expect(readsAtOnce(client, 5)).toBe(5);
    // A PacksyncApi that does not say its slots (a test double): the client's default, 8, twice.
    expect(readsAtOnce({} as typeof client, undefined)).toBe(16);
  });
});
