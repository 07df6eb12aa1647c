/** The simulator's wire protocol: auth, problem+json, paging, query tolerance, chunks, faults, accounts, persistence. */
import { describe, expect, it } from 'vitest';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { parseFaultSpec } from '../../src/simulator/faults.js';
import { startTestSimulator } from '../support/sim.js';
import { rawSim } from './http.js';
import { tempDir } from '../support/temp-dir.js';

describe('simulator protocol', () => {
  it('answers 401 problem+json for a missing or wrong key and journals nothing for it', async () => {
    const s = await rawSim();
    try {
      const missing = await fetch(`${s.sim.url}/v1/tenant`);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('content-type')).toMatch(/problem\+json/);
      expect(((await missing.json()) as { detail: string }).detail).toMatch(/X-API-Key header is missing/);
      expect((await s.call('GET', '/v1/tenant', undefined, { 'X-API-Key': 'nope' })).status).toBe(401);
      expect(await s.ok('GET', '/_sim/journal')).toEqual([]);
    } finally {
      await s.sim.close();
    }
  });

  it("body-binding-any-case: binds a JSON body's fields in any case, as ASP.NET Core does (regression: only the first letter was folded)", async () => {
    const s = await rawSim();
    try {
      for (const body of [
        { name: 'A', sourcetype: 'msi' },
        { NAME: 'B', SOURCETYPE: 'msi' },
        { Name: 'C', SourceType: 'msi' },
      ]) {
        const r = await s.call('POST', '/v1/package/create', body);
        expect(r.status, JSON.stringify(body)).toBeLessThan(300);
      }
      const pkgs = await s.ok<{ productName: string; name?: string }[]>('GET', '/v1/package?disablePaging=true');
      expect(pkgs).toHaveLength(3);
    } finally {
      await s.sim.close();
    }
  });

  it('keeps accounts isolated: one key never sees another key’s objects or journal', async () => {
    const s = await rawSim({ apiKeys: ['other'] });
    try {
      await s.ok('POST', '/v1/flow/create', { name: 'Mine' });
      const other = await fetch(`${s.sim.url}/v1/flow`, { headers: { 'X-API-Key': 'other' } });
      expect(await other.json()).toEqual([]);
      const journal = await fetch(`${s.sim.url}/_sim/journal`, { headers: { 'X-API-Key': 'other' } });
      expect(((await journal.json()) as unknown[]).length).toBe(1);
    } finally {
      await s.sim.close();
    }
  });

  it('pages with X-Pagination (1-based), binds query keys case-insensitively, rejects itemsPerPage > 1000', async () => {
    const s = await rawSim();
    try {
      const r = await s.call('GET', '/v1/app?ItemsPerPage=10&PAGE=3&sortBy=Name');
      expect(JSON.parse(r.headers.get('x-pagination')!)).toEqual({
        totalCount: 25,
        itemsPerPage: 10,
        page: 3,
        totalPages: 3,
        hasNext: false,
        hasPrevious: true,
      });
      expect((r.json as unknown[]).length).toBe(5);
      const all = await s.ok<{ name: string }[]>('GET', '/v1/app?disablePaging=true&sortBy=name&sortDesc=true');
      expect(all.length).toBe(25);
      expect(all[0]!.name >= all[24]!.name).toBe(true);
      expect((await s.call('GET', '/v1/app?itemsPerPage=1001')).status).toBe(400);
      expect((await s.call('GET', '/v1/app?disablePaging=maybe')).json).toMatchObject({ errors: { disablePaging: [expect.any(String)] } });
      const search = await s.ok<{ name: string; logoData: string | null }[]>('GET', '/v1/app?search=zip&logo=true&unknownParam=1');
      expect(search.map((a) => a.name)).toEqual(['7-Zip']);
      expect(Buffer.from(search[0]!.logoData!, 'base64').subarray(1, 4).toString()).toBe('PNG');
    } finally {
      await s.sim.close();
    }
  });

  it('flow-list-tenants-not-a-guid: answers 400 naming tenants for an id that is not a GUID (regression: 200 with an empty list)', async () => {
    const s = await rawSim();
    try {
      const bad = await s.call('GET', '/v1/flow?tenants[]=not-a-uuid');
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ errors: { tenants: [expect.stringContaining('not-a-uuid')] } });
      const tenants = await s.ok<{ id: string }[]>('GET', '/v1/tenant?disablePaging=true');
      const good = await s.call('GET', `/v1/flow?tenants[]=${tenants[0]!.id.toUpperCase()}`);
      expect(good.status).toBe(200);
    } finally {
      await s.sim.close();
    }
  });

  it('returns 404 problem for unknown ids and routes, 405 for a wrong method', async () => {
    const s = await rawSim();
    try {
      const r = await s.call('GET', `/v1/package/${fixtureId(9, 'x', 'y')}`);
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ title: 'Not Found', status: 404 });
      expect((await s.call('GET', '/v1/nothing')).status).toBe(404);
      expect((await s.call('PUT', '/v1/flow/create', {})).status).toBe(405);
    } finally {
      await s.sim.close();
    }
  });

  it('checks chunk order per file, accepts a repeated last chunk and a restart at offset 0, and finalize sizes', async () => {
    const s = await rawSim();
    try {
      const pkg = await s.ok<{ id: string; state: string }>('POST', '/v1/package/create', {
        name: 'Tool',
        sourceType: 'MSI',
        version: '1.0',
        detectionRules: [{ type: 'file', path: 'C:\\x', fileName: 'a.exe', operator: 'greaterThanOrEqual', targetVersion: '1.0' }],
      });
      expect(pkg.state).toBe('WaitingForContent');
      const up = (q: string, n: number): Promise<{ status: number }> =>
        s.call('POST', `/v1/package/content/${pkg.id}?${q}`, Buffer.alloc(n, 1));
      expect((await up('index=0&size=4&offset=0&chunk=0', 4)).status).toBe(200);
      expect((await up('index=0&size=4&offset=8&chunk=2', 4)).status).toBe(400);
      expect((await up('index=0&size=4&offset=4&chunk=1', 4)).status).toBe(200);
      expect((await up('index=0&size=4&offset=4&chunk=1', 4)).status).toBe(200); // lost answer, retried
      expect((await up('index=0&size=5&offset=8&chunk=2', 4)).status).toBe(400); // size lies
      expect((await up('index=1&size=3', 3)).status).toBe(200);
      expect((await up('index=0&size=2&offset=0&chunk=0', 2)).status).toBe(200); // restart file 0
      const files = {
        files: [
          { fileName: 'a.msi', fileSize: 2 },
          { fileName: 'b\\c.txt', fileSize: 3 },
        ],
      };
      expect((await s.call('POST', `/v1/package/content/${pkg.id}/finalize`, files)).status).toBe(200);
      expect((await s.call('POST', `/v1/package/content/${pkg.id}/finalize`, files)).status).toBe(200); // idempotent
      expect((await up('index=0&size=2&offset=0&chunk=0', 2)).status).toBe(400); // bytes after finalize
      const details = await s.ok<{ state: string; files: unknown; detectionRules: { operator: number }[] }>('GET', `/v1/package/${pkg.id}`);
      expect(details).toMatchObject({
        state: 'Processing',
        files: [
          { fileName: 'a.msi', fileSize: 2 },
          { fileName: 'b/c.txt', fileSize: 3 },
        ],
      });
      expect(details.detectionRules[0]!.operator).toBe(5);
    } finally {
      await s.sim.close();
    }
  });

  it('accepts a finalize that does not match the bytes received, and the processing ends in Error', async () => {
    const s = await rawSim();
    try {
      const pkg = await s.ok<{ id: string }>('POST', '/v1/package/create', { name: 'Broken', sourceType: 'zip' });
      expect((await s.call('POST', `/v1/package/content/${pkg.id}?index=0&size=4`, Buffer.alloc(4))).status).toBe(200);
      expect(
        (
          await s.call('POST', `/v1/package/content/${pkg.id}/finalize`, {
            files: [
              { fileName: 'a.zip', fileSize: 9 },
              { fileName: 'b', fileSize: 1 },
            ],
          })
        ).status,
      ).toBe(200);
      expect((await s.call('POST', `/v1/package/content/${pkg.id}/finalize`, { files: [] })).status).toBe(409);
      await s.ok('POST', '/_sim/clock', { advanceSeconds: 60 });
      const p = await s.ok<{ state: string; errorDetails: string }>('GET', `/v1/package/${pkg.id}`);
      expect(p.state).toBe('Error');
      expect(p.errorDetails).toMatch(/a\.zip: 4 bytes were uploaded but fileSize says 9; no content was uploaded for file 1 \(b\)/);
      const dup = await s.ok<{ id: string }>('POST', '/v1/package/create', { name: 'Dup', sourceType: 'zip' });
      const r = await s.call('POST', `/v1/package/content/${dup.id}/finalize`, {
        files: [
          { fileName: 'a', fileSize: 0 },
          { fileName: 'a', fileSize: 0 },
        ],
      });
      expect(r.json).toMatchObject({ errors: { 'files[1].fileName': [expect.stringContaining('listed twice')] } });
    } finally {
      await s.sim.close();
    }
  });

  it('serves binary templates images, package download and documentation PDF', async () => {
    const s = await rawSim();
    try {
      const tpl = fixtureId(1, 'template', 'Default (PSADT 3.10.2)');
      const banner = await s.call('GET', `/v1/template/${tpl}/banner`);
      expect(banner.headers.get('content-type')).toBe('image/png');
      expect(banner.bytes.readUInt32BE(16)).toBe(600);
      const logo = await s.call('GET', `/v1/template/${tpl}/logo`);
      expect(logo.bytes.readUInt32BE(16)).toBe(128);
      const id = await s.ok<string>('POST', `/v1/app/import/${fixtureId(1, 'app', '7-Zip')}`);
      expect((await s.call('GET', `/v1/package/${id}/download`)).status).toBe(409);
      await s.ok('POST', '/_sim/clock', { advanceSeconds: 60 });
      const zip = await s.call('GET', `/v1/package/${id}/download?format=1`);
      expect(zip.bytes.readUInt32LE(0)).toBe(0x04034b50);
      expect(zip.headers.get('content-disposition')).toMatch(/7-Zip 24\.08\.psadt\.zip/);
      const pdf = await s.call('GET', `/v1/package/${id}/documentation/pdf`);
      expect(pdf.text.startsWith('%PDF-1.4')).toBe(true);
    } finally {
      await s.sim.close();
    }
  });

  it('answers create-like calls as a bare UUID or as {"id"} per --response-style', async () => {
    const s = await rawSim({ responseStyle: 'object' });
    try {
      expect(await s.ok('POST', '/v1/flow/create', { name: 'X' })).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    } finally {
      await s.sim.close();
    }
  });

  it('injects faults from the spec: 429 with Retry-After, 5xx, resets before and after the effect', async () => {
    const s = await rawSim();
    try {
      await s.ok('PUT', '/_sim/faults', '429=1');
      const r = await s.call('GET', '/v1/tenant');
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('1');
      await s.ok('PUT', '/_sim/faults', { '5xx': 1 });
      expect([500, 502, 503]).toContain((await s.call('GET', '/v1/tenant')).status);
      await s.ok('PUT', '/_sim/faults', 'reset=1');
      for (let i = 0; i < 6; i++) await expect(s.call('POST', '/v1/flow/create', { name: `F${i}` })).rejects.toThrow();
      await s.ok('PUT', '/_sim/faults', 'none');
      const journal = await s.ok<{ fault?: string }[]>('GET', '/_sim/journal?writes=true');
      const faults = journal.map((e) => e.fault);
      const flows = await s.ok<unknown[]>('GET', '/v1/flow');
      expect(flows.length).toBe(faults.filter((f) => f === 'reset-after').length);
      expect(faults.filter((f) => f === 'reset-before').length + flows.length).toBe(6);
    } finally {
      await s.sim.close();
    }
    expect(() => parseFaultSpec('5xx=2')).toThrow(/between 0 and 1/);
    expect(() => parseFaultSpec('boom=1')).toThrow(/unknown fault "boom"/);
    expect(parseFaultSpec('latency=1s,slow=0.1')).toMatchObject({ latencyMs: 1000, slow: 0.1 });
  });

  it('GET /_sim/faults names every key as the fault spec does (regression: latency came back only as latencyMs)', async () => {
    const s = await rawSim();
    try {
      const put = await s.ok('PUT', '/_sim/faults', '5xx=0.1,429=0.05,reset=0.02,latency=100ms,slow=0.01');
      const got = await s.ok<Record<string, unknown>>('GET', '/_sim/faults');
      expect(got).toEqual(put);
      expect(got).toMatchObject({ '5xx': 0.1, '429': 0.05, reset: 0.02, latency: '100ms', slow: 0.01, latencyMs: 100 });
      expect(got.spec).toBe('5xx=0.1,429=0.05,reset=0.02,latency=100ms,slow=0.01');
      // The JSON form of the spec is accepted back, keys as GET shows them.
      await s.ok('PUT', '/_sim/faults', { latency: got.latency, slow: got.slow });
      expect(await s.ok('GET', '/_sim/faults')).toMatchObject({ latency: '100ms', latencyMs: 100, slow: 0.01, '5xx': 0 });
    } finally {
      await s.sim.close();
    }
  });

  it('confines faults to one method: a delete fails while a read of the same path passes', async () => {
    const s = await rawSim();
    try {
      const id = await s.ok<string>('POST', '/v1/flow/create', { name: 'F' });
      await s.ok('PUT', '/_sim/faults', `5xx=1,method=delete,path=/v1/flow/${id}`);
      expect((await s.call('GET', `/v1/flow/${id}`)).status).toBe(200);
      expect([500, 502, 503]).toContain((await s.call('DELETE', `/v1/flow/${id}`)).status);
      expect(await s.ok('GET', '/_sim/faults')).toMatchObject({ spec: expect.stringContaining('method=DELETE') });
    } finally {
      await s.sim.close();
    }
    expect(() => parseFaultSpec('5xx=1,method=FETCH')).toThrow(/"method" must be GET, POST, PUT, PATCH or DELETE/);
  });

  it('limits each account to --rate-limit requests per second with 429 and Retry-After', async () => {
    const s = await rawSim({ rateLimit: 3 });
    try {
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await s.call('GET', '/v1/tenant')).status);
      expect(statuses.filter((x) => x === 429).length).toBeGreaterThanOrEqual(2);
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    } finally {
      await s.sim.close();
    }
  });

  it('keeps its state across a restart with --data-dir', async () => {
    const dataDir = await tempDir('packsync-sim-data-');
    const a = await startTestSimulator({ key: 'persist', dataDir });
    await fetch(`${a.url}/v1/flow/create`, {
      method: 'POST',
      headers: { 'X-API-Key': 'persist', 'content-type': 'application/json' },
      body: '{"name":"Kept"}',
    });
    await a.close();
    const b = await startTestSimulator({ key: 'persist', dataDir });
    try {
      const flows = (await (await fetch(`${b.url}/v1/flow`, { headers: { 'X-API-Key': 'persist' } })).json()) as { name: string }[];
      expect(flows.map((f) => f.name)).toEqual(['Kept']);
    } finally {
      await b.close();
    }
  });
});
