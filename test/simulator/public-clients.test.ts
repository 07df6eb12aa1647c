/**
 * The request shapes public clients of the real API send (docs/api-model.md), replayed raw against
 * the simulator: RobopackPS's PascalCase paging keys and `tenants[]`, EUCToolbox's search loop over
 * `totalPages` and its bodiless POSTs with `Content-Length: 0`, RoboPackCLI's `sortDescending`, and
 * RobopackPS's publish sequence (create → 4 MiB octet-stream chunks → finalize), and RoboPackCLI's
 * search → import → `tenant-upload --wait` against a standalone simulator at its default time scale.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIME_SCALE, runSimulatorCommand } from '../../src/simulator/cli.js';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { rawSim } from './http.js';

describe('public client request shapes', () => {
  it('EUCToolbox: search pages by totalPages with logo=true, imports with an empty body, uploads to a tenant', async () => {
    const s = await rawSim();
    try {
      const seen: string[] = [];
      let page = 1;
      let totalPages = 1;
      do {
        const r = await s.call('GET', `/v1/app?search=o&logo=true&page=${page}`);
        totalPages = (JSON.parse(r.headers.get('x-pagination')!) as { totalPages: number }).totalPages;
        seen.push(...(r.json as { name: string; publisherName: string; logoData: string }[]).map((a) => a.name));
        page++;
      } while (page <= totalPages);
      expect(seen).toContain('7-Zip');
      const imp = await fetch(`${s.sim.url}/v1/app/import/${fixtureId(1, 'app', 'Notepad++')}`, {
        method: 'POST',
        headers: { 'X-API-Key': s.key, 'Content-Length': '0' },
      });
      expect(imp.status).toBe(200);
      const packageId = (await imp.json()) as string;
      await s.ok('POST', '/_sim/clock', { advanceSeconds: 60 });
      const up = await fetch(
        `${s.sim.url}/v1/tenant/${fixtureId(1, 'tenant', 'contoso.onmicrosoft.com')}/upload?packageId=${packageId}&uploadMsixAsWin32=true&wait=false`,
        {
          method: 'POST',
          headers: { 'X-API-Key': s.key, 'Content-Length': '0' },
        },
      );
      expect(((await up.json()) as { state: string }).state).toBe('Running');
    } finally {
      await s.sim.close();
    }
  });

  it('RobopackPS: PascalCase paging keys, tenants[] repeated, flow create with scope int and flags bitmask', async () => {
    const s = await rawSim();
    try {
      const r = await s.call('GET', '/v1/package?Search=&SortBy=ProductVersion&SortDesc=true&Page=1&ItemsPerPage=50&DisablePaging=false');
      expect(r.status).toBe(200);
      const id = await s.ok<string>('POST', '/v1/flow/create', {
        appId: fixtureId(1, 'app', '7-Zip'),
        scope: 1,
        flags: 16645,
        supersedenceHistoryCount: 2,
        name: 'PS flow',
      });
      const contoso = fixtureId(1, 'tenant', 'contoso.onmicrosoft.com');
      const northwind = fixtureId(1, 'tenant', 'northwindtraders.onmicrosoft.com');
      const flows = await s.ok<{ id: string }[]>(
        'GET',
        `/v1/flow?tenants[]=${contoso}&tenants[]=${northwind}&showDeleted=false&page=1&itemsPerPage=100`,
      );
      expect(flows.map((f) => f.id)).toEqual([id]);
    } finally {
      await s.sim.close();
    }
  });

  it('RoboPackCLI: sortDescending and a template list with paging parameters', async () => {
    const s = await rawSim();
    try {
      const apps = await s.ok<{ name: string }[]>('GET', '/v1/app?sortBy=name&sortDescending=true&disablePaging=true');
      expect(apps[0]!.name).toBe('Zoom Workplace');
      const t = await s.call('GET', '/v1/template?page=1&itemsPerPage=50');
      expect((t.json as { name: string }[]).map((x) => x.name)).toContain('Default (PSADT 3.10.2)');
    } finally {
      await s.sim.close();
    }
  });

  it('RobopackPS publish: create, sequential 4 MiB octet-stream chunks per sorted file, finalize, then Completed', async () => {
    const s = await rawSim();
    try {
      const created = await s.ok<{ id: string }>('POST', '/v1/package/create', {
        name: 'PS Tool',
        sourceType: 'msi',
        publisher: 'Contoso',
        version: '3.1',
        userContext: false,
        runAnalysis: true,
      });
      const files = [
        { fileName: 'Files/setup.msi', bytes: Buffer.alloc(4 * 1048576 + 10, 9) },
        { fileName: 'Files/sub/readme.txt', bytes: Buffer.from('read me\n') },
      ];
      for (const [index, f] of files.entries()) {
        for (let offset = 0, chunk = 0; offset < f.bytes.length; offset += 4 * 1048576, chunk++) {
          const part = f.bytes.subarray(offset, offset + 4 * 1048576);
          const r = await s.call(
            'POST',
            `/v1/package/content/${created.id}?index=${index}&size=${part.length}&offset=${offset}&chunk=${chunk}`,
            part,
          );
          expect(r.status).toBe(200);
        }
      }
      await s.ok('POST', `/v1/package/content/${created.id}/finalize`, {
        files: files.map((f) => ({ fileName: f.fileName, fileSize: f.bytes.length })),
      });
      await s.ok('POST', '/_sim/clock', { advanceSeconds: 60 });
      expect(await s.ok<{ state: string; size: number }>('GET', `/v1/package/${created.id}`)).toMatchObject({
        state: 'Completed',
        size: 4 * 1048576 + 18,
      });
    } finally {
      await s.sim.close();
    }
  });

  it('RoboPackCLI at the standalone default time scale: query= search, octet-stream bodiless import, tenant-upload --wait well inside its 30 s timeout', async () => {
    const printed: string[] = [];
    const key = 'robopackcli-key';
    const sim = await runSimulatorCommand({ port: 0, apiKeys: [key], seed: 1, fleet: 'small' }, (line) => printed.push(line));
    // aiohttp's headers for RoboPackCLI's _request_json: a POST without json= has no body but an octet-stream type.
    const headers = { 'X-API-Key': key, Accept: 'application/json' };
    const post = (path: string): Promise<Response> =>
      fetch(`${sim.url}/v1${path}`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/octet-stream' } });
    try {
      expect(DEFAULT_TIME_SCALE).toBe(600);
      expect(printed.join('\n')).toContain('time x600: 600 virtual seconds per real second, --time-scale 1 for real time');
      const search = await fetch(`${sim.url}/v1/app?itemsPerPage=50&page=1&query=PowerShell`, { headers });
      const apps = (await search.json()) as { id: string; name: string }[];
      expect(apps.map((a) => a.name)).toEqual(['PowerShell 7']);
      const imp = await post(`/app/import/${apps[0]!.id}?scope=machine`);
      expect(imp.status).toBe(200);
      const packageId = (await imp.json()) as string;
      // RoboPackCLI has no wait for import; its README has the user re-run package-get.
      let state = '';
      for (const started = Date.now(); state !== 'Completed' && Date.now() - started < 10_000;) {
        state = ((await (await fetch(`${sim.url}/v1/package/${packageId}`, { headers })).json()) as { state: string }).state;
        if (state !== 'Completed') await new Promise((r) => setTimeout(r, 20));
      }
      expect(state).toBe('Completed');
      const started = Date.now();
      const up = await post(
        `/tenant/${fixtureId(1, 'tenant', 'contoso.onmicrosoft.com')}/upload?packageId=${packageId}&uploadAsWin32App=true&wait=true`,
      );
      const elapsed = Date.now() - started;
      expect(up.status).toBe(200);
      expect((await up.json()) as { state: string; completedAt: string | null }).toMatchObject({ state: 'Completed' });
      // 40 virtual seconds; at time scale 1 this request was held 40 s and RoboPackCLI gave up at 30 s.
      expect(elapsed).toBeLessThan(30_000);
      expect(elapsed).toBeLessThan(5_000);
    } finally {
      await sim.close();
    }
  });
});
