/**
 * Catalog releases in the simulator (docs/api-model.md, "Releases"), over HTTP: `POST /_sim/releases`
 * publishes a version everywhere the service shows one, `GET /_sim/releases` lists them, flows with
 * `startNewVersionsAutomatically` import and start it by themselves after the import's virtual
 * minutes (stopping or keeping the running one, trimming history), and `--release-every` publishes
 * the same releases for the same seed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/client.js';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const SEVEN_ZIP = fixtureId(1, 'app', '7-Zip');
const PILOT_FIRST = fixtureId(1, 'patch-group', 'Pilot first');
const open: { sim: TestSim; api: ApiClient }[] = [];

async function start(opts: Parameters<typeof startTestSimulator>[0] = {}): Promise<{ sim: TestSim; api: ApiClient }> {
  const sim = await startTestSimulator(opts);
  const api = createApiClient({ baseUrl: `${sim.url}/v1`, apiKey: sim.key });
  open.push({ sim, api });
  return { sim, api };
}
afterEach(async () => {
  for (const { sim, api } of open.splice(0)) {
    await api.close();
    await sim.close();
  }
});

async function post(sim: TestSim, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${sim.url}/_sim/releases`, {
    method: 'POST',
    headers: { 'X-API-Key': sim.key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** A flow on 7-Zip with one deployment of 24.08 running, as packsync would have made it. */
async function runningFlow(api: ApiClient, sim: TestSim, flags: string[], supersedenceHistoryCount = 2): Promise<string> {
  const pkg = await api.importApp(SEVEN_ZIP, { version: '24.08', scope: 1 });
  await sim.advance(60);
  const flowId = await api.createFlow({
    name: '7-Zip',
    patchGroupId: PILOT_FIRST,
    appId: SEVEN_ZIP,
    scope: 1,
    flags: flags as never,
    supersedenceHistoryCount,
  });
  await api.addDeployment(flowId, { packageId: pkg, startNow: true });
  return flowId;
}

describe('POST /_sim/releases', () => {
  it('shows the version in the app details (newest first, with its release time), the app list and the packages of the app', async () => {
    const { sim, api } = await start();
    const pkg = await api.importApp(SEVEN_ZIP, { version: '24.08', scope: 1 });
    await sim.advance(60);
    expect((await api.getPackage(pkg)).newVersionAvailable).toBe(false);
    const now = Date.parse(((await sim.admin('GET', '/_sim/clock')) as { now: string }).now);
    const releasedAt = new Date(now - 2 * 86_400_000).toISOString();
    const r = await post(sim, { app: '7-Zip', version: '24.09', releasedAt });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ app: '7-Zip', version: '24.09' });
    const details = await api.getApp(SEVEN_ZIP);
    expect(details.versions.map((v) => v.version)).toEqual(['24.09', '24.08', '24.07', '23.01']);
    expect(Date.parse(details.versions[0]!.createdDate.replace(/(\.\d{3})\d+/, '$1'))).toBe(Date.parse(releasedAt));
    expect(details.latestVersion).toBe('24.09');
    expect((await api.searchApps({ search: '7-zip' })).items[0]!.latestVersion).toBe('24.09');
    const p = await api.getPackage(pkg);
    expect([p.newVersionAvailable, p.latestVersion]).toEqual([true, '24.09']);
    expect((await api.listPackages({ appId: SEVEN_ZIP })).items[0]).toMatchObject({ newVersionAvailable: true, latestVersion: '24.09' });
    expect(await sim.admin('GET', '/_sim/releases')).toEqual([
      expect.objectContaining({ appId: SEVEN_ZIP, version: '24.09', scheduled: false }),
    ]);
    // The new version can be imported like any other.
    expect(await api.importApp(SEVEN_ZIP, { version: '24.09', scope: 1 })).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a missing field (400 naming it), an unknown app (404), a version the app has (409) and a release in the future (400)', async () => {
    const { sim } = await start();
    const missing = await post(sim, { version: '1' });
    expect([missing.status, Object.keys(missing.json.errors as object)]).toEqual([400, ['app']]);
    expect((await post(sim, { app: '7-Zip' })).status).toBe(400);
    expect((await post(sim, { app: 'No Such App', version: '1' })).status).toBe(404);
    expect((await post(sim, { app: '7-Zip', version: '24.08' })).status).toBe(409);
    const future = await post(sim, { app: SEVEN_ZIP, version: '99.0', releasedAt: '2999-01-01T00:00:00Z' });
    expect([future.status, Object.keys(future.json.errors as object)]).toEqual([400, ['releasedAt']]);
    expect(await sim.admin('GET', '/_sim/releases')).toEqual([]);
  });
});

