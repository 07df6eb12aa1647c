import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import type { RequestEvent } from '../../src/api/transport.js';
import { json, KEY, makeClient, problem, rejection, startServer, UUID, UUID2 } from './helpers.js';
import type { Handler, TestServer } from './helpers.js';

let server: TestServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(
  handler: Handler,
  opts: Parameters<typeof makeClient>[1] = {},
): Promise<{ s: TestServer; c: ApiClient; delays: number[] }> {
  server = await startServer(handler);
  const h = makeClient(server.url, opts);
  client = h.client;
  return { s: server, c: h.client, delays: h.delays };
}

const pkg = (over: object = {}): object => ({ id: UUID, productName: 'Dice', productVersion: '1.1.0.0', state: 'Completed', ...over });

describe('auth and request shape', () => {
  it('sends X-API-Key and accept on every request', async () => {
    const { s, c } = await setup((_req, res) => json(res, 200, pkg()));
    await c.getPackage(UUID);
    expect(s.requests[0]!.headers['x-api-key']).toBe(KEY);
    expect(s.requests[0]!.headers.accept).toBe('application/json');
    expect(s.requests[0]!.path).toBe(`/v1/package/${UUID}`);
  });

  it('maps 401 to API_UNAUTHORIZED without the key in the message', async () => {
    const { s, c } = await setup((_req, res) => problem(res, 401, 'Unauthorized'));
    const e = await rejection(c.getTenant(UUID));
    expect(e).toBeInstanceOf(ApiError);
    expect(e.code).toBe('API_UNAUTHORIZED');
    expect(e.status).toBe(401);
    expect(e.message).toBe('getTenant: 401 Unauthorized: Unauthorized');
    expect(e.message).not.toContain(KEY);
    expect(JSON.stringify(e)).not.toContain(KEY);
    expect(s.requests).toHaveLength(1);
  });

  it('key-echoed-in-200-answer: redacts the key in every string of a 200 answer, lists included (regression: errorDetails carried it into messages and /status)', async () => {
    const { c } = await setup((req, res) =>
      req.path === '/v1/package'
        ? json(res, 200, [pkg({ productName: `Dice ${KEY}` })])
        : json(res, 200, pkg({ state: 'Error', errorDetails: `upload refused for key ${KEY}` })),
    );
    expect((await c.getPackage(UUID)).errorDetails).toBe('upload refused for key [REDACTED]');
    expect((await c.listPackages({ disablePaging: true })).items[0]!.productName).toBe('Dice [REDACTED]');
  });

  it('key-echoed-proto-field: a redacted answer keeps a field named __proto__ as a field', async () => {
    const { c } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"id":"${UUID}","state":"Error","errorDetails":"key ${KEY}","__proto__":{"polluted":true}}`);
    });
    const p = (await c.getPackage(UUID)) as unknown as Record<string, unknown>;
    expect(Object.getPrototypeOf(p)).toBe(Object.prototype);
    expect(Object.keys(p)).toContain('__proto__');
  });

  it('scrubs the key when a server echoes it in the problem detail', async () => {
    const { c } = await setup((_req, res) => problem(res, 403, 'Forbidden', {}, { detail: `key ${KEY} may not do this` }));
    const e = await rejection(c.getFlow(UUID));
    expect(e.code).toBe('API_FORBIDDEN');
    expect(e.message).not.toContain(KEY);
    expect(e.message).toBe('getFlow: 403 Forbidden: Forbidden: key [REDACTED] may not do this');
  });

  it('gives stable messages: problem title and detail, no trace ids', async () => {
    const { c } = await setup((_req, res) => problem(res, 404, 'Not Found', {}, { detail: 'flow not found' }));
    const a = await rejection(c.getFlow(UUID));
    const b = await rejection(c.getFlow(UUID));
    expect(a.code).toBe('API_NOT_FOUND');
    expect(a.message).toBe('getFlow: 404 Not Found: Not Found: flow not found');
    expect(b.message).toBe(a.message);
  });

  it('maps 400 validation problems with field errors to API_BAD_REQUEST and 409 to API_CONFLICT', async () => {
    let n = 0;
    const { c } = await setup((_req, res) =>
      ++n === 1
        ? problem(res, 400, 'One or more validation errors occurred.', {}, { errors: { Name: ['required'], Scope: ['must be 1, 2 or 4'] } })
        : problem(res, 409, 'Deployment already started'),
    );
    const bad = await rejection(c.createFlow({ name: '' }));
    expect(bad.code).toBe('API_BAD_REQUEST');
    expect(bad.message).toBe(
      'createFlow: 400 Bad Request: One or more validation errors occurred. (Name: required; Scope: must be 1, 2 or 4)',
    );
    const conflict = await rejection(c.startDeployment(UUID));
    expect(conflict.code).toBe('API_CONFLICT');
  });

  it('encodes query keys camelCase, booleans lowercase, tenants[] repeated, undefined skipped, ids escaped', async () => {
    const { s, c } = await setup((req, res) => json(res, 200, req.path.startsWith('/v1/app/') ? { id: UUID, versions: [] } : []));
    await c.listFlows({ search: 'a b&c', showDeleted: false, tenants: [UUID, UUID2], page: 2, itemsPerPage: 10 });
    await c.listPackages({ search: undefined, appId: UUID, sortDesc: true } as never);
    await c.getApp('a/b?c');
    expect(s.requests[0]!.rawQuery).toBe(`search=a%20b%26c&showDeleted=false&tenants[]=${UUID}&tenants[]=${UUID2}&page=2&itemsPerPage=10`);
    expect(s.requests[0]!.query.getAll('tenants[]')).toEqual([UUID, UUID2]);
    expect(s.requests[1]!.rawQuery).toBe(`appId=${UUID}&sortDesc=true`);
    expect(s.requests[2]!.path).toBe('/v1/app/a%2Fb%3Fc');
  });

  it('sends JSON bodies as application/json and bodiless POSTs with content-length 0', async () => {
    const { s, c } = await setup((req, res) => (req.path.endsWith('/create') ? json(res, 200, UUID) : json(res, 200, undefined)));
    await c.createFlow({ name: 'f', packageId: UUID, scope: 1 });
    await c.startDeployment(UUID);
    await c.uploadToTenant(UUID, { packageId: UUID2, uploadMsixAsWin32: true, wait: false }).catch(() => undefined);
    const [create, start, upload] = s.requests;
    expect(create!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(create!.body.toString())).toEqual({ name: 'f', packageId: UUID, scope: 1 });
    expect(start!.method).toBe('POST');
    expect(start!.path).toBe(`/v1/flow/deployment/${UUID}/start`);
    expect(start!.headers['content-length']).toBe('0');
    expect(start!.headers['content-type']).toBeUndefined();
    expect(upload!.rawQuery).toBe(`packageId=${UUID2}&uploadMsixAsWin32=true&wait=false`);
    expect(upload!.headers['content-length']).toBe('0');
  });

  it('joins paths onto a base URL with a prefix, and does not double a trailing /v1', async () => {
    server = await startServer((_req, res) => json(res, 200, []));
    const a = makeClient(`${server.url}/api/`);
    const b = makeClient(`${server.url}/v1`);
    try {
      await a.client.listTenants();
      await b.client.listTenants();
    } finally {
      await a.client.close();
      await b.client.close();
    }
    expect(server.requests.map((r) => r.path)).toEqual(['/api/v1/tenant', '/v1/tenant']);
  });

  it('reports every attempt to onRequest', async () => {
    const events: RequestEvent[] = [];
    let n = 0;
    const { c } = await setup((_req, res) => (++n === 1 ? problem(res, 503, 'busy') : json(res, 200, [])), {
      onRequest: (e) => events.push(e),
    });
    await c.listTenants();
    expect(events.map((e) => [e.operation, e.method, e.path, e.status, e.attempt])).toEqual([
      ['listTenants', 'GET', '/v1/tenant', 503, 1],
      ['listTenants', 'GET', '/v1/tenant', 200, 2],
    ]);
  });
});

describe('retries', () => {
  it('honours Retry-After in seconds on 429', async () => {
    let n = 0;
    const { s, c, delays } = await setup((_req, res) =>
      ++n < 3 ? problem(res, 429, 'Too Many Requests', { 'retry-after': '2' }) : json(res, 200, pkg()),
    );
    const p = await c.getPackage(UUID);
    expect(p.id).toBe(UUID);
    expect(s.requests).toHaveLength(3);
    expect(delays).toEqual([2000, 2000]);
  });

  it('honours Retry-After as an HTTP-date, and caps it at 60 s', async () => {
    let n = 0;
    const { c, delays } = await setup((_req, res) => {
      n++;
      if (n === 1) return problem(res, 429, 'slow down', { 'retry-after': new Date(Date.now() + 10_000).toUTCString() });
      if (n === 2) return problem(res, 503, 'maintenance', { 'retry-after': '3600' });
      return json(res, 200, []);
    });
    await c.listPackages();
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(8_000);
    expect(delays[0]).toBeLessThanOrEqual(10_000);
    expect(delays[1]).toBe(60_000);
  });

  it('uses jittered exponential backoff without Retry-After', async () => {
    let n = 0;
    const { c, delays } = await setup((_req, res) => (++n < 4 ? problem(res, 500, 'oops') : json(res, 200, [])));
    await c.listPackages();
    // random() = 0.5: half of 200, 400, 800.
    expect(delays).toEqual([100, 200, 400]);
  });

  it('retries a GET on 5xx and then succeeds', async () => {
    let n = 0;
    const { s, c } = await setup((_req, res) => {
      n++;
      if (n === 1) return problem(res, 502, 'Bad Gateway');
      if (n === 2) return problem(res, 503, 'Service Unavailable');
      return json(res, 200, pkg({ state: 'Running' }));
    });
    expect((await c.getPackage(UUID)).state).toBe('Running');
    expect(s.requests).toHaveLength(3);
  });

  it('gives up after maxAttempts with API_UNAVAILABLE', async () => {
    const { s, c } = await setup((_req, res) => problem(res, 503, 'down'), { retry: { maxAttempts: 3 } });
    const e = await rejection(c.getFlow(UUID));
    expect(e.code).toBe('API_UNAVAILABLE');
    expect(e.message).toBe('getFlow: 503 Service Unavailable: down (gave up after 3 attempts)');
    expect(s.requests).toHaveLength(3);
  });

  it('does not retry an unsafe POST on 502: API_OUTCOME_UNKNOWN after exactly one request', async () => {
    const { s, c } = await setup((_req, res) => problem(res, 502, 'Bad Gateway'));
    const e = await rejection(c.createFlow({ name: 'x' }));
    expect(e.code).toBe('API_OUTCOME_UNKNOWN');
    expect(e.status).toBe(502);
    expect(s.requests).toHaveLength(1);
  });

  it('retries an unsafe POST on 429 (nothing took effect)', async () => {
    let n = 0;
    const { s, c, delays } = await setup((_req, res) =>
      ++n === 1 ? problem(res, 429, 'Too Many Requests', { 'retry-after': '1' }) : json(res, 200, UUID),
    );
    expect(await c.createFlow({ name: 'x' })).toBe(UUID);
    expect(s.requests).toHaveLength(2);
    expect(delays).toEqual([1000]);
  });

  it('treats skip-wave and update-content as unsafe, start/stop/refresh as safe', async () => {
    const seen: string[] = [];
    const { c } = await setup((req, res) => {
      const action = req.path.split('/').pop()!;
      seen.push(action);
      // Fail the first attempt of each action with 503.
      if (seen.filter((a) => a === action).length === 1) return problem(res, 503, 'busy');
      return json(res, 200, undefined);
    });
    expect((await rejection(c.skipWave(UUID))).code).toBe('API_OUTCOME_UNKNOWN');
    expect((await rejection(c.updateContent(UUID))).code).toBe('API_OUTCOME_UNKNOWN');
    await c.startDeployment(UUID);
    await c.stopDeployment(UUID);
    await c.refreshDeployment(UUID);
    expect(seen).toEqual(['skip-wave', 'update-content', 'start', 'start', 'stop', 'stop', 'refresh', 'refresh']);
  });

  it('retries a GET whose socket is destroyed mid-response', async () => {
    let n = 0;
    const { s, c } = await setup((req, res) => {
      if (++n === 1) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('[{"id":"', () => res.socket?.destroy());
        return;
      }
      json(res, 200, [pkg()]);
    });
    const page = await c.listPackages();
    expect(page.items).toHaveLength(1);
    expect(s.requests).toHaveLength(2);
  });

  it('does not retry an unsafe POST whose connection is reset after sending', async () => {
    const { s, c } = await setup((req, res) => {
      res.socket?.destroy();
    });
    const e = await rejection(c.addDeployment(UUID, { packageId: UUID2 }));
    expect(e.code).toBe('API_OUTCOME_UNKNOWN');
    expect(e.message).toMatch(/^addDeployment: connection lost \([A-Z_]+\); the request may have taken effect$/);
    expect(s.requests).toHaveLength(1);
  });

  it('retries even an unsafe POST when the connection is refused, then reports API_UNAVAILABLE', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const h = makeClient(`http://127.0.0.1:${port}`, { retry: { maxAttempts: 3 } });
    client = h.client;
    const e = await rejection(h.client.createFlow({ name: 'x' }));
    expect(e.code).toBe('API_UNAVAILABLE');
    expect(e.message).toBe('createFlow: service unavailable: connection refused (ECONNREFUSED); gave up after 3 attempts');
    expect(h.delays).toHaveLength(2);
  });
});

