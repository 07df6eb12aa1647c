/**
 * The status page (docs/agent.md) in a real browser: headless Chromium (Debian's, driven by
 * playwright-core) opens `GET /` of a real agent that reconciled a real simulator, with JavaScript
 * off. It shows the banner, a failing object with FILE:LINE:COL, a deployment in wave 2 of 3 with
 * its tenant cells, counts, events and history; markup from a manifest is shown as text; no secret
 * appears. The size check renders 1,000 deployments.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSidecar } from '../../src/agent/http/http-server.js';
import type { Sidecar } from '../../src/agent/http/http-server.js';
import { Agent } from '../../src/agent/loop.js';
import { createMetrics } from '../../src/agent/http/metrics.js';
import { PAGE_LIMITS, renderStatusPage } from '../../src/agent/http/status-page.js';
import { objectAnchor } from '../../src/agent/http/anchors.js';
import { StatusTracker } from '../../src/agent/http/status.js';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import type { Rollout } from '../../src/agent/http/status-types.js';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/client.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(`status page browser test skipped: ${CHROMIUM} is absent (apt-get install -y chromium; .ci/run installs it)`);

const SECRET = 'status-page-webhook-secret-0123456789';
const MARKUP = '<img src=x onerror=alert(1)>';

/** A synthetic status of `n` running deployments (6 tenants each) and every list full, for the size bound. */
function bigStatus(n: number): AgentStatus {
  const s = new StatusTracker({ source: 'https://git.example.com/acme/fleet.git', ref: 'main', path: 'clusters/prod' }).status;
  const now = new Date().toISOString();
  s.rollouts = Array.from({ length: n }, (_, i): Rollout => ({
    deployment: `Deployment/app-${i}-24-08`,
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    flow: `app-${i}`,
    package: `app-${i}-24-08`,
    app: `Application number ${i}`,
    version: `24.08.${i}`,
    status: 'Running',
    currentWave: 2,
    waveCount: 3,
    startedAt: now,
    gate: { wave: 2, verdict: i % 10 === 0 ? 'holding' : 'before' },
    soakHours: 48,
    successRate: 96.5,
    tenants: Array.from({ length: 6 }, (_, t) => ({
      tenantId: `t${t}`,
      tenant: `Tenant ${t} Ltd`,
      wave: 1 + Math.floor(t / 2),
      status: t < 2 ? 'Completed' : t < 4 ? 'InProgress' : 'Pending',
    })),
  }));
  s.objects = Array.from({ length: 3 * n }, (_, i) => ({
    key: `${['Package', 'Flow', 'Deployment'][i % 3]!}/app-${i}`,
    kind: ['Package', 'Flow', 'Deployment'][i % 3]!,
    name: `app-${i}`,
    outcome: i % 7 === 0 ? ('failed' as const) : ('unchanged' as const),
    reasons: [],
    ...(i % 7 === 0
      ? {
          error: { code: 'API_CONFLICT', message: 'the service refused the change because another one is running' },
          source: { file: 'deployments/app.yaml', line: i, column: 3 },
        }
      : {}),
  }));
  for (let i = 0; i < 60; i++)
    s.events.push({
      time: now,
      lastTimestamp: now,
      count: 3,
      type: 'Warning',
      severity: 'error',
      reason: 'ApplyFailed',
      object: `Deployment/app-${i}`,
      message: 'HTTP_409: the service refused the change because another one is running',
      revision: 'a'.repeat(40),
    });
  for (let i = 0; i < 120; i++)
    s.history.push({
      revision: 'b'.repeat(40),
      trigger: 'interval',
      startedAt: now,
      durationMs: 1234,
      result: 'Failed',
      counts: {},
      writes: 3,
      message: '3 object(s) failed; first: Deployment/app-1: HTTP_409 the service refused the change',
    });
  return s;
}