describe('flows that start new versions automatically', () => {
  const deploymentsOf = async (sim: TestSim, flowId: string): Promise<{ version: string; status: string; currentWave: number }[]> =>
    (await sim.state()).deployments.filter((d) => d.flowId === flowId);

  it('import the release and start it at wave 1 once the import had its minutes, stopping the running one', async () => {
    const { sim, api } = await start();
    const auto = await runningFlow(api, sim, ['startNewVersionsAutomatically', 'stopCurrentAndStartNew']);
    expect((await post(sim, { app: '7-Zip', version: '24.09' })).status).toBe(201);
    await sim.advance(60);
    const after = await deploymentsOf(sim, auto);
    expect(after.map((d) => [d.version, d.status, d.currentWave])).toEqual([
      ['24.08', 'Stopped', 1],
      ['24.09', 'Running', 1],
    ]);
    const pkgs = (await api.listPackages({ appId: SEVEN_ZIP })).items.map((p) => [p.productVersion, p.state]);
    expect(pkgs).toContainEqual(['24.09', 'Completed']);
  });

  it('keep the running one with runAlongsideCurrent, and remove deployments beyond supersedenceHistoryCount, oldest first', async () => {
    const { sim, api } = await start();
    const flow = await runningFlow(api, sim, ['startNewVersionsAutomatically', 'runAlongsideCurrent'], 1);
    await post(sim, { app: '7-Zip', version: '24.09' });
    await sim.advance(60);
    expect((await deploymentsOf(sim, flow)).map((d) => [d.version, d.status])).toEqual([
      ['24.08', 'Running'],
      ['24.09', 'Running'],
    ]);
    await post(sim, { app: '7-Zip', version: '24.10' });
    await sim.advance(60);
    expect((await deploymentsOf(sim, flow)).map((d) => d.version)).toEqual(['24.09', '24.10']);
  });

  it('never roll back: a release for an older line is listed but is not the latest, and no flow starts it (regression: 23.02 published after 24.08 replaced the running 24.08)', async () => {
    const { sim, api } = await start();
    const auto = await runningFlow(api, sim, ['startNewVersionsAutomatically', 'stopCurrentAndStartNew']);
    const pkg = (await api.listPackages({ appId: SEVEN_ZIP })).items[0]!.id;
    expect((await post(sim, { app: '7-Zip', version: '23.02' })).status).toBe(201);
    await sim.advance(3600);
    const details = await api.getApp(SEVEN_ZIP);
    // Listed by release time, newest release first; the latest is still the highest version.
    expect(details.versions.map((v) => v.version)).toEqual(['23.02', '24.08', '24.07', '23.01']);
    expect(details.latestVersion).toBe('24.08');
    expect((await api.searchApps({ search: '7-zip' })).items[0]!.latestVersion).toBe('24.08');
    expect(await api.getPackage(pkg)).toMatchObject({ newVersionAvailable: false, latestVersion: '24.08' });
    expect((await deploymentsOf(sim, auto)).map((d) => [d.version, d.status])).toEqual([['24.08', 'Running']]);
    // An import without a version takes the latest, not the newest release.
    const latest = await api.importApp(SEVEN_ZIP, { scope: 1 });
    expect((await api.getPackage(latest)).productVersion).toBe('24.08');
  });

  it('do nothing without the flag', async () => {
    const { sim, api } = await start();
    const manual = await runningFlow(api, sim, []);
    const writes = (await sim.journal(true)).length;
    await post(sim, { app: '7-Zip', version: '24.09' });
    await sim.advance(3600);
    expect((await deploymentsOf(sim, manual)).map((d) => d.version)).toEqual(['24.08']);
    expect((await api.listPackages({ appId: SEVEN_ZIP })).items.map((p) => p.productVersion)).toEqual(['24.08']);
    expect((await sim.journal(true)).length).toBe(writes + 0);
  });
});

describe('--release-every', () => {
  it('publishes one release per tick of virtual time, the same ones for the same seed', async () => {
    const a = await start({ releaseEveryMs: 86_400_000 });
    const b = await start({ releaseEveryMs: 86_400_000 });
    await a.sim.admin('GET', '/_sim/releases');
    await b.sim.admin('GET', '/_sim/releases');
    await a.sim.advance(3 * 86_400 + 60);
    await b.sim.advance(3 * 86_400 + 60);
    const ra = (await a.sim.admin('GET', '/_sim/releases')) as { app: string; version: string; scheduled: boolean }[];
    const rb = (await b.sim.admin('GET', '/_sim/releases')) as { app: string; version: string }[];
    expect(ra).toHaveLength(3);
    expect(ra.every((r) => r.scheduled)).toBe(true);
    expect(ra.map((r) => [r.app, r.version])).toEqual(rb.map((r) => [r.app, r.version]));
    for (const r of ra) {
      const app = (await a.api.searchApps({ search: r.app })).items.find((x) => x.name === r.app);
      expect(app?.latestVersion).toBeDefined();
    }
  });
});
