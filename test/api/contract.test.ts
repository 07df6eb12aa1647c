/**
 * Contract: the real client against the real simulator, every one of the 38 operations, asserting
 * on the typed results and the simulator's journal. If client and simulator disagree on a path, a
 * query name or a shape, this fails (each side is also tested alone, so this is where drift shows).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/client.js';
import type { OperationName } from '../../src/api/operations.js';
import { OPERATIONS, routePattern } from '../../src/api/operation-table.js';
import type { RequestEvent } from '../../src/api/transport.js';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let api: ApiClient;
const called = new Set<string>();
const requests: RequestEvent[] = [];

beforeAll(async () => {
  sim = await startTestSimulator({ responseStyle: 'object' });
  api = createApiClient({
    baseUrl: `${sim.url}/v1`,
    apiKey: sim.key,
    onRequest: (e) => {
      called.add(e.operation);
      requests.push(e);
    },
  });
});
afterAll(async () => {
  await api.close();
  await sim.close();
});

const SEVEN_ZIP = fixtureId(1, 'app', '7-Zip');
const CONTOSO = fixtureId(1, 'tenant', 'contoso.onmicrosoft.com');
const TEMPLATE = fixtureId(1, 'template', 'Default (PSADT 3.10.2)');

describe('client ↔ simulator contract (all 38 operations)', () => {
  it('catalog, templates and tenants', async () => {
    const apps = await api.searchApps({ search: '7-zip', logo: true });
    expect(apps.items.map((a) => a.name)).toEqual(['7-Zip']);
    expect(apps.pagination).toMatchObject({ totalCount: 1, page: 1 });
    expect((await api.listShowcasedApps()).items.every((a) => a.showcased)).toBe(true);
    expect((await api.listVerifiedApps({ itemsPerPage: 5 })).items.length).toBe(5);
    const all: string[] = [];
    for await (const a of api.iterateAll('searchApps', {}, { itemsPerPage: 7 })) all.push(a.name);
    expect(all.length).toBe(25);
    expect((await api.getApp(SEVEN_ZIP)).versions.map((v) => v.version)).toEqual(['24.08', '24.07', '23.01']);
    expect((await api.listTemplates()).items.map((t) => t.name)).toContain('PSADT 4.0 (silent)');
    expect((await api.getTemplate(TEMPLATE)).scriptTemplate.companyName).toBe('Robopack');
    expect((await api.getTemplateBanner(TEMPLATE)).contentType).toBe('image/png');
    expect((await api.getTemplateLogo(TEMPLATE)).body.subarray(1, 4).toString()).toBe('PNG');
    expect((await api.listTenants()).items.map((t) => t.defaultDomain)).toContain('fabrikam.onmicrosoft.com');
    expect((await api.getTenant(CONTOSO)).intune.connected).toBe(true);
    const radar = (await api.listRadarApps(CONTOSO, { matched: true })).items;
    expect(radar.length).toBeGreaterThan(0);
    const devices = await api.listRadarAppDevices(CONTOSO, radar[0]!.id);
    expect(devices.length).toBe(radar[0]!.deviceCount);
    expect((await api.listRadarEntryDevices(CONTOSO, radar[0]!.entries[0]!.id)).length).toBe(radar[0]!.entries[0]!.deviceCount);
  });

  it('packages: import, custom create + chunked upload + finalize, download, documentation', async () => {
    const imported = await api.importApp(SEVEN_ZIP, { version: '24.07', scope: 1, scriptTemplateId: TEMPLATE });
    await sim.advance(60);
    const p = await api.getPackage(imported);
    expect(p).toMatchObject({ state: 'Completed', productVersion: '24.07', scriptTemplateId: TEMPLATE });
    expect((await api.listPackages({ appId: SEVEN_ZIP })).items.map((x) => x.id)).toEqual([imported]);
    expect((await api.downloadPackage(imported, { format: 1 })).fileName).toMatch(/psadt\.zip$/);
    expect((await api.getPackageDocumentationPdf(imported)).body.subarray(0, 5).toString()).toBe('%PDF-');

    const custom = await api.createPackage({
      name: 'Contract Tool',
      sourceType: 'zip',
      version: '2.0',
      installCommand: 'install.cmd',
      detectionRules: [{ type: 'file', path: 'C:\\T', fileName: 't.exe', operator: 5, targetVersion: '2.0' }],
    });
    expect(custom.state).toBe('WaitingForContent');
    const dir = await tempDir('packsync-content-');
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'big.bin'), Buffer.alloc(9 * 1024 * 1024 + 5, 3));
    await writeFile(join(dir, 'sub', 'small.txt'), 'hello\n');
    const files = await api.uploadContentDirectory(custom.id, dir, { chunkSize: 4 * 1024 * 1024 });
    expect(files).toEqual([
      { fileName: 'big.bin', fileSize: 9 * 1024 * 1024 + 5 },
      { fileName: 'sub/small.txt', fileSize: 6 },
    ]);
    expect((await api.getPackage(custom.id)).state).toBe('Processing');
    // Single-chunk and finalize calls directly, on a second package.
    const other = await api.createPackage({ name: 'Contract Tool 2', sourceType: 'msi' });
    await api.uploadContentChunk(other.id, { index: 0, size: 3, offset: 0, chunk: 0 }, Buffer.from('abc'));
    await api.finalizeContent(other.id, { files: [{ fileName: 'a.msi', fileSize: 3 }] });
    await sim.advance(60);
    expect((await api.getPackage(other.id)).state).toBe('Completed');
  });

  it('flows, deployments, waves and tenant uploads', async () => {
    const pkg = await api.importApp(SEVEN_ZIP, { version: '24.08' });
    await sim.advance(60);
    const flowId = await api.createFlow({
      appId: SEVEN_ZIP,
      patchGroupId: fixtureId(1, 'patch-group', 'Servers'),
      flags: 1 | 16384,
      supersedenceHistoryCount: 2,
    });
    const depId = await api.addDeployment(flowId, { packageId: pkg, startNow: false, version: '24.08' });
    const flow = await api.getFlow(flowId);
    expect(flow).toMatchObject({ name: '7-Zip', flags: 16385, supersedenceHistoryCount: 2 });
    expect(flow.waves.length).toBe(2);
    expect((await api.listFlows({ appId: SEVEN_ZIP, tenants: [CONTOSO] })).items.map((f) => f.id)).toEqual([flowId]);
    await api.startDeployment(depId);
    await api.refreshDeployment(depId);
    await api.skipWave(depId);
    expect(await api.getDeployment(depId)).toMatchObject({ status: 'Running', currentWave: 2, waveCount: 2 });
    await api.updateContent(depId);
    expect((await api.getDeployment(depId)).contentUpdateStatus).toBe('Running');
    await api.stopDeployment(depId);
    await expect(api.stopDeployment(depId)).rejects.toMatchObject({ code: 'API_CONFLICT', status: 409 });
    expect((await api.getWave(flow.waves[1]!.id)).tenants.length).toBeGreaterThan(0);
    expect((await api.getWaveLive(flow.waves[0]!.id)).deploymentId).toBe(depId);

    const task = await api.uploadToTenant(CONTOSO, { packageId: pkg, uploadMsixAsWin32: true, wait: false });
    expect(task).toMatchObject({ state: 'Running', tenantId: CONTOSO, packageId: pkg });
    await sim.advance(60);
    expect((await api.getUploadTask(task.id)).state).toBe('Completed');
    expect((await api.listTenantUploads(CONTOSO)).items.map((t) => t.id)).toContain(task.id);

    await api.deleteDeployment(depId, { deleteFromIntune: false });
    await expect(api.getDeployment(depId)).rejects.toMatchObject({ code: 'API_NOT_FOUND' });
    await api.deleteFlow(flowId, { deleteFromIntune: true });
    expect((await api.listFlows()).items.map((f) => f.id)).not.toContain(flowId);
    expect((await api.listFlows({ showDeleted: true })).items.map((f) => f.id)).toContain(flowId);
  });

  it('maps the simulator’s 401, 404, 400 and 409 to stable error codes with the problem details', async () => {
    const wrong = createApiClient({ baseUrl: sim.url, apiKey: 'not-a-key', retry: { maxAttempts: 1 } });
    try {
      const e = await wrong.listTenants().catch((x: unknown) => x);
      expect(e).toMatchObject({ code: 'API_UNAUTHORIZED', status: 401, operation: 'listTenants' });
      expect(String((e as Error).message)).not.toContain('not-a-key');
    } finally {
      await wrong.close();
    }
    await expect(api.getFlow(fixtureId(5, 'nothing', 'here'))).rejects.toMatchObject({ code: 'API_NOT_FOUND', status: 404 });
    const bad = await api.importApp(SEVEN_ZIP, { version: '0.0.1' }).catch((x: unknown) => x);
    expect(bad).toMatchObject({
      code: 'API_BAD_REQUEST',
      status: 400,
      problem: { errors: { version: [expect.stringContaining('24.08')] } },
    });
    await expect(api.createFlow({ name: 'x', supersedenceHistoryCount: 9 })).rejects.toMatchObject({ code: 'API_BAD_REQUEST' });
    await expect(api.searchApps({ itemsPerPage: 1001 })).rejects.toMatchObject({ code: 'API_BAD_REQUEST' });
  });

  it('advances waves with the virtual clock and completes the deployment after the last one', async () => {
    const pkg = await api.importApp(SEVEN_ZIP, { version: '23.01' });
    await sim.advance(60);
    const flowId = await api.createFlow({ appId: SEVEN_ZIP, name: 'Waves', patchGroupId: fixtureId(1, 'patch-group', 'Pilot first') });
    const dep = await api.addDeployment(flowId, { packageId: pkg, startNow: true });
    expect((await api.getDeployment(dep)).currentWave).toBe(1);
    await sim.advance(25 * 3600);
    expect((await api.getDeployment(dep)).currentWave).toBe(2);
    const flow = await api.getFlow(flowId);
    const live = await api.getWaveLive(flow.waves[1]!.id);
    await sim.advance(10 * 3600);
    const later = await api.getWaveLive(flow.waves[1]!.id);
    expect(later.tenants[0]!.installed).toBeGreaterThan(live.tenants[0]!.installed);
    await sim.advance(200 * 3600);
    expect(await api.getDeployment(dep)).toMatchObject({ status: 'Completed' });
    expect((await api.getWave(flow.waves[2]!.id)).tenants.every((t) => t.status === 'Completed')).toBe(true);
  });

  it('called every one of the 38 operations, and the journal saw no 5xx', async () => {
    const all: OperationName[] = [
      'searchApps',
      'listShowcasedApps',
      'listVerifiedApps',
      'getApp',
      'importApp',
      'listTemplates',
      'getTemplate',
      'getTemplateBanner',
      'getTemplateLogo',
      'listPackages',
      'getPackage',
      'downloadPackage',
      'getPackageDocumentationPdf',
      'createPackage',
      'uploadContentChunk',
      'finalizeContent',
      'listFlows',
      'getFlow',
      'createFlow',
      'addDeployment',
      'deleteFlow',
      'getDeployment',
      'deleteDeployment',
      'startDeployment',
      'stopDeployment',
      'refreshDeployment',
      'skipWave',
      'updateContent',
      'getWave',
      'getWaveLive',
      'listTenants',
      'getTenant',
      'uploadToTenant',
      'getUploadTask',
      'listTenantUploads',
      'listRadarApps',
      'listRadarAppDevices',
      'listRadarEntryDevices',
    ];
    expect(all.length).toBe(38);
    expect(all.filter((op) => !called.has(op))).toEqual([]);
    expect((await sim.journal()).filter((e) => e.status >= 500)).toEqual([]);
  });

  it('sent every request with the method and route of the operation table', () => {
    const off = requests.filter((e) => {
      const spec = OPERATIONS[e.operation as OperationName];
      return !spec || spec.method !== e.method || !routePattern(spec.path).test(e.path);
    });
    expect(off.map((e) => `${e.operation}: ${e.method} ${e.path}`)).toEqual([]);
    expect([...called].sort()).toEqual(Object.keys(OPERATIONS).sort());
  });
});
