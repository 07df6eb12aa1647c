import { afterEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { collectAll, iterateAll, parsePaginationHeader } from '../../src/api/paging.js';
import type { CallOptions, Page, RadarQuery } from '../../src/api/operations.js';
import { startTestSimulator } from '../support/sim.js';
import { json, makeClient, rejection, startServer } from './helpers.js';
import type { TestServer } from './helpers.js';

let server: TestServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

describe('parsePaginationHeader', () => {
  it('reads the captured camelCase shape', () => {
    expect(parsePaginationHeader('{"totalCount":21,"itemsPerPage":3,"page":1,"totalPages":7,"hasNext":true,"hasPrevious":false}')).toEqual({
      totalCount: 21,
      itemsPerPage: 3,
      page: 1,
      totalPages: 7,
      hasNext: true,
      hasPrevious: false,
    });
  });

  it('accepts PascalCase keys and derives missing flags', () => {
    expect(parsePaginationHeader('{"TotalCount":5,"ItemsPerPage":2,"Page":3,"TotalPages":3}')).toEqual({
      totalCount: 5,
      itemsPerPage: 2,
      page: 3,
      totalPages: 3,
      hasNext: false,
      hasPrevious: true,
    });
  });

  it('is null for absent, non-JSON or unrelated headers', () => {
    expect(parsePaginationHeader(undefined)).toBeNull();
    expect(parsePaginationHeader('')).toBeNull();
    expect(parsePaginationHeader('page=1')).toBeNull();
    expect(parsePaginationHeader('[1,2]')).toBeNull();
    expect(parsePaginationHeader('{"foo":1}')).toBeNull();
  });
});

describe('iterateAll', () => {
  const items = Array.from({ length: 7 }, (_, i) => ({ id: `p${i + 1}` }));

  it('follows X-Pagination across 3 pages over HTTP', async () => {
    server = await startServer((req, res) => {
      const page = Number(req.query.get('page') ?? 1);
      const per = Number(req.query.get('itemsPerPage'));
      const totalPages = Math.ceil(items.length / per);
      json(res, 200, items.slice((page - 1) * per, page * per), {
        'x-pagination': JSON.stringify({
          totalCount: items.length,
          itemsPerPage: per,
          page,
          totalPages,
          hasNext: page < totalPages,
          hasPrevious: page > 1,
        }),
      });
    });
    const h = makeClient(server.url);
    client = h.client;
    const got: string[] = [];
    for await (const p of h.client.iterateAll('listPackages', { search: 'x' }, { itemsPerPage: 3 })) got.push(p.id);
    expect(got).toEqual(items.map((i) => i.id));
    expect(server.requests.map((r) => r.rawQuery)).toEqual([
      'search=x&itemsPerPage=3',
      'search=x&page=2&itemsPerPage=3',
      'search=x&page=3&itemsPerPage=3',
    ]);
  });

  it('without a header, stops at the first short page', async () => {
    server = await startServer((req, res) => {
      const page = Number(req.query.get('page') ?? 1);
      const per = Number(req.query.get('itemsPerPage'));
      json(res, 200, items.slice((page - 1) * per, page * per));
    });
    const h = makeClient(server.url);
    client = h.client;
    const tenant = '3c8574eb-c0f6-426f-e557-08de6eb82a5e';
    const got: string[] = [];
    for await (const a of h.client.iterate(
      (q: RadarQuery, o?: CallOptions) => h.client.listRadarApps(tenant, q, o),
      { matched: true },
      { itemsPerPage: 3 },
    ))
      got.push(a.id);
    expect(got).toEqual(items.map((i) => i.id));
    expect(server.requests).toHaveLength(3);
  });

  it('without a header, an exactly full last page costs one empty page', async () => {
    const pages: Page<number>[] = [
      { items: [1, 2], pagination: null },
      { items: [3, 4], pagination: null },
      { items: [], pagination: null },
    ];
    const asked: (number | undefined)[] = [];
    const all = await collectAll(
      (req) => {
        asked.push(req.page);
        return Promise.resolve(pages[(req.page ?? 1) - 1]!);
      },
      { itemsPerPage: 2 },
    );
    expect(all).toEqual([1, 2, 3, 4]);
    expect(asked).toEqual([undefined, 2, 3]);
  });

  it('defaults to 1000 items per page and clamps larger values', async () => {
    const seen: number[] = [];
    await collectAll((req) => {
      seen.push(req.itemsPerPage);
      return Promise.resolve({ items: [], pagination: null });
    });
    await collectAll(
      (req) => {
        seen.push(req.itemsPerPage);
        return Promise.resolve({ items: [], pagination: null });
      },
      { itemsPerPage: 5000 },
    );
    expect(seen).toEqual([1000, 1000]);
  });

  it('refuses a server that keeps answering page 1', async () => {
    const gen = iterateAll<number>(() =>
      Promise.resolve({
        items: [1],
        pagination: { totalCount: 9, itemsPerPage: 1, page: 1, totalPages: 9, hasNext: true, hasPrevious: false },
      }),
    );
    const e = await rejection(
      (async () => {
        for await (const _ of gen) {
          // drain
        }
      })(),
    );
    expect(e.code).toBe('API_INVALID_RESPONSE');
  });
});

/**
 * The page base (docs/api-model.md): the vendor documents `Page` as 0-indexed, every public client starts
 * at 1. The client must read every item exactly once from a server of either kind.
 */
describe('iterateAll learns the page base from the first X-Pagination', () => {
  const items = Array.from({ length: 7 }, (_, i) => ({ id: `p${i + 1}` }));

  /** A server that numbers pages from 0, as the vendor documents, and treats a missing page as 0. */
  const zeroBased = (withFlags: boolean) =>
    startServer((req, res) => {
      const page = Number(req.query.get('page') ?? 0);
      const per = Number(req.query.get('itemsPerPage'));
      const totalPages = Math.ceil(items.length / per);
      const flags = withFlags ? { hasNext: page < totalPages - 1, hasPrevious: page > 0 } : {};
      json(res, 200, items.slice(page * per, (page + 1) * per), {
        'x-pagination': JSON.stringify({ totalCount: items.length, itemsPerPage: per, page, totalPages, ...flags }),
      });
    });

  it('reads a 0-based server without skipping its first page or repeating one', async () => {
    server = await zeroBased(true);
    const h = makeClient(server.url);
    client = h.client;
    const got: string[] = [];
    for await (const p of h.client.iterateAll('listPackages', {}, { itemsPerPage: 3 })) got.push(p.id);
    expect(got).toEqual(items.map((i) => i.id));
    expect(server.requests.map((r) => r.query.get('page'))).toEqual([null, '1', '2']);
  });

  it('stops at totalPages on a 0-based server whose header has no hasNext', async () => {
    server = await zeroBased(false);
    const h = makeClient(server.url);
    client = h.client;
    const got: string[] = [];
    for await (const p of h.client.iterateAll('listPackages', {}, { itemsPerPage: 3 })) got.push(p.id);
    expect(got).toEqual(items.map((i) => i.id));
    expect(server.requests).toHaveLength(3);
  });

  it('reads the simulator (1-based, Page=0 taken as the first page) exactly once per item', async () => {
    const sim = await startTestSimulator();
    const h = makeClient(`${sim.url}/v1`, { apiKey: sim.key });
    try {
      const expected = (await h.client.searchApps({ disablePaging: true })).items.map((a) => a.id);
      const got: string[] = [];
      for await (const a of h.client.iterateAll('searchApps', {}, { itemsPerPage: 7 })) got.push(a.id);
      expect(expected).toHaveLength(25);
      expect(got).toEqual(expected);
      const pages = (await sim.journal()).filter((e) => e.path === '/v1/app').map((e) => (e.query as Record<string, string>).page ?? null);
      expect(pages).toEqual([null, null, '2', '3', '4']);
    } finally {
      await h.client.close();
      await sim.close();
    }
  });
});
