/**
 * Wire shapes where public evidence conflicts or a public client is strict (issue 11, docs/api-model.md):
 * the page base, `query` as an alias of `search`, the exact form of `X-Pagination`, bodiless POSTs
 * sent as `application/octet-stream`, and the three id answer forms.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIME_SCALE, runSimulatorCommand } from '../../src/simulator/cli.js';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { rawSim } from './http.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SEVEN_ZIP = fixtureId(1, 'app', '7-Zip');
const CONTOSO = fixtureId(1, 'tenant', 'contoso.onmicrosoft.com');

/** The raw response header lines, names as sent (fetch lowercases them). */
function rawHeaderLines(url: string, key: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { 'X-API-Key': key } }, (res) => {
      res.resume();
      const lines: string[] = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
      res.on('end', () => resolve(lines));
    })
      .on('error', reject)
      .end();
  });
}

/** A POST with no body but `Content-Type: application/octet-stream`, as aiohttp sends it for RoboPackCLI. */
function bodilessPost(url: string, key: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/octet-stream', Accept: 'application/json' },
  });
}

describe('simulator against the public evidence', () => {
  it('takes Page=0 and Page=1 both as the first page, answers page 1 in the header, and refuses a negative page', async () => {
    const s = await rawSim();
    try {
      const zero = await s.call('GET', '/v1/app?Page=0&ItemsPerPage=10&sortBy=name');
      const one = await s.call('GET', '/v1/app?Page=1&ItemsPerPage=10&sortBy=name');
      const two = await s.call('GET', '/v1/app?Page=2&ItemsPerPage=10&sortBy=name');
      const names = (r: { json: unknown }): string[] => (r.json as { name: string }[]).map((a) => a.name);
      expect(names(zero)).toHaveLength(10);
      expect(names(zero)).toEqual(names(one));
      expect(names(two).some((n) => names(one).includes(n))).toBe(false);
      expect(JSON.parse(zero.headers.get('x-pagination')!)).toEqual({
        totalCount: 25,
        itemsPerPage: 10,
        page: 1,
        totalPages: 3,
        hasNext: true,
        hasPrevious: false,
      });
      expect((await s.call('GET', '/v1/app?page=-1')).status).toBe(400);
    } finally {
      await s.sim.close();
    }
  });

  it('takes query= as an alias of search= (RoboPackCLI app-search)', async () => {
    const s = await rawSim();
    try {
      const byQuery = await s.ok<{ name: string }[]>('GET', '/v1/app?itemsPerPage=50&page=1&query=7-zip');
      const bySearch = await s.ok<{ name: string }[]>('GET', '/v1/app?search=7-zip');
      expect(byQuery.map((a) => a.name)).toEqual(['7-Zip']);
      expect(byQuery).toEqual(bySearch);
      expect(await s.ok<unknown[]>('GET', '/v1/flow?query=nothing-by-that-name')).toEqual([]);
    } finally {
      await s.sim.close();
    }
  });

  it('sends X-Pagination with exactly that name, as compact JSON a raw-line split on ": " leaves whole', async () => {
    const s = await rawSim();
    try {
      const lines = await rawHeaderLines(`${s.sim.url}/v1/app?itemsPerPage=3&page=2`, s.key);
      const line = lines.find((l) => l.toLowerCase().startsWith('x-pagination:'));
      expect(line).toBeDefined();
      const parts = line!.split(': ');
      expect(parts).toHaveLength(2);
      expect(parts[0]).toBe('X-Pagination');
      expect(parts[1]).toBe('{"totalCount":25,"itemsPerPage":3,"page":2,"totalPages":9,"hasNext":true,"hasPrevious":true}');
    } finally {
      await s.sim.close();
    }
  });

  it('accepts bodiless POSTs sent as application/octet-stream: import, tenant upload and deployment actions', async () => {
    const s = await rawSim();
    try {
      const imp = await bodilessPost(`${s.sim.url}/v1/app/import/${SEVEN_ZIP}?scope=machine`, s.key);
      expect(imp.status).toBe(200);
      const packageId = (await imp.json()) as string;
      await s.ok('POST', '/_sim/clock', { advanceSeconds: 60 });
      const up = await bodilessPost(
        `${s.sim.url}/v1/tenant/${CONTOSO}/upload?packageId=${packageId}&uploadAsWin32App=true&wait=false`,
        s.key,
      );
      expect(up.status).toBe(200);
      expect(((await up.json()) as { state: string }).state).toBe('Running');
      const flowId = await s.ok<string>('POST', '/v1/flow/create', { appId: SEVEN_ZIP, name: 'octet' });
      const deploymentId = await s.ok<string>('POST', `/v1/flow/${flowId}/add-deployment`, { packageId });
      // One wave ("All tenants"): skip-wave completes the deployment, so it comes last.
      const actions = ['start', 'refresh', 'update-content', 'stop', 'start', 'skip-wave'];
      const statuses: string[] = [];
      for (const action of actions)
        statuses.push(`${action} ${(await bodilessPost(`${s.sim.url}/v1/flow/deployment/${deploymentId}/${action}`, s.key)).status}`);
      expect(statuses).toEqual(actions.map((a) => `${a} 200`));
    } finally {
      await s.sim.close();
    }
  });

  it('answers an import id in the configured form: quoted JSON (default), {"id"}, or an unquoted text/plain UUID', async () => {
    const forms: Record<string, { contentType: string | null; body: string }> = {};
    for (const style of ['bare', 'object', 'text'] as const) {
      const s = await rawSim({ responseStyle: style });
      try {
        const r = await fetch(`${s.sim.url}/v1/app/import/${SEVEN_ZIP}`, {
          method: 'POST',
          headers: { 'X-API-Key': s.key, 'Content-Length': '0' },
        });
        expect(r.status).toBe(200);
        forms[style] = { contentType: r.headers.get('content-type'), body: await r.text() };
      } finally {
        await s.sim.close();
      }
    }
    expect(forms.bare!.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(forms.bare!.body)).toMatch(UUID);
    expect(forms.object!.contentType).toMatch(/^application\/json/);
    expect((JSON.parse(forms.object!.body) as { id: string }).id).toMatch(UUID);
    expect(forms.text!.contentType).toMatch(/^text\/plain/);
    expect(forms.text!.body).toMatch(UUID);
  });

  it('a standalone simulator runs at the default time scale unless told --time-scale 1, and its banner says which', async () => {
    const scales: Record<string, { printed: string; timeScale: number }> = {};
    for (const [label, timeScale] of [
      ['default', undefined],
      ['real', 1],
    ] as const) {
      const printed: string[] = [];
      const sim = await runSimulatorCommand({ port: 0, apiKeys: ['k'], seed: 1, fleet: 'none', ...(timeScale ? { timeScale } : {}) }, (l) =>
        printed.push(l),
      );
      try {
        const clock = (await (await fetch(`${sim.url}/_sim/clock`, { headers: { 'X-API-Key': 'k' } })).json()) as { timeScale: number };
        scales[label] = { printed: printed.join('\n').split('\n')[0]!, timeScale: clock.timeScale };
      } finally {
        await sim.close();
      }
    }
    expect(scales.default!.timeScale).toBe(DEFAULT_TIME_SCALE);
    expect(scales.default!.printed).toContain(
      `time x${DEFAULT_TIME_SCALE}: ${DEFAULT_TIME_SCALE} virtual seconds per real second, --time-scale 1 for real time`,
    );
    expect(scales.real!.timeScale).toBe(1);
    expect(scales.real!.printed).toContain('real time');
    expect(scales.real!.printed).not.toContain('time x');
  });
});