describe('status page rendering', () => {
  it('stays under 200 KB for 1,000 deployments, capping long lists with a pointer to /status', () => {
    const html = renderStatusPage({ status: bigStatus(1000), ready: true });
    const bytes = Buffer.byteLength(html);
    console.log(`status page for 1,000 deployments: ${bytes} bytes`);
    expect(bytes).toBeLessThan(200 * 1024);
    expect(html).toContain('Rollouts (1000 running of 1000)');
    expect(html).toMatch(/… and 800 more in <a href=\/status>/);
  });

  it('notification-anchors-exist: every object an event on the page names has its id there, each id once', () => {
    const s = bigStatus(1000);
    const now = new Date().toISOString();
    const event = (reason: 'RolloutCompleted' | 'GateHeld' | 'UpdateProposed' | 'ApplyFailed', object: string): void => {
      s.events.unshift({
        time: now,
        lastTimestamp: now,
        count: 1,
        type: 'Normal',
        severity: 'info',
        reason,
        object,
        message: 'm',
        revision: null,
      });
    };
    // A completed rollout (off the board), the service's rollout, an update run, and a failed object
    // whose needs-attention line is cut by the cap (the 102nd): before, none of them had an id.
    event('RolloutCompleted', 'Deployment/done-24-08');
    event('GateHeld', 'Flow/app-1@24.09');
    event('UpdateProposed', 'Updates/weekly');
    event('ApplyFailed', 'Deployment/app-707');
    s.serviceStarted = [{ flow: 'Flow/app-1', id: 'd1', version: '24.09', status: 'Running', wave: '1/3' }];
    const html = renderStatusPage({ status: s, ready: true });
    const ids = [...html.matchAll(/\sid="?([^\s">]+)/g)].map((m) => m[1]!);
    expect(new Set(ids).size).toBe(ids.length);
    for (const e of s.events.slice(0, PAGE_LIMITS.events)) expect(ids).toContain(objectAnchor(e.object));
    // The service's rollout is anchored on its own row under "Started by the service".
    expect(html).toMatch(/<tr id="obj-Flow-app-1@24\.09"><td><code>Flow\/app-1<\/code><td>24\.09/);
  });

  it('escapes everything it prints', () => {
    const s = bigStatus(1);
    s.objects[0]!.error = { code: 'INTERNAL', message: MARKUP };
    s.rollouts[0]!.app = `"><script>alert(1)</script>`;
    s.problems = [{ file: `a<b>.yaml`, line: 1, column: 2, pointer: '', rule: 'r', message: `'&"`, severity: 'error' }];
    const html = renderStatusPage({ status: s, ready: false });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('a&lt;b&gt;.yaml:1:2');
    expect(html).toContain('&#39;&amp;&quot;');
  });
});

