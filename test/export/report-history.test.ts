/**
 * The report's history (docs/reports.md#history) as the CLI records it against the simulator:
 * a wave a Deployment's `spec.wave` skipped to is recorded at the skip's own time, by packsync,
 * also when the deployment started in the same pass; a rollout the service supersedes keeps the
 * install counts packsync read while it ran, and a stopped one those it had when it stopped.
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
// A virtual minute a second: an import takes a second, a skip's time is known to the minute.
useSim((x) => (s = x), { timeScale: 60 });

/** 7-Zip 24.08 through "Pilot first" (3 waves: 24 h, 48 h, 72 h); `flow` and `deployment` add spec lines. */
async function writeRepo(repo: string, o: { flow?: string[]; deployment?: string[] } = {}): Promise<void> {
  const yaml = yamlDocs(
    SEVEN_ZIP_PACKAGE,
    flowDoc('seven-zip', '7-Zip', [`patchGroup: ${PILOT_FIRST}`, ...(o.flow ?? [])]),
    deploymentDoc('seven-zip-24-08', 'seven-zip', 'running', o.deployment),
  );
  await writeFile(join(repo, 'all.yaml'), yaml);
}

async function apply(repo: string): Promise<void> {
  const r = await cli(['apply', '--auto-approve', repo], s.env);
  expect(r.code, r.stderr).toBe(0);
}

