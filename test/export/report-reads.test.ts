/**
 * What the report makes of its reads (docs/reports.md#what-it-reads) against the simulator: an owned
 * flow whose read fails is named and its rollouts are unknown, never taken for deleted.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/export/report-model.js';
import type { Inventory } from '../../src/state/inventory-types.js';
import { cli } from '../support/cli.js';
import { PILOT_FIRST, SEVEN_ZIP_PACKAGE, deploymentDoc, flowDoc, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import type { SimEnv } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';

const HOUR = 3600;
const KEY = 'Deployment/seven-zip-24-08';

let s: SimEnv;
useSim((x) => (s = x), { timeScale: 60 });

/** 7-Zip 24.08 through "Pilot first", its flow displayed as `display`; applied `passes` times, an hour apart. */
async function applied(o: { flags?: string; display?: string; passes?: number; more?: string[] } = {}): Promise<string> {
  const repo = await tempDir('packsync-repo-');
  const flow = [
    `patchGroup: ${PILOT_FIRST}`,
    `flags: [${o.flags ?? 'radarTracking'}]`,
    ...(o.display ? [`name: ${o.display}`] : []),
    ...(o.more ?? []),
  ];
  const yaml = yamlDocs(SEVEN_ZIP_PACKAGE, flowDoc('seven-zip', '7-Zip', flow), deploymentDoc('seven-zip-24-08', 'seven-zip', 'running'));
  await writeFile(join(repo, 'all.yaml'), yaml);
  for (let i = 0; i < (o.passes ?? 2); i++) await apply(repo);
  return repo;
}

async function apply(repo: string): Promise<void> {
  const r = await cli(['apply', '--auto-approve', repo], s.env);
  expect(r.code, r.stderr).toBe(0);
  await s.sim.advance(HOUR);
}

async function reportJson(): Promise<Report> {
  const out = await cli(['report', '--format', 'json', '--from', '2020-01-01'], s.env);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as Report;
}

async function inventory(): Promise<Inventory> {
  return JSON.parse(await readFile(join(s.stateDir, 'inventory.json'), 'utf8')) as Inventory;
}

describe('report reads', () => {
  it('failed-live-reads-silent: wave live counts and release times that cannot be read are named (stderr, missingReads, markdown), not silently left out', async () => {
    await applied();
    const good = await reportJson();
    expect(good.missingReads).toEqual([]);
    await s.sim.admin('PUT', '/_sim/faults', '5xx=1,method=GET,path=/live');
    const live = await cli(['report', '--format', 'json', '--from', '2020-01-01'], s.env);
    expect(live.code, live.stderr).toBe(0);
    expect(live.stderr).toMatch(/live counts of wave 1 of flow seven-zip could not be read/);
    expect((JSON.parse(live.stdout) as Report).missingReads).toContainEqual({
      what: 'live counts of wave 1 of flow seven-zip',
      error: expect.stringContaining('API_UNAVAILABLE') as string,
    });
    await s.sim.admin('PUT', '/_sim/faults', '5xx=1,method=GET,path=/v1/app/');
    const md = await cli(['report', '--format', 'markdown', '--from', '2020-01-01'], s.env);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/\*\*Could not be read:\*\* release times of 7-Zip \(API\\_UNAVAILABLE/);
  });

  it('failed-flow-read-not-deleted: a flow whose read fails is named, its rollouts are Unknown (not deleted), its app is not unmanaged', async () => {
    await applied();
    const flowId = Object.values((await inventory()).objects).find((e) => e.kind === 'Flow')!.id;
    const good = await reportJson();
    const radar = async (): Promise<string[]> => {
      const out = await cli(['radar', '--output', 'json'], s.env);
      expect(out.code, out.stderr).toBe(0);
      return (JSON.parse(out.stdout) as { apps: { tenant: string; name: string }[] }).apps.map((a) => `${a.tenant} ${a.name}`);
    };
    const goodRadar = await radar();
    await s.sim.admin('PUT', '/_sim/faults', `5xx=1,method=GET,path=/flow/${flowId}`);
    const out = await cli(['report', '--format', 'json', '--from', '2020-01-01'], s.env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain('flow seven-zip could not be read');
    const r = JSON.parse(out.stdout) as Report;
    expect(r.missingFlows).toEqual([{ flowId, flow: 'seven-zip', error: expect.stringContaining('API_UNAVAILABLE') as string }]);
    const rows = r.tenants.flatMap((t) => t.rollouts);
    expect(rows.length).toBe(good.tenants.flatMap((t) => t.rollouts).length);
    for (const x of rows) expect(x).toMatchObject({ deployment: KEY, status: 'Unknown' });
    // Its app is still covered by an owned flow: radar does not call it unmanaged.
    expect(r.tenants.flatMap((t) => t.radar).map((a) => a.name)).toEqual(good.tenants.flatMap((t) => t.radar).map((a) => a.name));
    expect(r.totals.rollouts).toBe(good.totals.rollouts);
    const md = await cli(['report', '--format', 'markdown', '--from', '2020-01-01'], s.env);
    expect(md.stdout).toContain('Flows could not be read');
    // `packsync radar` reads the owned flows the same way: an unread one's app is not listed as unmanaged.
    expect(await radar()).toEqual(goodRadar);
  });

  it('report-names-stable: deployment and flow name the manifest (not the display name) before and after the history records a rollout', async () => {
    const repo = await applied({
      flags: 'startNewVersionsAutomatically',
      display: '7-Zip (broad)',
      passes: 1,
      more: ['supersedenceHistoryCount: 2'],
    });
    await s.sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
    await s.sim.advance(HOUR);
    const rows = async (): Promise<string[]> =>
      [...new Set((await reportJson()).tenants.flatMap((t) => t.rollouts.map((x) => `${x.deployment} ${x.flow} ${x.version}`)))].sort();
    // Neither rollout is in the history yet: both are told from the live deployments.
    const before = await rows();
    expect(before).toEqual(['Deployment/seven-zip-24-08 seven-zip 24.08', 'Flow/seven-zip@24.09 seven-zip 24.09']);
    await apply(repo); // the history records both
    expect(await rows()).toEqual(before);
  });
});