describe.skipIf(!haveChromium)('status page in headless Chromium', () => {
  let sim: TestSim;
  let api: ApiClient;
  let agent: Agent;
  let sidecar: Sidecar;
  let browser: Browser;
  let repo: string;

  beforeAll(async () => {
    sim = await startTestSimulator();
    repo = await writeRepo({ wave: 2 });
    // A tenant upload to a tenant that does not exist: a failing object whose message carries markup.
    await writeFile(
      join(repo, 'uploads.yaml'),
      `apiVersion: packsync.dev/v1\nkind: TenantUpload\nmetadata:\n  name: pwsh-nowhere\nspec:\n  tenant: "${MARKUP}"\n  package: pwsh-7-4-6\n`,
    );
    api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
    const status = new StatusTracker({ source: repo, ref: '', path: '' });
    const metrics = createMetrics(false);
    agent = new Agent({
      source: { sync: () => Promise.resolve({ dir: repo, revision: null, label: repo }), ref: null },
      api,
      stateDir: await tempDir('packsync-state-'),
      planOptions: DEFAULT_PLAN_OPTIONS,
      logger: pino({ level: 'silent' }),
      metrics,
      status,
      passTimeoutMs: 60_000,
      backoff: { baseMs: 60_000, maxMs: 60_000 },
    });
    sidecar = await startSidecar({
      host: '127.0.0.1',
      port: 0,
      metrics,
      status,
      ready: () => agent.ready(),
      trigger: (r) => agent.trigger(r),
      webhookSecret: SECRET,
      trackedRef: null,
      logger: pino({ level: 'silent' }),
    });
    agent.trigger('startup');
    await agent.idle();
    // Devices report over the virtual hours after a wave becomes current (docs/api-model.md): let three
    // pass, then a second pass sees the deployment where the first one left it (wave 2 of 3).
    await sim.advance(3 * 3600);
    agent.trigger('manual');
    await agent.idle();
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await agent?.stop();
    await sidecar?.close();
    await api?.close();
    await sim?.close();
  });

  it('shows banner, needs-attention with FILE:LINE:COL, the rollout board in wave 2 of 3, counts, events and history — with JavaScript off', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const res = await page.goto(`${sidecar.url}/`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.locator('meta[http-equiv=refresh]').getAttribute('content')).toBe('10');

    // The pass failed on one object: not ready, with the reason and the applied digest.
    const banner = page.locator('#banner');
    await expect.poll(() => banner.locator('#state').innerText()).toBe('Not ready: ReconciliationFailed');
    expect(await banner.innerText()).toContain(`Source: ${repo}`);
    expect(await page.locator('#applied').innerText()).toMatch(/Applied: none yet · attempted sha256:[0-9a-f]{12}/);

    // Needs attention: the failing upload with its manifest position, its markup shown as text.
    const attention = await page.locator('#attention').innerText();
    expect(attention).toContain(`TenantUpload/pwsh-nowhere uploads.yaml:6:11: failed: REF_UNKNOWN: unknown tenant "${MARKUP}"`);
    expect(await page.locator('#attention img').count()).toBe(0);

    // The rollout board: 7-Zip running in wave 2 of 3 (Pilot first), one cell per tenant.
    const row = page.locator('#rollouts tr', { hasText: '7-Zip' });
    const cells = await row.locator('td').allInnerTexts();
    expect(cells.slice(0, 5)).toEqual(['7-Zip', '24.08', 'seven-zip', '2/3', 'Suspended by git at wave 2 (spec.wave), soak 48 h']);
    expect(cells[5]).toMatch(/^\d+(\.\d)?%$/);
    const tenants = row.locator('td.c i');
    const classes = await tenants.evaluateAll((els) => (els as unknown as { className: string }[]).map((e) => e.className));
    expect(classes.length).toBeGreaterThanOrEqual(3);
    expect(classes[0]).toBe('Completed');
    expect(classes[1]).toBe('InProgress');
    expect(classes.slice(2).every((c) => c === 'Pending')).toBe(true);
    expect(await tenants.first().getAttribute('title')).toMatch(/\(wave 1\): Completed$/);
    const bar = await row
      .locator('.bar i')
      .evaluate((e) => (globalThis as unknown as { getComputedStyle: (x: unknown) => { width: string } }).getComputedStyle(e).width);
    expect(parseFloat(bar)).toBeCloseTo(80 * (2 / 3), 0);

    const counts = await page.locator('#counts').innerText();
    expect(counts).toMatch(/Package\t2\t/);
    expect(counts).toMatch(/TenantUpload\t1\tfailed 1/);
    const events = await page.locator('#events').innerText();
    expect(events).toContain('ApplyFailed');
    expect(events).toContain('GateHeld');
    // Two passes failed on the same object at the same revision: one event, counted twice.
    expect(events).toMatch(/ApplyFailed\tTenantUpload\/pwsh-nowhere\t[^\n]*\t2\t/);
    const history = await page.locator('#history').innerText();
    expect(history).toMatch(/startup\tFailed/);

    // No secret: neither the API key nor the webhook secret, in the page or in /status.
    const html = await page.content();
    const json = await (await fetch(`${sidecar.url}/status`)).text();
    for (const text of [html, json]) {
      expect(text).not.toContain(sim.key);
      expect(text).not.toContain(SECRET);
    }
    // Every view's data is in /status too.
    const s = JSON.parse(json) as AgentStatus;
    expect(s.rollouts.find((r) => r.deployment === 'Deployment/seven-zip-24-08')).toMatchObject({
      flow: 'seven-zip',
      package: 'seven-zip-24-08',
      status: 'Running',
      currentWave: 2,
      waveCount: 3,
      gate: { wave: 2, verdict: 'holding' },
    });
    expect(s.objects.find((o) => o.key === 'TenantUpload/pwsh-nowhere')).toMatchObject({
      outcome: 'failed',
      source: { file: 'uploads.yaml', line: 6, column: 11 },
    });

    const shot = await page.screenshot({ fullPage: true });
    expect(shot.length).toBeGreaterThan(10_000);
    if (process.env.PACKSYNC_SCREENSHOT) {
      await mkdir(join(process.cwd(), 'docs'), { recursive: true });
      await writeFile(join(process.cwd(), 'docs', 'status-page.png'), shot);
    }
    await context.close();
  });
});
