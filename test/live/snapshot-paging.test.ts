/**
 * The live read asks for whole lists (`disablePaging=true`); a server that ignores that and pages
 * anyway is read page by page through the client's paging, so a server that numbers pages from 0
 * (as the vendor documents) loses no page and repeats none (docs/api-model.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readLiveState } from '../../src/live/snapshot.js';
import { json, makeClient, startServer } from '../api/helpers.js';
import type { TestServer } from '../api/helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PER_PAGE = 2;
const packages = Array.from({ length: 5 }, (_, i) => ({
  id: `00000000-0000-4000-8000-00000000000${i}`,
  productName: `p${i}`,
  state: 'Completed',
}));

describe('readLiveState against a 0-based server that ignores disablePaging', () => {
  it('reads every package exactly once', async () => {
    server = await startServer((req, res) => {
      const items = req.path === '/v1/package' ? packages : [];
      const page = Number(req.query.get('page') ?? 0);
      const totalPages = Math.ceil(items.length / PER_PAGE);
      json(res, 200, items.slice(page * PER_PAGE, (page + 1) * PER_PAGE), {
        'x-pagination': JSON.stringify({
          totalCount: items.length,
          itemsPerPage: PER_PAGE,
          page,
          totalPages,
          hasNext: page < totalPages - 1,
          hasPrevious: page > 0,
        }),
      });
    });
    const { client } = makeClient(`${server.url}/v1`);
    try {
      const desired = { root: '/', packages: [], flows: [], deployments: [], tenantUploads: [] };
      const inventory = { version: 1, objects: {}, intents: {} } as Parameters<typeof readLiveState>[2];
      const { live } = await readLiveState(client, desired, inventory);
      expect(live.packages.map((p) => p.productName)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
      const packagePages = server.requests.filter((r) => r.path === '/v1/package').map((r) => r.query.get('page'));
      // The disablePaging answer, then the walk: the first page unnumbered, then 1 and 2.
      expect(packagePages).toEqual([null, null, '1', '2']);
    } finally {
      await client.close();
    }
  });
});
