/**
 * `packsync report` end to end (docs/reports.md, docs/reports.md): a gated rollout of 7-Zip through the
 * simulator's three waves, with one tenant failing (Contoso), the gate's stop (a hold), a resume,
 * promotion to completion, then a report whose every figure is checked against the simulator's
 * journal and live data: release time from the catalog, start and completion from the deployment,
 * each wave reached at its skip-wave call, latency, installs per tenant from wave live data, the
 * verdicts with their reasons. Also: an empty period says so; a tenant whose radar read fails is
 * named and the others are reported; the HTML opens in a real headless Chromium (no script, no
 * external request, one page per tenant in print) and prints to PDF.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/export/report-model.js';
import type { Inventory } from '../../src/state/inventory-types.js';
import { cli } from '../support/cli.js';
import { gatedYaml } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { JournalEntry, TestSim } from '../support/sim.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`report browser checks skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

const HOUR = 3600;
const KEY = 'Deployment/seven-zip-24-08';
let sim: TestSim;
let env: Record<string, string>;
let stateDir: string;
let repo: string;

const apply = async (): Promise<void> => {
  const r = await cli(['apply', '--auto-approve', repo], env);
  expect(r.code, r.stderr).toBe(0);
};
const api = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${sim.url}/v1${path}`, { headers: { 'X-API-Key': sim.key } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
};
const report = async (...args: string[]): Promise<Report> => {
  const r = await cli(['report', '--format', 'json', ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Report;
};
const minutes = (a: string, b: string): number => Math.abs(Date.parse(a) - Date.parse(b)) / 60_000;

beforeAll(async () => {
  sim = await startTestSimulator({ timeScale: 60 });
  stateDir = await tempDir('packsync-state-');
  env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir };
  repo = await tempDir('packsync-repo-');
  await writeFile(join(repo, 'all.yaml'), gatedYaml('soak: 6h\nminDevices: 20\nmaxFailureRate: 10%'));
  // One failing tenant: half of Contoso's installs fail, so the gate stops the rollout on wave 1.
  await sim.admin('PUT', '/_sim/outcomes', {
    default: { failureRate: 0 },
    rules: [{ tenant: 'contoso.onmicrosoft.com', failureRate: 0.5 }],
  });
  await apply();
  await apply();
  await sim.advance(2 * HOUR);
  await apply(); // the gate stops it: a hold
  await sim.admin('PUT', '/_sim/outcomes', { default: { failureRate: 0 } });
  const resumed = await cli(['resume', KEY, '--reason', 'hotfix | <b>rolled</b> into the package'], env);
  expect(resumed.code, resumed.stderr).toBe(0);
  await apply(); // starts it again
  for (let wave = 1; wave <= 3; wave++) {
    await sim.advance(6.5 * HOUR);
    await apply(); // skip-wave after each soak; the last one completes it
  }
  await sim.advance(7 * HOUR);
  await apply(); // sees it completed, records the counts
}, 120_000);

afterAll(async () => {
  await sim?.close();
});

describe('packsync report against a simulated month', () => {
  it("reports release, start, every wave, completion, latency, installs and verdicts exactly as the service's journal and live data say", async () => {
    const live = (await sim.state()).deployments[0]!;
    const d = await api<{ startedAt: string; completedAt: string; flowId: string; packageId: string; status: string }>(
      `/flow/deployment/${live.id}`,
    );
    expect(d.status).toBe('Completed');
    const pkg = await api<{ appId: string }>(`/package/${d.packageId}`);
    const app = await api<{ versions: { version: string; createdDate: string }[] }>(`/app/${pkg.appId}`);
    const released = app.versions.find((v) => v.version === '24.08')!.createdDate;
    const journal: JournalEntry[] = await sim.journal(true);
    const skips = journal.filter((e) => e.path.endsWith('/skip-wave') && e.status === 200).map((e) => e.serviceTime);
    const stop = journal.find((e) => e.path.endsWith('/stop'))!.serviceTime;
    expect(skips).toHaveLength(3);

    const r = await report('--from', '2020-01-01');
    expect(r.schema).toBe('packsync.dev/report/v1');
    expect(r.empty).toBe(false);
    expect(r.tenants.map((t) => t.name).sort()).toEqual(['Contoso', 'Fabrikam', 'Northwind Traders', 'Tailspin Toys']);
    const contoso = r.tenants.find((t) => t.name === 'Contoso')!;
    const row = contoso.rollouts.find((x) => x.deployment === KEY)!;
    expect(row).toMatchObject({ app: '7-Zip', version: '24.08', tenantWave: 1, waveCount: 3, status: 'Completed' });
    expect(Date.parse(row.releasedAt!)).toBe(Date.parse(released));
    // Every time of the report is ISO UTC, the catalog's .NET-style release time too (regression: it was kept as the service wrote it).
    expect(row.releasedAt).toBe(new Date(Date.parse(released)).toISOString());
    expect(Date.parse(row.startedAt!)).toBe(Date.parse(d.startedAt));
    expect(Date.parse(row.completedAt!)).toBe(Date.parse(d.completedAt));
    // report-times-one-form: the start and wave 1 came as the service writes them (…0000000+00:00): ISO UTC too.
    for (const t of [
      row.startedAt,
      row.completedAt,
      row.tenantReachedAt,
      ...row.waves.map((w) => w.reachedAt),
      ...row.gates.map((g) => g.at),
    ])
      expect(t).toBe(new Date(Date.parse(t!)).toISOString());
    // Waves 2 and 3 were reached by the gate's skip-wave calls, at the service time of each call.
    expect(row.waves.map((w) => w.wave)).toEqual([1, 2, 3]);
    expect(minutes(row.waves[1]!.reachedAt, skips[0]!)).toBeLessThan(2);
    expect(minutes(row.waves[2]!.reachedAt, skips[1]!)).toBeLessThan(2);
    expect(row.patchLatencyHours).toBe(Math.round(((Date.parse(d.completedAt) - Date.parse(released)) / 3_600_000) * 10) / 10);
    // The verdicts with their reasons: the stop (hold) naming Contoso, the resume, three passes.
    expect(row.gates.map((g) => `${g.action}@${g.wave}:${g.by}`)).toEqual([
      'stop@1:gate',
      'resume@1:command',
      'skip-wave@1:gate',
      'skip-wave@2:gate',
      'skip-wave@3:gate',
    ]);
    expect(minutes(row.gates[0]!.at, stop)).toBeLessThan(2);
    expect(row.gates[0]!.reason).toMatch(/Contoso: \d+\.\d% failed > 10\.0%/);
    expect(row.gates[1]!.reason).toBe('hotfix | <b>rolled</b> into the package');
    expect(contoso.summary.holds).toBe(1);

    // Installs per tenant: the wave live data of the flow's current deployment, tenant by tenant.
    const flow = await api<{ waves: { id: string; index: number }[] }>(`/flow/${d.flowId}`);
    let installed = 0;
    let failed = 0;
    for (const w of flow.waves) {
      const data = await api<{ deploymentId: string; tenants: { tenantId: string; installed: number; failed: number }[] }>(
        `/flow/wave/${w.id}/live`,
      );
      expect(data.deploymentId).toBe(live.id);
      for (const t of data.tenants) {
        const tenant = r.tenants.find((x) => x.id === t.tenantId)!;
        const mine = tenant.rollouts.find((x) => x.deployment === KEY)!;
        expect(mine.tenantWave).toBe(w.index);
        expect(mine.installs).toMatchObject({ installed: t.installed, failed: t.failed });
        installed += t.installed;
        failed += t.failed;
      }
    }
    expect(contoso.rollouts[0]!.installs!.failed).toBeGreaterThan(0);
    expect(r.totals).toMatchObject({ rollouts: 1, completed: 1, installed, failed, holds: 1 });
    // Radar: 7-Zip is covered by the owned flow; other catalog apps are listed with their match.
    expect(contoso.radar.some((a) => a.name === '7-Zip')).toBe(false);
    expect(contoso.radar.find((a) => a.name === 'Notepad++')?.catalog?.name).toBe('Notepad++');
    // History lasts: it is in the snapshot the store compacted at the end of the last apply.
    const snap = JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;
    expect(snap.history?.rollouts).toHaveLength(1);
  });

  it('every field of the JSON report is documented in docs/reports.md', async () => {
    const r = await report('--from', '2020-01-01');
    const keys = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          // Per-tenant maps are keyed by ids, not field names.
          if (!/^[0-9a-f-]{36}$/.test(k)) keys.add(k);
          walk(x);
        }
    };
    walk(r);
    const doc = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'reports.md'), 'utf8');
    expect([...keys].filter((k) => !new RegExp(`\`(?:[\\w.\\[\\]…]*\\.)?${k}(?:\`|\\[\\])`).test(doc))).toEqual([]);
    expect(keys.size).toBeGreaterThan(40);
  });

  it('an empty period is an empty report that says so; --tenant narrows to one tenant; bad flags are usage errors', async () => {
    const r = await report('--from', '2020-01-01', '--to', '2020-01-31');
    expect(r.empty).toBe(true);
    expect(r.totals.rollouts).toBe(0);
    // The markdown has what the HTML has: the flow (rings told apart), pending installs, radar's versions.
    const full = await cli(['report', '--from', '2020-01-01', '--format', 'markdown'], env);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toContain(
      '| App | Version | Flow | Released | Started | Waves reached | This tenant | Completed | Latency | Installed | Failed | Pending |',
    );
    expect(full.stdout).toContain('| App | Publisher | Devices | Versions | Catalog match |');
    expect(full.stdout).toMatch(/\| 7-Zip \| 24\.08 \| seven-zip \|/);
    const md = await cli(['report', '--from', '2020-01-01', '--to', '2020-01-31', '--format', 'markdown'], env);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('Nothing was rolled out and no drift was found in this period.');
    const one = await report('--from', '2020-01-01', '--tenant', 'FABRIKAM.onmicrosoft.com');
    expect(one.tenants.map((t) => t.name)).toEqual(['Fabrikam']);
    expect(one.tenants[0]!.rollouts).toHaveLength(1);
    const nobody = await cli(['report', '--tenant', 'nowhere.example'], env);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/REPORT_UNKNOWN_TENANT: --tenant "nowhere.example" names no tenant; tenants: /);
    const bad = await cli(['report', '--from', 'last month'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--from must be a date/);
    // report-out-folder-missing: named as the flag before any read (before: a raw ENOENT after the reads).
    const reads = (await sim.journal()).length;
    const nowhere = await cli(['report', '--out', '/nonexistent/packsync/report.html'], env);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/--out \/nonexistent\/packsync\/report\.html: the folder \/nonexistent\/packsync does not exist/);
    expect((await sim.journal()).length).toBe(reads);
  });

  it("a tenant whose radar read fails is named, in the report too, and the others' radar is still reported", async () => {
    const tenants = await api<{ id: string; displayName: string }[]>('/tenant');
    const fabrikam = tenants.find((t) => t.displayName === 'Fabrikam')!;
    await sim.admin('PUT', '/_sim/faults', { '5xx': 1, path: `/tenant/${fabrikam.id}/radar` });
    try {
      const out = await cli(['report', '--from', '2020-01-01', '--format', 'json', '--api-timeout', '2000'], env);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stderr).toMatch(/radar of tenant Fabrikam could not be read/);
      const r = JSON.parse(out.stdout) as Report;
      expect(r.missingTenants.map((m) => m.tenant)).toEqual(['Fabrikam']);
      expect(r.tenants.find((t) => t.name === 'Contoso')!.radar.length).toBeGreaterThan(0);
      expect(r.tenants.find((t) => t.name === 'Fabrikam')!.rollouts).toHaveLength(1);
    } finally {
      await sim.admin('PUT', '/_sim/faults', {});
    }
  }, 60_000);

  describe.skipIf(!haveChromium)('in a real headless Chromium', () => {
    let browser: Browser;
    let html: string;
    const requests: string[] = [];

    beforeAll(async () => {
      const file = join(await tempDir('packsync-report-'), 'report.html');
      const out = await cli(['report', '--from', '2020-01-01', '--out', file], env);
      expect(out.code, out.stderr).toBe(0);
      html = await readFile(file, 'utf8');
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
      });
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('is one self-contained page: no script, no external request, everything escaped, one tenant a printed page', async () => {
      expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
      // The resume reason came from a person: shown as text, never as markup.
      expect(html).toContain('hotfix | &#60;b&#62;rolled&#60;/b&#62; into the package');
      const page = await browser.newPage({ javaScriptEnabled: false, viewport: { width: 1200, height: 900 } });
      page.on('request', (r) => requests.push(r.url()));
      await page.setContent(html, { waitUntil: 'load' });
      expect(requests.filter((u) => !u.startsWith('about:') && !u.startsWith('data:'))).toEqual([]);
      expect(await page.locator('section.tenant').count()).toBe(4);
      const contoso = page.locator('section.tenant', { hasText: 'contoso.onmicrosoft.com' });
      await expect(contoso.locator('table').first().textContent()).resolves.toContain('7-Zip');
      await expect(contoso.textContent()).resolves.toMatch(/stopped at wave 1 \(gate\).*Contoso: \d+\.\d% failed/s);
      // Screen: tables fit the page width; print: each tenant starts a page, A4 landscape.
      const overflow: unknown = await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth');
      expect(overflow).toBe(false);
      await page.emulateMedia({ media: 'print' });
      const breaks: unknown = await page.evaluate(
        "[...document.querySelectorAll('section.tenant')].map((e) => getComputedStyle(e).breakBefore)",
      );
      expect(breaks).toEqual(['page', 'page', 'page', 'page']);
      const pdf = await page.pdf({ preferCSSPageSize: true });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      await page.close();
    });

    it('report --format pdf prints through the local Chromium; none is a clear error', async () => {
      const file = join(await tempDir('packsync-report-'), 'report.pdf');
      const out = await cli(['report', '--from', '2020-01-01', '--out', file], env);
      expect(out.code, out.stderr).toBe(0);
      expect((await readFile(file)).subarray(0, 5).toString()).toBe('%PDF-');
      const none = await cli(['report', '--format', 'pdf', '--out', file], { ...env, PACKSYNC_CHROMIUM: '/nonexistent/chromium' });
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/REPORT_PDF_UNAVAILABLE: no local Chromium/);
      expect(none.stderr).toContain('PACKSYNC_CHROMIUM names /nonexistent/chromium, which does not exist');
    }, 60_000);
  });
});
