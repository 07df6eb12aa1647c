/**
 * Regression: `stop()` on a pass's early reads (an invalid load, queued promote/resume requests)
 * only kept new reads from starting. The reads already handed to the client and waiting for one
 * of its slots (up to --read-concurrency of them) were still sent after the pass had given up on
 * them. Now they are withdrawn: never sent.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startInventoryReads } from '../../src/live/snapshot.js';
import { inventoryOwningFlows } from '../support/inventory.js';
import { until } from '../support/poll.js';
import { json, makeClient, startServer } from '../api/helpers.js';
import type { TestServer } from '../api/helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the early reads, stopped', () => {
  it('never send the reads still waiting for a slot', async () => {
    // Every answer is held until the test lets them go: what was sent is what the server saw.
    const held: ServerResponse[] = [];
    server = await startServer((_req, res) => {
      held.push(res);
    });
    const { client } = makeClient(server.url, { concurrency: 2, retry: { maxAttempts: 1 } });
    const reads = startInventoryReads(client, inventoryOwningFlows(20), { concurrency: 16 });
    // Both slots are taken (the package list, the first flow read; the state owns flows, so the flow
    // list waits for the desired set); the other flow reads wait in the client for one.
    await until('two requests in flight', () => server!.requests.length === 2, 10_000, { intervalMs: 5 });
    reads.stop();
    for (const res of held) if (!res.destroyed) json(res, 200, []);
    await Promise.allSettled([reads.details.then((m) => Promise.allSettled(m.values())), reads.packages]);
    expect(server.requests.map((r) => r.path).sort()).toEqual([
      `/v1/flow/${inventoryOwningFlows(1).objects['Flow/f0']!.id}`,
      '/v1/package',
    ]);
  });
});