describe('timeouts and aborts', () => {
  it('throws API_TIMEOUT when the server does not answer in time', async () => {
    const { s, c } = await setup(() => undefined, { timeoutMs: 100, retry: { maxAttempts: 2 } });
    const e = await rejection(c.getWave(UUID));
    expect(e.code).toBe('API_TIMEOUT');
    expect(e.message).toBe('getWave: timed out after 100 ms; gave up after 2 attempts');
    expect(s.requests).toHaveLength(2);
  });

  it('a timeout of an unsafe POST is API_OUTCOME_UNKNOWN', async () => {
    const { s, c } = await setup(() => undefined, { timeoutMs: 100 });
    const e = await rejection(c.importApp(UUID, { scope: 1 }));
    expect(e.code).toBe('API_OUTCOME_UNKNOWN');
    expect(s.requests).toHaveLength(1);
  });

  it("the caller's signal aborts with API_ABORTED", async () => {
    const ac = new AbortController();
    const { c } = await setup(() => ac.abort());
    const e = await rejection(c.getFlow(UUID, { signal: ac.signal }));
    expect(e.code).toBe('API_ABORTED');
    const again = await rejection(c.getFlow(UUID, { signal: ac.signal }));
    expect(again.code).toBe('API_ABORTED');
  });
});

