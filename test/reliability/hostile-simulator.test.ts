/**
 * The simulator under hostile requests (fast-check): any method on any of the 38 routes with good,
 * foreign, malformed and percent-broken ids, random query keys with negative, huge and non-numeric
 * paging values, bodies that are bad JSON, wrong JSON, binary or oversized, under any content type.
 * Every answer is a 2xx or a 4xx RFC 7807 problem+json, never a 500 and never a dropped connection,
 * and the account's state stays consistent. Chunk uploads with gaps and overlaps are checked
 * against a model of the documented chunk rules, and conflicting calls race on one deployment.
 * Default run: 400 random requests and 40 chunk sequences; full run: 4,000 and 300.
 */
import { Agent as HttpAgent, request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYMENT_STATUSES, PACKAGE_STATES, TASK_STATES } from '../../src/api/wire/index.js';
import { writeRepo } from '../support/manifests.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { converge } from './support/converge.js';
import { count, report } from './support/env.js';

const REQUESTS = count(4000, 400, 'PACKSYNC_HOSTILE_REQUESTS');
const CHUNK_RUNS = count(300, 40, 'PACKSYNC_HOSTILE_CHUNK_RUNS');
/** Above the client's 4 MiB chunks, so the seeding converge fits; small enough to exceed cheaply. */
const MAX_BODY = 6 * 1024 * 1024;

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

