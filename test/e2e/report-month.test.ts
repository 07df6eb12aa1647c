/**
 * A month of the patch stream in `packsync report` (issue 24 "Done when", issue 22): three catalog
 * releases of 7-Zip over four weeks, each taken by git (the version bump an update pull request
 * makes) and rolled through the three waves by the promotion gate; in the third week half of
 * Contoso's installs fail, the gate stops the rollout (a hold), a person resumes it and it completes.
 * The report of the month has one rollout per version with the catalog's release time (as
 * `GET /_sim/releases` says), the start and completion of each deployment (as the service says),
 * the patch latency between them, and the one hold with its reason.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/export/report-model.js';
import { cli } from '../support/cli.js';
import { gatedYaml } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const HOUR = 3600;
const KEY = 'Deployment/seven-zip-24-08';
let sim: TestSim;
let env: Record<string, string>;
let repo: string;
let monthStart: string;

const apply = async (): Promise<void> => {
  const r = await cli(['apply', '--auto-approve', repo], env);
  expect(r.code, r.stderr).toBe(0);
};
const now = async (): Promise<string> => ((await sim.admin('GET', '/_sim/clock')) as { now: string }).now;
const bump = async (from: string, to: string): Promise<void> => {
  const file = join(repo, 'all.yaml');
  await writeFile(file, (await readFile(file, 'utf8')).replace(`version: "${from}"`, `version: "${to}"`));
};

/** Rolls the current version through its three waves: a soak of 6 h each, then the gate skips on. */
async function rollOut(): Promise<void> {
  await apply();
  for (let wave = 1; wave <= 3; wave++) {
    await sim.advance(6.5 * HOUR);
    await apply();
  }
  await sim.advance(7 * HOUR);
  await apply();
}

beforeAll(async () => {
  sim = await startTestSimulator({ timeScale: 60 });
  const stateDir = await tempDir('packsync-month-state-');
  env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
  repo = await tempDir('packsync-month-repo-');
  await writeFile(join(repo, 'all.yaml'), gatedYaml('soak: 6h\nminDevices: 20\nmaxFailureRate: 10%'));
  await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0 } });
  monthStart = await now();
  await rollOut(); // week 1: 24.08, as the account starts

  await sim.advance(7 * 24 * HOUR);
  await sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
  await sim.advance(2 * 24 * HOUR); // the update pull request is reviewed and merged two days later
  await bump('24.08', '24.09');
  await rollOut(); // week 2

  await sim.advance(7 * 24 * HOUR);
  await sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.10' });
  await sim.advance(24 * HOUR);
  await bump('24.09', '24.10');
  // Week 3: half of Contoso's installs fail; the gate stops the rollout on wave 1 (a hold).
  await sim.admin('PUT', '/_sim/outcomes', {
    default: { failureRate: 0 },
    rules: [{ tenant: 'contoso.onmicrosoft.com', failureRate: 0.5 }],
  });
  await apply();
  await sim.advance(7 * HOUR);
  await apply();
  await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0 } });
  const resumed = await cli(['resume', KEY, '--reason', 'vendor hotfix deployed at Contoso'], env);
  expect(resumed.code, resumed.stderr).toBe(0);
  // After the resume the gate judges the restarted rollout's installs afresh: a second round of soaks completes it.
  await rollOut();
  await rollOut();
}, 240_000);

afterAll(async () => {
  await sim?.close();
});

describe('packsync report over a month of releases', () => {
  it('has each version with its catalog release time, its service start and completion, the latency, and the one hold', async () => {
    const releases = (await sim.admin('GET', '/_sim/releases')) as { app: string; version: string; releasedAt: string }[];
    const releasedAt = (v: string): number => Date.parse(releases.find((x) => x.version === v)!.releasedAt);
    const r = await cli(['report', '--format', 'json', '--from', monthStart.slice(0, 10)], env);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    const contoso = report.tenants.find((t) => t.name === 'Contoso')!;
    const rows = contoso.rollouts.filter((x) => x.app === '7-Zip').sort((a, b) => Date.parse(a.startedAt!) - Date.parse(b.startedAt!));
    expect(rows.map((x) => x.version)).toEqual(['24.08', '24.09', '24.10']);
    for (const row of rows) expect(row.status).toBe('Completed');

    // The service's own record of each deployment, by version.
    const live = (await sim.state()).deployments;
    for (const v of ['24.09', '24.10']) {
      const row = rows.find((x) => x.version === v)!;
      const d = live.find((x) => x.version === v)!;
      const detail = (await (await fetch(`${sim.url}/v1/flow/deployment/${d.id}`, { headers: { 'X-API-Key': sim.key } })).json()) as {
        startedAt: string;
        completedAt: string;
      };
      expect(Date.parse(row.releasedAt!)).toBe(releasedAt(v));
      expect(Date.parse(row.startedAt!)).toBe(Date.parse(detail.startedAt));
      expect(Date.parse(row.completedAt!)).toBe(Date.parse(detail.completedAt));
      expect(row.patchLatencyHours).toBe(Math.round(((Date.parse(detail.completedAt) - releasedAt(v)) / 3_600_000) * 10) / 10);
      expect(row.waves.map((w) => w.wave)).toEqual([1, 2, 3]);
    }
    // The merge came two days after the 24.09 release: its latency includes the review, about 2 days + 3 soaks.
    expect(rows[1]!.patchLatencyHours!).toBeGreaterThan(48);
    const held = rows[2]!;
    expect(held.gates.map((g) => `${g.action}@${g.wave}:${g.by}`).slice(0, 2)).toEqual(['stop@1:gate', 'resume@1:command']);
    expect(held.gates[0]!.reason).toMatch(/Contoso: \d+\.\d% failed > 10\.0%/);
    expect(held.gates[1]!.reason).toBe('vendor hotfix deployed at Contoso');
    expect(contoso.summary).toMatchObject({ rollouts: 3, completed: 3, holds: 1 });
    expect(report.totals.rollouts).toBe(3);
  });
});