describe('responses', () => {
  it('reads ids as a bare JSON string, {id}, {packageId}, {deploymentId} or an unquoted GUID', async () => {
    const bodies = [
      JSON.stringify(UUID),
      JSON.stringify({ id: UUID }),
      JSON.stringify({ packageId: UUID }),
      JSON.stringify({ deploymentId: UUID }),
      UUID,
    ];
    let n = 0;
    const { c } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(bodies[n++]);
    });
    expect(await c.createFlow({ name: 'a' })).toBe(UUID);
    expect(await c.createFlow({ name: 'a' })).toBe(UUID);
    expect(await c.importApp(UUID2)).toBe(UUID);
    expect(await c.addDeployment(UUID2, { packageId: UUID2 })).toBe(UUID);
    expect(await c.importApp(UUID2)).toBe(UUID);
  });

  it('rejects a created package without id as API_INVALID_RESPONSE', async () => {
    const { c } = await setup((_req, res) => json(res, 200, { name: 'x' }));
    const e = await rejection(c.createPackage({ name: 'x', sourceType: 'msi' }));
    expect(e.code).toBe('API_INVALID_RESPONSE');
    const notJson = await setup((_req, res) => {
      res.writeHead(200);
      res.end('<html>');
    });
    expect((await rejection(notJson.c.getPackage(UUID))).code).toBe('API_INVALID_RESPONSE');
  });

  it('normalises states given as numbers or in other casings', async () => {
    const { c } = await setup((req, res) => {
      if (req.path.startsWith('/v1/package')) return json(res, 200, pkg({ state: 2 }));
      if (req.path.startsWith('/v1/flow/deployment')) return json(res, 200, { id: UUID, status: 'running', contentUpdateStatus: 1 });
      if (req.path.startsWith('/v1/flow/'))
        return json(res, 200, {
          id: UUID,
          deployments: [{ id: UUID2, status: 4, contentUpdateStatus: 'NONE' }],
          currentDeployment: { id: UUID2, status: 'not_started' },
        });
      if (req.path.startsWith('/v1/tenant/upload')) return json(res, 200, { id: UUID, state: 'canceled' });
      return json(res, 200, [
        { id: UUID, state: 'Running' },
        { id: UUID2, state: 'SomethingNew' },
      ]);
    });
    expect((await c.getPackage(UUID)).state).toBe('Completed');
    const d = await c.getDeployment(UUID);
    expect([d.status, d.contentUpdateStatus]).toEqual(['Running', 'Running']);
    const f = await c.getFlow(UUID);
    expect([f.deployments[0]!.status, f.deployments[0]!.contentUpdateStatus, f.currentDeployment!.status]).toEqual([
      'Failed',
      'None',
      'NotStarted',
    ]);
    expect((await c.getUploadTask(UUID)).state).toBe('Canceled');
    expect((await c.listTenantUploads(UUID)).items.map((t) => t.state)).toEqual(['Running', 'SomethingNew']);
  });

  it('reads lists as bare arrays or {items}, with X-Pagination', async () => {
    let n = 0;
    const { c } = await setup((_req, res) =>
      ++n === 1
        ? json(res, 200, [{ id: UUID }], {
            'x-pagination': JSON.stringify({ totalCount: 1, itemsPerPage: 50, page: 1, totalPages: 1, hasNext: false, hasPrevious: false }),
          })
        : json(res, 200, { items: [{ id: UUID2 }] }),
    );
    const a = await c.listRadarApps(UUID, { matched: true });
    expect(a.items).toEqual([{ id: UUID }]);
    expect(a.pagination).toEqual({ totalCount: 1, itemsPerPage: 50, page: 1, totalPages: 1, hasNext: false, hasPrevious: false });
    const b = await c.listRadarAppDevices(UUID, UUID2);
    expect(b).toEqual([{ id: UUID2 }]);
  });

  it('returns binary bodies with content type and the Content-Disposition file name', async () => {
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0, 1, 2, 255]);
    const { s, c } = await setup((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/pdf',
        'content-disposition': `attachment; filename="Dice 1.1.pdf"; filename*=UTF-8''Dice%201.1%20%C3%A9.pdf`,
      });
      res.end(bytes);
    });
    const r = await c.getPackageDocumentationPdf(UUID);
    expect(r.contentType).toBe('application/pdf');
    expect(r.fileName).toBe('Dice 1.1 é.pdf');
    expect(Buffer.compare(r.body, bytes)).toBe(0);
    await c.downloadPackage(UUID, { format: 4, noScriptWrap: true });
    expect(s.requests[1]!.rawQuery).toBe('format=4&noScriptWrap=true');
    expect(s.requests[1]!.path).toBe(`/v1/package/${UUID}/download`);
  });

  it('routes every operation to its method and path', async () => {
    const { s, c } = await setup((req, res) => {
      if (req.method === 'DELETE' || req.path.includes('/content/') || /\/(start|stop|refresh|skip-wave|update-content)$/.test(req.path))
        return json(res, 200, undefined);
      if (req.path.endsWith('/banner') || req.path.endsWith('/logo') || req.path.endsWith('/pdf') || req.path.endsWith('/download')) {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.from([1]));
        return;
      }
      if (/^\/v1\/(app|template|package|flow|tenant)$/.test(req.path) || /\/(showcase|verified|uploads|radar|devices)$/.test(req.path))
        return json(res, 200, []);
      if (req.path.includes('/import/') || req.path.endsWith('/create') || req.path.endsWith('/add-deployment')) {
        return json(res, 200, req.path === '/v1/package/create' ? { id: UUID, state: 'WaitingForContent' } : UUID);
      }
      return json(res, 200, { id: UUID, state: 'Running', ...(req.path.startsWith('/v1/app/') ? { versions: [] } : {}) });
    });
    const t = UUID;
    await c.searchApps({ search: 'x', logo: true });
    await c.listShowcasedApps();
    await c.listVerifiedApps();
    await c.getApp(t);
    await c.importApp(t, { version: '1.0' });
    await c.listTemplates();
    await c.getTemplate(t);
    await c.getTemplateBanner(t);
    await c.getTemplateLogo(t);
    await c.listPackages();
    await c.getPackage(t);
    await c.downloadPackage(t);
    await c.getPackageDocumentationPdf(t);
    await c.createPackage({ name: 'p', sourceType: 'zip' });
    await c.uploadContentChunk(t, { index: 0, size: 1, offset: 0, chunk: 0 }, new Uint8Array([7]));
    await c.finalizeContent(t, { files: [{ fileName: 'a', fileSize: 1 }] });
    await c.listFlows();
    await c.getFlow(t);
    await c.createFlow({ name: 'f' });
    await c.addDeployment(t, { packageId: t });
    await c.deleteFlow(t, { deleteFromIntune: true });
    await c.getDeployment(t);
    await c.deleteDeployment(t);
    await c.startDeployment(t);
    await c.stopDeployment(t);
    await c.refreshDeployment(t);
    await c.skipWave(t);
    await c.updateContent(t);
    await c.getWave(t);
    await c.getWaveLive(t);
    await c.listTenants();
    await c.getTenant(t);
    await c.uploadToTenant(t, { packageId: t });
    await c.getUploadTask(t);
    await c.listTenantUploads(t);
    await c.listRadarApps(t);
    await c.listRadarAppDevices(t, UUID2);
    await c.listRadarEntryDevices(t, UUID2);
    const routes = s.requests.map((r) => `${r.method} ${r.path.replaceAll(UUID, '{id}').replaceAll(UUID2, '{id2}')}`);
    expect(routes).toEqual([
      'GET /v1/app',
      'GET /v1/app/showcase',
      'GET /v1/app/verified',
      'GET /v1/app/{id}',
      'POST /v1/app/import/{id}',
      'GET /v1/template',
      'GET /v1/template/{id}',
      'GET /v1/template/{id}/banner',
      'GET /v1/template/{id}/logo',
      'GET /v1/package',
      'GET /v1/package/{id}',
      'GET /v1/package/{id}/download',
      'GET /v1/package/{id}/documentation/pdf',
      'POST /v1/package/create',
      'POST /v1/package/content/{id}',
      'POST /v1/package/content/{id}/finalize',
      'GET /v1/flow',
      'GET /v1/flow/{id}',
      'POST /v1/flow/create',
      'POST /v1/flow/{id}/add-deployment',
      'DELETE /v1/flow/{id}',
      'GET /v1/flow/deployment/{id}',
      'DELETE /v1/flow/deployment/{id}',
      'POST /v1/flow/deployment/{id}/start',
      'POST /v1/flow/deployment/{id}/stop',
      'POST /v1/flow/deployment/{id}/refresh',
      'POST /v1/flow/deployment/{id}/skip-wave',
      'POST /v1/flow/deployment/{id}/update-content',
      'GET /v1/flow/wave/{id}',
      'GET /v1/flow/wave/{id}/live',
      'GET /v1/tenant',
      'GET /v1/tenant/{id}',
      'POST /v1/tenant/{id}/upload',
      'GET /v1/tenant/upload/{id}',
      'GET /v1/tenant/{id}/uploads',
      'GET /v1/tenant/{id}/radar',
      'GET /v1/tenant/{id}/radar/{id2}/devices',
      'GET /v1/tenant/{id}/radar/entry/{id2}/devices',
    ]);
    expect(routes).toHaveLength(38);
    expect(s.requests[0]!.rawQuery).toBe('search=x&logo=true');
    expect(s.requests[14]!.rawQuery).toBe('index=0&size=1&offset=0&chunk=0');
    expect(s.requests[14]!.headers['content-type']).toBe('application/octet-stream');
    expect(s.requests[20]!.rawQuery).toBe('deleteFromIntune=true');
  });
});

describe('concurrency', () => {
  it('keeps at most `concurrency` requests in flight', async () => {
    const { s, c } = await setup(
      (_req, res) => {
        setTimeout(() => json(res, 200, { id: UUID }), 15);
      },
      { concurrency: 2 },
    );
    await Promise.all(Array.from({ length: 8 }, () => c.getTenant(UUID)));
    expect(s.requests).toHaveLength(8);
    expect(s.inFlight.max).toBe(2);
  });
});