/** A raw HTTP/1.1 client on a keep-alive agent: a reset after any answer shows up on the next call. */
function client(
  url: string,
  key: string,
): { send: (method: string, path: string, body?: Buffer, contentType?: string, withKey?: boolean) => Promise<Answer>; close: () => void } {
  const u = new URL(url);
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 8 });
  return {
    send: (method, path, body, contentType, withKey = true) =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string> = {};
        if (withKey) headers['x-api-key'] = key;
        if (contentType !== undefined) headers['content-type'] = contentType;
        if (body !== undefined) headers['content-length'] = String(body.length);
        const req = request({ host: u.hostname, port: u.port, method, path, headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        });
        req.on('error', (e) => reject(new Error(`${method} ${path}: ${(e as NodeJS.ErrnoException).code ?? e.message}`)));
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

function json(a: Answer): unknown {
  return JSON.parse(a.body.toString('utf8')) as unknown;
}

/** 2xx, or a 4xx problem+json whose `status` matches the HTTP status. Never a 5xx. */
function checkAnswer(what: string, a: Answer): void {
  expect(a.status, `${what} → ${a.status} ${a.body.toString('utf8').slice(0, 300)}`).toBeLessThan(500);
  expect(a.status).toBeGreaterThanOrEqual(200);
  if (a.status >= 400) {
    expect(a.contentType, what).toMatch(/^application\/problem\+json/);
    const p = json(a) as { status?: unknown; title?: unknown };
    expect(p.status, what).toBe(a.status);
    expect(typeof p.title, what).toBe('string');
  }
}

const ROUTES: [string, string][] = [
  ['GET', '/v1/app'],
  ['GET', '/v1/app/showcase'],
  ['GET', '/v1/app/verified'],
  ['GET', '/v1/app/{app}'],
  ['POST', '/v1/app/import/{app}'],
  ['GET', '/v1/template'],
  ['GET', '/v1/template/{template}'],
  ['GET', '/v1/template/{template}/banner'],
  ['GET', '/v1/template/{template}/logo'],
  ['GET', '/v1/package'],
  ['GET', '/v1/package/{package}'],
  ['GET', '/v1/package/{package}/download'],
  ['GET', '/v1/package/{package}/documentation/pdf'],
  ['POST', '/v1/package/create'],
  ['POST', '/v1/package/content/{package}'],
  ['POST', '/v1/package/content/{package}/finalize'],
  ['GET', '/v1/flow'],
  ['GET', '/v1/flow/{flow}'],
  ['POST', '/v1/flow/create'],
  ['POST', '/v1/flow/{flow}/add-deployment'],
  ['DELETE', '/v1/flow/{flow}'],
  ['GET', '/v1/flow/deployment/{deployment}'],
  ['DELETE', '/v1/flow/deployment/{deployment}'],
  ['POST', '/v1/flow/deployment/{deployment}/start'],
  ['POST', '/v1/flow/deployment/{deployment}/stop'],
  ['POST', '/v1/flow/deployment/{deployment}/refresh'],
  ['POST', '/v1/flow/deployment/{deployment}/skip-wave'],
  ['POST', '/v1/flow/deployment/{deployment}/update-content'],
  ['GET', '/v1/flow/wave/{wave}'],
  ['GET', '/v1/flow/wave/{wave}/live'],
  ['GET', '/v1/tenant'],
  ['GET', '/v1/tenant/{tenant}'],
  ['POST', '/v1/tenant/{tenant}/upload'],
  ['GET', '/v1/tenant/upload/{task}'],
  ['GET', '/v1/tenant/{tenant}/uploads'],
  ['GET', '/v1/tenant/{tenant}/radar'],
  ['GET', '/v1/tenant/{tenant}/radar/{radar}/devices'],
  ['GET', '/v1/tenant/{tenant}/radar/entry/{entry}/devices'],
];

const QUERY_KEYS = [
  'page',
  'itemsPerPage',
  'disablePaging',
  'search',
  'sortBy',
  'sortDesc',
  'index',
  'size',
  'offset',
  'chunk',
  'packageId',
  'appId',
  'version',
  'versionId',
  'scope',
  'scriptTemplateId',
  'wait',
  'format',
  'noScriptWrap',
  'tenants[]',
  'tenants',
  'showDeleted',
  'logo',
  'matched',
  'includeManaged',
  'deleteFromIntune',
  'uploadMsixAsWin32',
  'PAGE',
  'ItemsPerPage',
];
const NASTY_VALUES = [
  '0',
  '-1',
  '1',
  '2',
  '1000',
  '1001',
  '-9007199254740993',
  '99999999999999999999',
  '9007199254740993',
  '1e400',
  '-0',
  'NaN',
  'Infinity',
  '0x10',
  '1.5',
  'true',
  'false',
  'yes',
  '',
  ' ',
  '%',
  'machine',
  'user',
  'both',
  'IntuneWin',
  'toString',
  '__proto__',
  'constructor',
  'name',
  'created',
  '\u0000',
  'é✓',
];
const BAD_IDS = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  '%E0%A4%A',
  '%00',
  '%',
  '..',
  '%2e%2e',
  '%2F',
  'ＡＢＣ',
  'x'.repeat(3000),
  '12345678-1234-1234-1234-1234567890123',
  '{id}',
  '-1',
  '%25',
  '%C0%AF',
  '__proto__',
  'constructor',
];

interface Known {
  all: string[];
  byKind: Record<string, string[]>;
}

async function knownIds(sim: TestSim): Promise<Known> {
  const s = (await sim.admin('GET', '/_sim/state')) as {
    packages: { id: string }[];
    flows: { id: string }[];
    deployments: { id: string }[];
    uploads: { id: string }[];
  };
  const fx = (await sim.admin('GET', '/_sim/fixtures')) as { tenants: { id: string }[]; templates: { id: string }[] };
  const apps = (await sim.admin('GET', '/v1/app?disablePaging=true')) as { id: string }[];
  const flows = await Promise.all(s.flows.map(async (f) => (await sim.admin('GET', `/v1/flow/${f.id}`)) as { waves: { id: string }[] }));
  const tenant = fx.tenants[0]!.id;
  const radar = (await sim.admin('GET', `/v1/tenant/${tenant}/radar`)) as { id: string; entries?: { id: string }[] }[];
  const byKind: Record<string, string[]> = {
    app: apps.slice(0, 5).map((a) => a.id),
    template: fx.templates.map((t) => t.id),
    package: s.packages.map((p) => p.id),
    flow: s.flows.map((f) => f.id),
    deployment: s.deployments.map((d) => d.id),
    wave: flows.flatMap((f) => f.waves.map((w) => w.id)),
    tenant: fx.tenants.map((t) => t.id),
    task: s.uploads.map((u) => u.id),
    radar: radar.map((r) => r.id),
    entry: radar.flatMap((r) => (r.entries ?? []).map((e) => e.id)),
  };
  return { all: Object.values(byKind).flat(), byKind };
}

