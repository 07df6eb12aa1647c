/** The simulator's state machines, driven over HTTP with the virtual clock. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { rawSim } from './http.js';
import type { Raw } from './http.js';

let s: Raw;
beforeEach(async () => {
  s = await rawSim({ timeScale: 1 });
});
afterEach(async () => {
  await s.sim.close();
});

const SEVEN_ZIP = fixtureId(1, 'app', '7-Zip');
const PILOT_FIRST = fixtureId(1, 'patch-group', 'Pilot first');
const advance = (seconds: number): Promise<unknown> => s.ok('POST', '/_sim/clock', { advanceSeconds: seconds });

async function importedPackage(version = '24.08'): Promise<string> {
  const id = await s.ok<string>('POST', `/v1/app/import/${SEVEN_ZIP}?version=${version}`);
  await advance(60);
  return id;
}

describe('simulator state machines', () => {
  it('imports a catalog app: Pending → Running → Completed on the virtual clock', async () => {
    const id = await s.ok<string>('POST', `/v1/app/import/${SEVEN_ZIP}?version=24.07&scope=user`);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await s.ok<{ state: string }>('GET', `/v1/package/${id}`)).state).toBe('Pending');
    await advance(5);
    expect((await s.ok<{ state: string }>('GET', `/v1/package/${id}`)).state).toBe('Running');
    await advance(60);
    const p = await s.ok<{
      state: string;
      productVersion: string;
      newVersionAvailable: boolean;
      userScope: boolean;
      machineScope: boolean;
    }>('GET', `/v1/package/${id}`);
    expect(p).toMatchObject({
      state: 'Completed',
      productVersion: '24.07',
      newVersionAvailable: true,
      userScope: true,
      machineScope: false,
    });
  });

  it('rejects an unknown version with a 400 naming the field and the available versions', async () => {
    const r = await s.call('POST', `/v1/app/import/${SEVEN_ZIP}?version=99`);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(r.json).toMatchObject({ status: 400, errors: { version: [expect.stringContaining('24.08, 24.07, 23.01')] } });
  });

  it('runs a deployment through the waves of its patch group, with skip-wave and stop/start', async () => {
    const pkg = await importedPackage();
    const flowId = await s.ok<string>('POST', '/v1/flow/create', { appId: SEVEN_ZIP, patchGroupId: PILOT_FIRST, flags: 16385 });
    const flow = await s.ok<{ waves: { id: string; delayHours: number }[]; name: string; flags: number }>('GET', `/v1/flow/${flowId}`);
    expect(flow.name).toBe('7-Zip');
    expect(flow.flags).toBe(16385);
    expect(flow.waves.map((w) => w.delayHours)).toEqual([24, 48, 72]);
    const depId = await s.ok<string>('POST', `/v1/flow/${flowId}/add-deployment`, { packageId: pkg, startNow: false });
    const dep = (): Promise<{ status: string; currentWave: number; waveCount: number }> => s.ok('GET', `/v1/flow/deployment/${depId}`);
    expect(await dep()).toMatchObject({ status: 'NotStarted', currentWave: 0, waveCount: 3 });
    expect((await s.call('POST', `/v1/flow/deployment/${depId}/stop`)).status).toBe(409);
    await s.ok('POST', `/v1/flow/deployment/${depId}/start`);
    expect((await s.call('POST', `/v1/flow/deployment/${depId}/start`)).status).toBe(409);
    expect(await dep()).toMatchObject({ status: 'Running', currentWave: 1 });
    await advance(25 * 3600);
    expect(await dep()).toMatchObject({ status: 'Running', currentWave: 2 });
    await s.ok('POST', `/v1/flow/deployment/${depId}/skip-wave`);
    expect(await dep()).toMatchObject({ currentWave: 3 });
    const wave = await s.ok<{ tenants: { status: string }[] }>('GET', `/v1/flow/wave/${flow.waves[2]!.id}`);
    expect(wave.tenants.every((t) => t.status === 'InProgress')).toBe(true);
    await s.ok('POST', `/v1/flow/deployment/${depId}/stop`);
    await advance(100 * 3600);
    expect(await dep()).toMatchObject({ status: 'Stopped', currentWave: 3 });
    await s.ok('POST', `/v1/flow/deployment/${depId}/start`);
    await advance(73 * 3600);
    expect(await dep()).toMatchObject({ status: 'Completed' });
    expect((await s.call('POST', `/v1/flow/deployment/${depId}/skip-wave`)).status).toBe(409);
  });

  it('refuses to deploy a package that is not Completed, and one of another app', async () => {
    const id = await s.ok<string>('POST', `/v1/app/import/${SEVEN_ZIP}`);
    const flowId = await s.ok<string>('POST', '/v1/flow/create', { appId: SEVEN_ZIP });
    expect((await s.call('POST', `/v1/flow/${flowId}/add-deployment`, { packageId: id })).status).toBe(409);
    const other = await s.ok<string>('POST', `/v1/app/import/${fixtureId(1, 'app', 'PowerShell 7')}`);
    await advance(60);
    const r = await s.call('POST', `/v1/flow/${flowId}/add-deployment`, { packageId: other });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ errors: { packageId: [expect.any(String)] } });
  });

  it('updates content in the background and refuses a second update while one runs', async () => {
    const pkg = await importedPackage();
    const flowId = await s.ok<string>('POST', '/v1/flow/create', { appId: SEVEN_ZIP });
    const depId = await s.ok<string>('POST', `/v1/flow/${flowId}/add-deployment`, { packageId: pkg, startNow: true });
    await s.ok('POST', `/v1/flow/deployment/${depId}/update-content`);
    expect((await s.call('POST', `/v1/flow/deployment/${depId}/update-content`)).status).toBe(409);
    expect((await s.ok<{ contentUpdateStatus: string }>('GET', `/v1/flow/deployment/${depId}`)).contentUpdateStatus).toBe('Running');
    await advance(61);
    expect((await s.ok<{ contentUpdateStatus: string }>('GET', `/v1/flow/deployment/${depId}`)).contentUpdateStatus).toBe('Completed');
  });

  it('deletes a flow softly (listed only with showDeleted) together with its deployments', async () => {
    const pkg = await importedPackage();
    const flowId = await s.ok<string>('POST', '/v1/flow/create', { appId: SEVEN_ZIP, name: 'Seven' });
    const depId = await s.ok<string>('POST', `/v1/flow/${flowId}/add-deployment`, { packageId: pkg });
    await s.ok('DELETE', `/v1/flow/${flowId}?deleteFromIntune=false`);
    expect(await s.ok<unknown[]>('GET', '/v1/flow')).toEqual([]);
    expect((await s.ok<{ deleted: boolean }[]>('GET', '/v1/flow?ShowDeleted=TRUE')).map((f) => f.deleted)).toEqual([true]);
    expect((await s.call('GET', `/v1/flow/deployment/${depId}`)).status).toBe(404);
    expect((await s.call('DELETE', `/v1/flow/${flowId}`)).status).toBe(404);
  });

  it('uploads to a tenant as a task that completes; wait=true blocks until it has', async () => {
    const pkg = await importedPackage();
    const fabrikam = fixtureId(1, 'tenant', 'fabrikam.onmicrosoft.com');
    const task = await s.ok<{ id: string; state: string; tenantId: string; packageId: string }>(
      'POST',
      `/v1/tenant/${fabrikam}/upload?packageId=${pkg}&uploadMsixAsWin32=true&wait=false`,
    );
    expect(task).toMatchObject({ state: 'Running', tenantId: fabrikam, packageId: pkg });
    await advance(41);
    expect((await s.ok<{ state: string }>('GET', `/v1/tenant/upload/${task.id}`)).state).toBe('Completed');
    const fast = await rawSim({ timeScale: 400 });
    try {
      const p2 = await fast.ok<string>('POST', `/v1/app/import/${SEVEN_ZIP}`);
      await fast.ok('POST', '/_sim/clock', { advanceSeconds: 60 });
      const waited = await fast.ok<{ state: string }>('POST', `/v1/tenant/${fabrikam}/upload?packageId=${p2}&wait=true`);
      expect(waited.state).toBe('Completed');
    } finally {
      await fast.sim.close();
    }
    expect((await s.ok<unknown[]>('GET', `/v1/tenant/${fabrikam}/uploads`)).length).toBe(1);
    const tailspin = fixtureId(1, 'tenant', 'tailspintoys.onmicrosoft.com');
    const failing = await s.ok<{ id: string; state: string }>('POST', `/v1/tenant/${tailspin}/upload?packageId=${pkg}`);
    expect(failing.state).toBe('Running');
    await advance(41);
    expect(await s.ok('GET', `/v1/tenant/upload/${failing.id}`)).toMatchObject({
      state: 'Error',
      errorDetails: expect.stringContaining('admin consent') as string,
    });
  });
});