async function report(): Promise<Report> {
  const r = await cli(['report', '--format', 'json', '--from', '2020-01-01'], s.env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Report;
}

/** The waves of the 24.08 rollout as the report shows them (the same for every tenant). */
async function waves(): Promise<Report['tenants'][number]['rollouts'][number]['waves']> {
  const row = (await report()).tenants[0]!.rollouts.find((r) => r.deployment === KEY)!;
  return row.waves;
}

/** Service times of the skip-wave calls that landed. */
async function skips(): Promise<string[]> {
  return (await s.sim.journal(true)).filter((e) => e.path.endsWith('/skip-wave') && e.status === 200).map((e) => e.serviceTime);
}

const seconds = (a: string, b: string): number => Math.abs(Date.parse(a) - Date.parse(b)) / 1000;

describe('report history', () => {
  it('spec-wave-skip-recorded-at-skip: a running rollout skipped by spec.wave has the wave at the skip, by packsync, at once and after later passes', async () => {
    const repo = await tempDir('packsync-repo-');
    await writeRepo(repo);
    await apply(repo);
    await s.sim.advance(HOUR);
    await apply(repo); // the rollout is in the history, at wave 1
    await writeRepo(repo, { deployment: ['wave: 2'] });
    await s.sim.advance(HOUR);
    await apply(repo);
    const [skip] = await skips();
    expect(skip).toBeDefined();
    // Right after the apply, before any other pass.
    const now = await waves();
    expect(now.map((w) => `${w.wave}:${w.by}`)).toEqual(['1:service', '2:gate']);
    expect(seconds(now[1]!.reachedAt, skip!)).toBeLessThan(60);
    // A later pass does not date it again (it was the service's move at that pass's time).
    await s.sim.advance(HOUR);
    await apply(repo);
    expect(await waves()).toEqual(now);
  });

  it('spec-wave-skip-recorded-at-skip: a rollout started and skipped by spec.wave in one pass has the wave at the skip', async () => {
    const repo = await tempDir('packsync-repo-');
    await writeRepo(repo, { deployment: ['wave: 3'] });
    await apply(repo);
    const [to2, to3] = await skips();
    expect(to3).toBeDefined();
    // Reported from the live deployment and the skips kept for it, before the history recorded its start.
    const first = await waves();
    expect(first.map((w) => `${w.wave}:${w.by}`)).toEqual(['1:service', '2:gate', '3:gate']);
    expect(seconds(first[1]!.reachedAt, to2!)).toBeLessThan(60);
    expect(seconds(first[2]!.reachedAt, to3!)).toBeLessThan(60);
    await s.sim.advance(HOUR);
    await apply(repo); // first sight of the rollout: the history takes the skips over
    expect(await waves()).toEqual(first);
    const inv = JSON.parse(await readFile(join(s.stateDir, 'inventory.json'), 'utf8')) as Inventory;
    expect(inv.history?.early).toBeUndefined();
  });

  it('early-promote-keeps-reason: a promote before the history recorded the rollout keeps its reason, before and after the next pass', async () => {
    const repo = await tempDir('packsync-repo-');
    await writeRepo(repo);
    await apply(repo); // started: the history records it at the next pass
    const p = await cli(['promote', KEY, '--reason', 'pilot looks fine (ticket 42)'], s.env);
    expect(p.code, p.stderr).toBe(0);
    const gate = { action: 'promote', wave: 1, by: 'command', reason: 'pilot looks fine (ticket 42)' };
    const row = async (): Promise<Report['tenants'][number]['rollouts'][number]> =>
      (await report()).tenants[0]!.rollouts.find((r) => r.deployment === KEY)!;
    // Reported from the live deployment and what the history kept for it.
    const before = await row();
    expect(before.gates).toEqual([expect.objectContaining(gate)]);
    expect(before.waves.map((w) => `${w.wave}:${w.by}`)).toEqual(['1:service', '2:command']);
    await s.sim.advance(HOUR);
    await apply(repo); // first sight of the rollout: the history takes the promote over
    const after = await row();
    expect(after.gates).toEqual([expect.objectContaining(gate)]);
    expect(after.waves).toEqual(before.waves);
    const inv = JSON.parse(await readFile(join(s.stateDir, 'inventory.json'), 'utf8')) as Inventory;
    expect(inv.history?.earlyGates).toBeUndefined();
    const md = await cli(['report', '--format', 'markdown', '--from', '2020-01-01'], s.env);
    expect(md.stdout).toContain('ticket 42');
  });

  it('superseded-rollout-keeps-counts: a rollout the service stops for a new release keeps the counts read in its last wave', async () => {
    const repo = await tempDir('packsync-repo-');
    const flow = ['flags: [startNewVersionsAutomatically, stopCurrentAndStartNew]', 'supersedenceHistoryCount: 1'];
    await writeRepo(repo, { flow });
    await apply(repo);
    await s.sim.advance(25 * HOUR);
    await apply(repo); // wave 2
    // Wave 3 began at 72 h; at 79 h every device of every wave has reported (30 min to 6 h), so the figures stand still.
    await s.sim.advance(54 * HOUR);
    await apply(repo);
    const d = (await s.sim.state()).deployments.find((x) => x.version === '24.08')!;
    expect(d).toMatchObject({ status: 'Running', currentWave: 3 });
    const seen = await waveCounts(d.flowId, d.id);

    await s.sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
    await s.sim.advance(HOUR);
    await apply(repo);
    await s.sim.advance(HOUR);
    await apply(repo);
    expect((await s.sim.state()).deployments.find((x) => x.id === d.id)?.status).toBe('Stopped');

    const r = await report();
    const rows = r.tenants.flatMap((t) => t.rollouts.filter((x) => x.deployment === KEY).map((x) => ({ t: t.id, x })));
    expect(rows.length).toBe(Object.keys(seen).length);
    for (const { t, x } of rows) {
      expect(x.status).toBe('Stopped');
      expect(x.installs).toMatchObject({ ...seen[t], source: 'recorded' });
    }
    expect(rows.some(({ x }) => x.installs!.installed > 0)).toBe(true);
  });

  it('removed-rollout-status: a rollout the service removed before any pass saw it stopped reports status Removed, not unknown', async () => {
    const repo = await tempDir('packsync-repo-');
    const flow = ['flags: [startNewVersionsAutomatically, stopCurrentAndStartNew]', 'supersedenceHistoryCount: 0'];
    await writeRepo(repo, { flow });
    await apply(repo);
    await s.sim.advance(HOUR);
    await apply(repo); // the 24.08 rollout is in the history, running
    await s.sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
    await s.sim.advance(HOUR);
    expect((await s.sim.state()).deployments.map((x) => x.version)).not.toContain('24.08');

    const rows = (await report()).tenants.flatMap((t) => t.rollouts.filter((x) => x.deployment === KEY));
    expect(rows.length).toBeGreaterThan(0);
    for (const x of rows) expect(x).toMatchObject({ status: 'Removed', version: '24.08', stoppedAt: null, completedAt: null });
    const md = await cli(['report', '--format', 'markdown', '--from', '2020-01-01'], s.env);
    expect(md.stdout).toMatch(/24\.08[^\n]*Removed/);
  });

  it('stopped-rollout-keeps-counts: a rollout stopped in git has its counts recorded when first seen stopped, read once', async () => {
    const repo = await tempDir('packsync-repo-');
    await writeRepo(repo);
    await apply(repo);
    await s.sim.advance(31 * HOUR); // wave 2 for 7 h: wave 1 and 2 devices have all reported
    await writeFile(join(repo, 'all.yaml'), (await readFile(join(repo, 'all.yaml'), 'utf8')).replace('state: running', 'state: stopped'));
    await apply(repo); // stops it
    const d = (await s.sim.state()).deployments[0]!;
    expect(d).toMatchObject({ status: 'Stopped', currentWave: 2 });
    const frozen = await waveCounts(d.flowId, d.id, 2);
    await apply(repo); // first sees it stopped: reads its counts
    const before = await s.sim.journalCount();
    await apply(repo); // nothing new: no count read
    const reads = (await s.sim.journal()).slice(before).filter((e) => e.path.endsWith('/live'));
    expect(reads).toEqual([]);

    const inv = JSON.parse(await readFile(join(s.stateDir, 'inventory.json'), 'utf8')) as Inventory;
    const h = inv.history!.rollouts.find((x) => x.deploymentId === d.id)!;
    expect(h.stoppedAt).toBeDefined();
    // The waves it reached (wave 3's tenants were never reached: no figures kept for them).
    expect(h.counts?.tenants).toEqual(frozen);
  });
});

/** Install counts per tenant of the waves (up to `upTo`) that show deployment `id` now, as the report's history keeps them. */
async function waveCounts(
  flowId: string,
  id: string,
  upTo = 3,
): Promise<Record<string, { installed: number; failed: number; pending: number }>> {
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${s.sim.url}/v1${path}`, { headers: { 'X-API-Key': s.sim.key } });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };
  const flow = await get<{ waves: { id: string; index: number }[] }>(`/flow/${flowId}`);
  const out: Record<string, { installed: number; failed: number; pending: number }> = {};
  for (const w of flow.waves.filter((x) => x.index <= upTo)) {
    const live = await get<{ deploymentId: string; tenants: { tenantId: string; installed: number; failed: number; pending: number }[] }>(
      `/flow/wave/${w.id}/live`,
    );
    if (live.deploymentId !== id) continue;
    for (const t of live.tenants) out[t.tenantId] = { installed: t.installed, failed: t.failed, pending: t.pending };
  }
  return out;
}