/** The account's invariants: references resolve, states are known, ids are unique. */
async function checkState(sim: TestSim): Promise<void> {
  const s = (await sim.admin('GET', '/_sim/state')) as {
    packages: { id: string; state: string }[];
    flows: { id: string; deleted: boolean }[];
    deployments: { id: string; flowId: string; packageId: string; status: string; currentWave: number; waveCount?: number }[];
    uploads: { id: string; packageId: string; state: string }[];
  };
  const ids = [...s.packages, ...s.flows, ...s.deployments, ...s.uploads].map((x) => x.id);
  expect(new Set(ids).size).toBe(ids.length);
  const pkgs = new Set(s.packages.map((p) => p.id));
  const flows = new Map(s.flows.map((f) => [f.id, f]));
  for (const p of s.packages) expect(PACKAGE_STATES as readonly string[]).toContain(p.state);
  for (const d of s.deployments) {
    expect(flows.get(d.flowId)?.deleted, `deployment ${d.id} of a live flow`).toBe(false);
    expect(pkgs.has(d.packageId)).toBe(true);
    expect(DEPLOYMENT_STATUSES as readonly string[]).toContain(d.status);
    expect(d.currentWave).toBeGreaterThanOrEqual(0);
    if (d.waveCount !== undefined) expect(d.currentWave).toBeLessThanOrEqual(d.waveCount);
  }
  for (const u of s.uploads) {
    expect(pkgs.has(u.packageId)).toBe(true);
    expect(TASK_STATES as readonly string[]).toContain(u.state);
  }
  // And the lists still answer.
  for (const path of [
    '/v1/package?disablePaging=true',
    '/v1/flow?disablePaging=true&showDeleted=true',
    '/v1/tenant',
    '/v1/app?itemsPerPage=5',
  ]) {
    expect(Array.isArray(await sim.admin('GET', path))).toBe(true);
  }
}

