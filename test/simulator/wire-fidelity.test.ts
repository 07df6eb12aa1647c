/** Small wire-fidelity regressions: each test is named after what broke. */
import { describe, expect, it } from 'vitest';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { rawSim } from './http.js';

describe('simulator wire fidelity', () => {
  it('package-create-sourcetype-optional: creates a package from a body with only name (regression: 400 without sourceType)', async () => {
    const s = await rawSim();
    try {
      const r = await s.call('POST', '/v1/package/create', { name: 'x' });
      expect(r.status, r.text).toBe(200);
      const id = typeof r.json === 'string' ? r.json : (r.json as { id: string }).id;
      const details = await s.ok<{ sourceType: unknown; productName: string }>('GET', `/v1/package/${id}`);
      expect(details).toMatchObject({ productName: 'x', sourceType: null });
      const bad = await s.call('POST', '/v1/package/create', { name: 'y', sourceType: 'tar' });
      expect(bad.status).toBe(400);
      expect(bad.text).toMatch(/sourceType must be one of msi, exe, zip/);
    } finally {
      await s.sim.close();
    }
  });
});

describe('simulator paging bounds', () => {
  it('page-int32-bound: answers 400 for a page beyond int32 and names the int32 bound (regression: page=2147483648 answered 200)', async () => {
    const s = await rawSim();
    try {
      const over = await s.call('GET', '/v1/app?page=2147483648&itemsPerPage=1');
      expect(over.status).toBe(400);
      expect(over.text).toMatch(/between 0 and 2147483647/);
      const negative = await s.call('GET', '/v1/app?page=-1');
      expect(negative.status).toBe(400);
      expect(negative.text).toMatch(/between 0 and 2147483647/);
      expect((await s.call('GET', '/v1/app?page=2147483647&itemsPerPage=1')).status).toBe(200);
    } finally {
      await s.sim.close();
    }
  });
});

describe('simulator route case', () => {
  it('route-prefix-any-case: matches /V1/... as /v1/... (regression: /V1/tenant answered 404 "No route")', async () => {
    const s = await rawSim();
    try {
      const lower = await s.call('GET', '/v1/tenant');
      const upper = await s.call('GET', '/V1/TENANT');
      expect(upper.status, upper.text).toBe(200);
      expect(upper.json).toEqual(lower.json);
      expect((await s.call('GET', '/V1/nothing')).status).toBe(404);
    } finally {
      await s.sim.close();
    }
  });
});

describe('simulator 405', () => {
  it('method-not-allowed-allow-header: a 405 carries Allow with the methods the path supports (regression: no Allow header)', async () => {
    const s = await rawSim();
    try {
      const put = await s.call('PUT', '/v1/flow/create', {});
      expect(put.status).toBe(405);
      const allow = (put.headers.get('allow') ?? '').split(/,\s*/);
      expect(allow).toContain('POST');
      expect(allow).not.toContain('PUT');
      const del = await s.call('DELETE', '/v1/tenant');
      expect(del.status).toBe(405);
      expect(del.headers.get('allow')).toBe('GET');
    } finally {
      await s.sim.close();
    }
  });
});

describe('simulator journal', () => {
  it('journal-writes-excludes-head-options: ?writes=true keeps only POST/PUT/PATCH/DELETE (regression: HEAD and OPTIONS were listed)', async () => {
    const s = await rawSim();
    try {
      await s.call('HEAD', '/v1/tenant');
      await s.call('OPTIONS', '/v1/tenant');
      await s.call('GET', '/v1/tenant');
      await s.call('POST', '/v1/flow/create', { name: 'W' });
      const writes = await s.ok<{ method: string }[]>('GET', '/_sim/journal?writes=true');
      expect(writes.map((e) => e.method)).toEqual(['POST']);
      const all = await s.ok<{ method: string }[]>('GET', '/_sim/journal');
      expect(all.map((e) => e.method)).toEqual(['HEAD', 'OPTIONS', 'GET', 'POST']);
    } finally {
      await s.sim.close();
    }
  });
});

describe('simulator state dump', () => {
  it("state-dump-computed-latest: /_sim/state shows a package's latestVersion as GET /v1/package/{id} does (regression: stale stored value after a release)", async () => {
    const s = await rawSim();
    try {
      const appId = fixtureId(1, 'app', '7-Zip');
      const imported = await s.call('POST', `/v1/app/import/${appId}?version=24.08&scope=1`);
      expect(imported.status, imported.text).toBe(200);
      const pkg = { id: typeof imported.json === 'string' ? imported.json : (imported.json as { id: string }).id };
      expect((await s.call('POST', '/_sim/releases', { app: '7-Zip', version: '24.10' })).status).toBe(201);
      const api = await s.ok<{ latestVersion: string; newVersionAvailable: boolean }>('GET', `/v1/package/${pkg.id}`);
      expect(api).toMatchObject({ latestVersion: '24.10', newVersionAvailable: true });
      const state = await s.ok<{ packages: { id: string; latestVersion: string; newVersionAvailable: boolean }[] }>('GET', '/_sim/state');
      expect(state.packages.find((p) => p.id === pkg.id)).toMatchObject({ latestVersion: '24.10', newVersionAvailable: true });
    } finally {
      await s.sim.close();
    }
  });
});

describe('simulator skipped waves', () => {
  it('skip-wave-marks-skipped: a skipped wave shows tenants Skipped and WaveFlags skipped/current (regression: Completed and flags 0)', async () => {
    const s = await rawSim();
    try {
      const app = fixtureId(1, 'app', '7-Zip');
      const pkg = await s.ok<string>('POST', `/v1/app/import/${app}?version=24.08&scope=1`);
      await s.ok('POST', '/_sim/clock', { advanceSeconds: 60 });
      const patchGroupId = fixtureId(1, 'patch-group', 'Pilot first');
      const flowId = await s.ok<string>('POST', '/v1/flow/create', { appId: app, patchGroupId });
      const flow = await s.ok<{ waves: { id: string }[] }>('GET', `/v1/flow/${flowId}`);
      const depId = await s.ok<string>('POST', `/v1/flow/${flowId}/add-deployment`, { packageId: pkg, startNow: true });
      await s.ok('POST', `/v1/flow/deployment/${depId}/skip-wave`);
      const waves = await Promise.all(
        flow.waves.map((w) => s.ok<{ flags: number; tenants: { status: string }[] }>('GET', `/v1/flow/wave/${w.id}`)),
      );
      expect(waves.map((w) => w.flags)).toEqual([8, 4, 0]);
      expect(waves[0]!.tenants.every((t) => t.status === 'Skipped')).toBe(true);
      expect(waves[1]!.tenants.every((t) => t.status === 'InProgress')).toBe(true);
      expect(waves[2]!.tenants.every((t) => t.status === 'Pending')).toBe(true);
    } finally {
      await s.sim.close();
    }
  });
});