describe('the simulator under hostile requests', () => {
  let sim: TestSim;
  let known: Known;

  beforeAll(async () => {
    sim = await startTestSimulator({ maxBodyBytes: MAX_BODY });
    // A converged account, so ids of every kind exist to aim at.
    const repo = await writeRepo({ withCustom: true, wave: 2 });
    const r = await converge(sim.url, sim.key, repo, { concurrency: 4 });
    expect(r.converged, r.failures.join('; ')).toBe(true);
    known = await knownIds(sim);
  });

  afterAll(async () => {
    await sim.close();
  });

  it(`answers ${REQUESTS} random hostile requests with a 2xx or a 4xx problem+json, never a 500`, async () => {
    const c = client(sim.url, sim.key);
    const statuses: Record<string, number> = {};
    const id = (kind: string): fc.Arbitrary<string> =>
      fc.oneof(
        {
          weight: 4,
          arbitrary: fc.constantFrom(...(known.byKind[kind]?.length ? known.byKind[kind] : ['00000000-0000-0000-0000-000000000000'])),
        },
        { weight: 1, arbitrary: fc.constantFrom(...known.all).map((x) => x.toUpperCase()) },
        { weight: 2, arbitrary: fc.constantFrom(...known.all) },
        { weight: 1, arbitrary: fc.uuid() },
        { weight: 2, arbitrary: fc.constantFrom(...BAD_IDS) },
      );
    const route = fc.constantFrom(...ROUTES).chain(([method, pattern]) => {
      const slots = [...pattern.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      return fc.tuple(
        fc.oneof(
          { weight: 8, arbitrary: fc.constant(method) },
          { weight: 2, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS') },
        ),
        fc.tuple(...slots.map((s) => id(s))).map((vals) => {
          let i = 0;
          return pattern.replace(/\{\w+\}/g, () => {
            const v = vals[i++]!;
            // Ids of the bad list are sent as written (percent-broken ones included); others encoded.
            return BAD_IDS.includes(v) ? v.replace(/[^\x21-\x7e]/g, encodeURIComponent) : encodeURIComponent(v);
          });
        }),
      );
    });
    const queryValue = fc.oneof(
      fc.constantFrom(...NASTY_VALUES),
      fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
      fc.string({ maxLength: 12 }),
      fc.constantFrom(...known.all),
    );
    const query = fc
      .tuple(
        fc.dictionary(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ minLength: 1, maxLength: 6 })), queryValue, { maxKeys: 5 }),
        fc.boolean(),
      )
      .map(([q, broken]) => {
        const s = new URLSearchParams(q).toString();
        return (s ? `?${s}` : '') + (broken ? `${s ? '&' : '?'}%ZZ=%&a[=]&=x` : '');
      });
    const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(...known.all), fc.constantFrom(...NASTY_VALUES));
    const fields = [
      'name',
      'sourceType',
      'version',
      'publisher',
      'packageId',
      'appId',
      'patchGroupId',
      'templateId',
      'scriptTemplateId',
      'scope',
      'flags',
      'supersedenceHistoryCount',
      'startNow',
      'files',
      'detectionRules',
      'installCommand',
      'userContext',
      '__proto__',
      'constructor',
    ];
    const body = fc.option(
      fc
        .oneof(
          fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
          fc.dictionary(fc.constantFrom(...fields), anyValue, { maxKeys: 6 }).map((o) => Buffer.from(JSON.stringify(o))),
          fc
            .record({ files: fc.array(fc.record({ fileName: anyValue, fileSize: anyValue }, { requiredKeys: [] }), { maxLength: 4 }) })
            .map((o) => Buffer.from(JSON.stringify(o))),
          fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
          fc
            .constantFrom(
              '{',
              '{"a":',
              '[1,2',
              'null',
              '"str"',
              '\u0000',
              '{"__proto__": {"polluted": true}, "name": "p"}',
              '{"constructor": {"prototype": {"polluted": true}}}',
              `${'['.repeat(5000)}${']'.repeat(5000)}`,
            )
            .map((s) => Buffer.from(s)),
          fc.integer({ min: MAX_BODY - 16, max: MAX_BODY + 64 * 1024 }).map((n) => Buffer.alloc(n, 0x7b)),
        )
        .chain((b) => (b.length > 64 * 1024 ? fc.constantFrom(b, Buffer.from('{}')) : fc.constant(b))),
      { freq: 3 },
    );
    const contentType = fc.constantFrom(
      undefined,
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'text/plain',
      'application/octet-stream',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/problem+json',
      '',
    );

    await fc.assert(
      fc.asyncProperty(route, query, body, contentType, fc.boolean(), async ([method, path], q, b, ct, withKey) => {
        const what = `${method} ${path.slice(0, 200)}${q.slice(0, 200)}`;
        const a = await c.send(method, `${path}${q}`, b ?? undefined, ct, withKey || Math.random() < 0.97);
        statuses[String(a.status)] = (statuses[String(a.status)] ?? 0) + 1;
        checkAnswer(what, a);
        // The simulator shares this process: a polluted Object.prototype would show here.
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: REQUESTS, seed: Number(process.env.PACKSYNC_FUZZ_SEED ?? 20260105), endOnFailure: true },
    );
    c.close();
    await checkState(sim);
    await report('hostile-simulator', { requests: REQUESTS, statuses: Object.fromEntries(Object.entries(statuses).sort()) });
  });

  it('answers an oversized body with 413 problem+json, and the connection after it still works', async () => {
    const c = client(sim.url, sim.key);
    try {
      for (const size of [MAX_BODY + 1, 3 * MAX_BODY, MAX_BODY + 60 * 1024 * 1024]) {
        const a = await c.send('POST', '/v1/flow/create', Buffer.alloc(size, 0x20), 'application/json');
        expect(a.status).toBe(413);
        checkAnswer(`POST ${size} bytes`, a);
        // Keep-alive clients reuse sockets: the next call must not meet a reset.
        checkAnswer('GET after 413', await c.send('GET', '/v1/tenant'));
      }
    } finally {
      c.close();
    }
  });

  it('answers bad JSON, wrong content types, bad UUIDs and out-of-range paging with the right 4xx', async () => {
    const c = client(sim.url, sim.key);
    // A fresh flow: the random requests before may have deleted the converged ones.
    const flowId = json(await c.send('POST', '/v1/flow/create', Buffer.from('{"name": "Target"}'), 'application/json')) as string;
    const cases: [string, string, string | undefined, string | undefined, number][] = [
      ['POST', '/v1/flow/create', '{"name": "x"', 'application/json', 400],
      ['POST', '/v1/flow/create', '{"name": "x"}', 'text/plain', 400],
      ['POST', '/v1/flow/create', '[1, 2]', 'application/json', 400],
      ['POST', '/v1/flow/create', undefined, 'application/json', 400],
      ['POST', `/v1/flow/${flowId}/add-deployment`, '{"packageId": "not-a-uuid"}', 'application/json', 400],
      ['GET', '/v1/package/not-a-uuid', undefined, undefined, 404],
      ['GET', '/v1/package/%E0%A4%A', undefined, undefined, 404],
      ['GET', '/v1/flow/deployment/00000000-0000-0000-0000-000000000000', undefined, undefined, 404],
      // page=0 is the first page (docs/api-model.md: the vendor documents paging as 0-indexed).
      ['GET', '/v1/package?page=0', undefined, undefined, 200],
      ['GET', '/v1/package?page=-1', undefined, undefined, 400],
      ['GET', '/v1/package?itemsPerPage=1001', undefined, undefined, 400],
      ['GET', '/v1/package?itemsPerPage=-5', undefined, undefined, 400],
      ['GET', '/v1/package?page=1e400', undefined, undefined, 400],
      ['GET', '/v1/package?page=99999999999999999999', undefined, undefined, 400],
      // `Page` is int32 on the wire: its largest value is an empty page, one beyond it a 400.
      ['GET', '/v1/package?page=2147483647&itemsPerPage=1000', undefined, undefined, 200],
      ['GET', '/v1/package?page=9007199254740991&itemsPerPage=1000', undefined, undefined, 400],
      ['GET', '/v1/app?sortBy=__proto__', undefined, undefined, 400],
      ['PATCH', '/v1/package', undefined, undefined, 405],
    ];
    try {
      for (const [method, path, body, ct, expected] of cases) {
        const a = await c.send(method, path, body === undefined ? undefined : Buffer.from(body), ct);
        checkAnswer(`${method} ${path}`, a);
        expect(a.status, `${method} ${path}`).toBe(expected);
      }
      const noKey = await c.send('GET', '/v1/package', undefined, undefined, false);
      expect(noKey.status).toBe(401);
      checkAnswer('no key', noKey);
    } finally {
      c.close();
    }
  });

  it('serves documents of packages whose names are not ASCII (the header was a 500)', async () => {
    const c = client(sim.url, sim.key);
    try {
      const created = await c.send(
        'POST',
        '/v1/package/create',
        Buffer.from(JSON.stringify({ name: 'Café ✓ "quoted"\r\nX-Injected: 1', sourceType: 'msi', version: '1.0' })),
        'application/json',
      );
      checkAnswer('create', created);
      const id = (json(created) as { id: string }).id;
      const pdf = await c.send('GET', `/v1/package/${id}/documentation/pdf`);
      expect(pdf.status).toBe(200);
      expect(pdf.contentType).toBe('application/pdf');
    } finally {
      c.close();
    }
  });

  it(`keeps chunk uploads consistent through ${CHUNK_RUNS} random sequences of gaps, overlaps, repeats and restarts`, async () => {
    const c = client(sim.url, sim.key);
    type Kind =
      'append' | 'repeat' | 'restart' | 'gap' | 'overlap' | 'wrong-chunk' | 'size-mismatch' | 'negative-offset' | 'huge-size' | 'bad-index';
    const op = fc.record({
      kind: fc.constantFrom<Kind>(
        'append',
        'append',
        'append',
        'repeat',
        'restart',
        'gap',
        'overlap',
        'wrong-chunk',
        'size-mismatch',
        'negative-offset',
        'huge-size',
        'bad-index',
      ),
      index: fc.integer({ min: 0, max: 2 }),
      size: fc.integer({ min: 1, max: 16 }),
    });
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        runs++;
        const created = await c.send(
          'POST',
          '/v1/package/create',
          Buffer.from(JSON.stringify({ name: `Chunks ${runs}`, sourceType: 'zip', version: '1.0.0' })),
          'application/json',
        );
        const pkg = (json(created) as { id: string }).id;
        const model = new Map<number, { received: number; chunks: number; last: { offset: number; size: number; chunk: number } }>();
        for (const o of ops) {
          const f = model.get(o.index);
          let index: number = o.index;
          let offset = f?.received ?? 0;
          let chunk = f?.chunks ?? 0;
          let size = o.size;
          let bodyLength = size;
          let ok = true;
          switch (o.kind) {
            case 'append':
              break;
            case 'repeat':
              if (f) ({ offset, size, chunk } = f.last);
              bodyLength = size;
              break;
            case 'restart':
              offset = 0;
              chunk = 0;
              break;
            case 'gap':
              offset += 1 + o.size;
              ok = false;
              break;
            case 'overlap':
              if (f) offset = f.received - 1;
              else offset = 3;
              ok = false;
              break;
            case 'wrong-chunk':
              chunk += 1;
              ok = false;
              break;
            case 'size-mismatch':
              bodyLength = size + 1;
              ok = false;
              break;
            case 'negative-offset':
              offset = -1;
              ok = false;
              break;
            case 'huge-size':
              size = 99_999_999_999;
              ok = false;
              break;
            case 'bad-index':
              index = -1;
              ok = false;
              break;
          }
          const a = await c.send(
            'POST',
            `/v1/package/content/${pkg}?index=${index}&size=${size}&offset=${offset}&chunk=${chunk}`,
            Buffer.alloc(Math.min(bodyLength, 64), 0x61),
            'application/octet-stream',
          );
          checkAnswer(`chunk ${o.kind}`, a);
          expect(a.status, `${o.kind} index ${index} offset ${offset} chunk ${chunk} size ${size}: ${a.body.toString('utf8')}`).toBe(
            ok ? 200 : 400,
          );
          if (!ok) continue;
          if (offset === 0 && chunk === 0) model.set(index, { received: size, chunks: 1, last: { offset, size, chunk } });
          else if (f && offset === f.received && chunk === f.chunks)
            model.set(index, { received: f.received + size, chunks: f.chunks + 1, last: { offset, size, chunk } });
        }
        // Finalize with what the model says was received: it matches the bytes exactly when every
        // index from 0 up has content, and the package then completes; otherwise it ends in Error.
        const max = Math.max(-1, ...model.keys());
        const files = Array.from({ length: Math.max(1, max + 1) }, (_, i) => ({
          fileName: `f${i}.bin`,
          fileSize: model.get(i)?.received ?? 0,
        }));
        const complete = max >= 0 && files.every((_, i) => model.has(i));
        const fin = await c.send('POST', `/v1/package/content/${pkg}/finalize`, Buffer.from(JSON.stringify({ files })), 'application/json');
        checkAnswer('finalize', fin);
        expect(fin.status).toBe(200);
        // A repeated finalize (a lost answer) is accepted; a different one conflicts; bytes after it are refused.
        expect(
          (await c.send('POST', `/v1/package/content/${pkg}/finalize`, Buffer.from(JSON.stringify({ files })), 'application/json')).status,
        ).toBe(200);
        const other = await c.send(
          'POST',
          `/v1/package/content/${pkg}/finalize`,
          Buffer.from(JSON.stringify({ files: [{ fileName: 'other.bin', fileSize: 1 }] })),
          'application/json',
        );
        checkAnswer('second finalize', other);
        expect(other.status).toBe(409);
        const late = await c.send(
          'POST',
          `/v1/package/content/${pkg}?index=0&size=1&offset=0&chunk=0`,
          Buffer.from('a'),
          'application/octet-stream',
        );
        checkAnswer('chunk after finalize', late);
        expect(late.status).toBe(400);
        await sim.advance(3600);
        const after = json(await c.send('GET', `/v1/package/${pkg}`)) as { state: string };
        expect(after.state, JSON.stringify({ ops, files })).toBe(complete ? 'Completed' : 'Error');
      }),
      { numRuns: CHUNK_RUNS, seed: Number(process.env.PACKSYNC_FUZZ_SEED ?? 20260105), endOnFailure: true },
    );
    c.close();
    await checkState(sim);
    await report('hostile-simulator-chunks', { sequences: CHUNK_RUNS });
  });

  it('keeps one deployment consistent under conflicting calls at once', async () => {
    const c = client(sim.url, sim.key);
    try {
      const state = (await sim.admin('GET', '/_sim/state')) as {
        packages: { id: string; state: string; appId: string | null; isCustom: boolean }[];
      };
      const pkg = state.packages.find((p) => p.state === 'Completed' && !p.isCustom && p.appId)!;
      for (let round = 0; round < 5; round++) {
        const flow = json(
          await c.send(
            'POST',
            '/v1/flow/create',
            Buffer.from(JSON.stringify({ name: `Race ${round}`, appId: pkg.appId })),
            'application/json',
          ),
        ) as string;
        const dep = json(
          await c.send(
            'POST',
            `/v1/flow/${flow}/add-deployment`,
            Buffer.from(JSON.stringify({ packageId: pkg.id, startNow: true })),
            'application/json',
          ),
        ) as string;
        const calls: [string, string][] = [];
        for (let i = 0; i < 6; i++) {
          for (const action of ['start', 'stop', 'skip-wave', 'update-content', 'refresh'])
            calls.push(['POST', `/v1/flow/deployment/${dep}/${action}`]);
          calls.push(['GET', `/v1/flow/deployment/${dep}`]);
          calls.push(['POST', `/v1/flow/${flow}/add-deployment`]);
        }
        calls.push(['DELETE', `/v1/flow/deployment/${dep}`], ['DELETE', `/v1/flow/${flow}`], ['DELETE', `/v1/flow/${flow}`]);
        const answers = await Promise.all(
          calls
            .sort(() => Math.random() - 0.5)
            .map(([m, p]) =>
              c.send(
                m,
                p,
                p.endsWith('add-deployment') ? Buffer.from(JSON.stringify({ packageId: pkg.id })) : undefined,
                p.endsWith('add-deployment') ? 'application/json' : undefined,
              ),
            ),
        );
        answers.forEach((a, i) => checkAnswer(`${calls[i]![0]} ${calls[i]![1]}`, a));
        // The flow is gone whatever the order: it and every deployment in it.
        expect((await c.send('GET', `/v1/flow/deployment/${dep}`)).status).toBe(404);
        await checkState(sim);
      }
    } finally {
      c.close();
    }
  });
});
