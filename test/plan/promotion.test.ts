/** Promotion gates, pure: verdicts per tenant and per wave from hand-built live data (docs/manifests.md). */
import { describe, expect, it } from 'vitest';
import type { V1DeploymentViewModel, V1TenantViewModel, V1WaveViewModel } from '../../src/api/wire/index.js';
import type { PromotionRecord } from '../../src/state/inventory-types.js';
import type { WaveLiveRead } from '../../src/live/types.js';
import { parseDuration, parseRate, promotionRules } from '../../src/manifests/promotion-values.js';
import { evaluateGate } from '../../src/plan/gates/promotion.js';
import type { GateInput } from '../../src/plan/gates/promotion.js';
import { liveDeployment } from './fixtures.js';

const H = 3_600_000;
const T0 = Date.parse('2026-11-22T00:00:00Z');
const at = (hours: number): Date => new Date(T0 + hours * H);
const tenant = (n: number, name: string, consent = true): V1TenantViewModel => ({
  id: `00000000-0000-4000-8000-00000000000${n}`,
  created: '2026-01-01T00:00:00+00:00',
  displayName: name,
  defaultDomain: `${name.toLowerCase()}.onmicrosoft.com`,
  backgroundColor: '#000',
  flags: 1,
  adminConsentGranted: consent,
});
const CONTOSO = tenant(1, 'Contoso');
const FABRIKAM = tenant(2, 'Fabrikam');
const TAILSPIN = tenant(3, 'Tailspin', false);
const WAVES: V1WaveViewModel[] = [
  { id: 'w1', flowId: 'f', index: 1, name: 'Pilot', delayHours: 24, flags: 0, tenantIds: [CONTOSO.id] },
  { id: 'w2', flowId: 'f', index: 2, name: 'Everyone', delayHours: 48, flags: 0, tenantIds: [FABRIKAM.id, CONTOSO.id, TAILSPIN.id] },
];
const dep = (wave = 2, extra: Partial<V1DeploymentViewModel> = {}): V1DeploymentViewModel =>
  liveDeployment('d1', 'f', 'p', { currentWave: wave, currentWaveId: `w${wave}`, waveCount: 2, ...extra });
const counts = (rows: [V1TenantViewModel, number, number][], deploymentId = 'd1', waveId = 'w2'): WaveLiveRead => ({
  ok: true,
  data: {
    waveId,
    deploymentId,
    updated: '',
    tenants: rows.map(([t, installed, failed]) => ({ tenantId: t.id, installed, failed, pending: 0, notApplicable: 0 })),
  },
});
const rules = promotionRules({ soak: '12h', minDevices: 20, successRate: '95%', maxFailureRate: '10%', deadline: '24h' });
const record = (sinceHours: number, wave = 2): PromotionRecord => ({ deploymentId: 'd1', wave, since: at(sinceHours).toISOString() });
const input = (over: Partial<GateInput>): GateInput => ({
  key: 'Deployment/seven-zip',
  rules,
  live: dep(),
  waves: WAVES,
  tenants: [CONTOSO, FABRIKAM, TAILSPIN],
  read: counts([
    [FABRIKAM, 100, 1],
    [CONTOSO, 200, 2],
    [TAILSPIN, 0, 0],
  ]),
  record: record(0),
  hold: undefined,
  now: at(13),
  ...over,
});

describe('promotion values', () => {
  it('reads durations and rates as written in manifests', () => {
    expect([parseDuration('30m'), parseDuration('2h'), parseDuration('1h30m'), parseDuration('3d')]).toEqual([
      30 * 60_000,
      2 * H,
      1.5 * H,
      72 * H,
    ]);
    expect(parseRate('95%')).toBe(0.95);
    expect(parseRate('97.5%')).toBe(0.975);
    expect(() => parseDuration('2 hours')).toThrow(/not a duration/);
    expect(promotionRules({})).toMatchObject({
      soakMs: 24 * H,
      minDevices: 20,
      successRate: 0.95,
      maxFailureRate: 0.1,
      deadlineMs: 72 * H,
      onFailure: 'stop',
      toWave: null,
    });
  });
});

describe('evaluateGate', () => {
  it('passes a soaked, healthy wave with one skip-wave; excludes tenants without consent', () => {
    const { report, clock } = evaluateGate(input({}));
    expect(clock).toBeUndefined();
    expect(report).toMatchObject({ verdict: 'Pass', action: 'skip-wave', devices: 303, wave: 2, waveCount: 2 });
    expect(report.tenants.map((t) => `${t.name}:${t.verdict}`)).toEqual(['Fabrikam:Pass', 'Contoso:Pass', 'Tailspin:Excluded']);
    expect(report.line).toBe(
      'Deployment/seven-zip  wave 2/2: soak 13h/12h; success 99.0% over 303 devices; 1 excluded (no admin consent: Tailspin) → Pass: complete the rollout',
    );
  });

  it('is inconclusive while soaking, with the end of the soak as the next check', () => {
    const { report } = evaluateGate(input({ now: at(11.5) }));
    expect(report).toMatchObject({ verdict: 'Inconclusive', action: 'none', nextCheckAt: at(12).toISOString() });
    expect(report.line).toMatch(/^Deployment\/seven-zip {2}wave 2\/2: soak 11h30m\/12h; success 99\.0% over 303 devices/);
  });

  it('fails fast on a tenant above maxFailureRate, soak or not; onFailure picks stop or hold', () => {
    const read = counts([
      [FABRIKAM, 60, 40],
      [CONTOSO, 200, 2],
    ]);
    const stop = evaluateGate(input({ read, now: at(1) })).report;
    expect(stop).toMatchObject({ verdict: 'Fail', action: 'stop' });
    expect(stop.reason).toBe('Fabrikam: 40.0% failed > 10.0% over 100 devices');
    expect(stop.tenants.find((t) => t.name === 'Fabrikam')?.verdict).toBe('Fail');
    const hold = evaluateGate(input({ read, now: at(1), rules: { ...rules, onFailure: 'hold' } })).report;
    expect(hold).toMatchObject({ verdict: 'Fail', action: 'hold' });
  });

  it('never judges a failure rate from fewer than minDevices reports', () => {
    const { report } = evaluateGate(
      input({
        read: counts([
          [FABRIKAM, 5, 5],
          [CONTOSO, 200, 2],
        ]),
        now: at(13),
      }),
    );
    expect(report).toMatchObject({ verdict: 'Inconclusive', action: 'none', nextCheckAt: at(36).toISOString() });
    expect(report.line).toContain('1 of 2 tenants inconclusive (Fabrikam: 10 < 20)');
  });

  it('fails at the deadline when still inconclusive after the soak', () => {
    const read = counts([
      [FABRIKAM, 3, 0],
      [CONTOSO, 200, 2],
    ]);
    expect(evaluateGate(input({ read, now: at(35.9) })).report.verdict).toBe('Inconclusive');
    const late = evaluateGate(input({ read, now: at(36) })).report;
    expect(late).toMatchObject({ verdict: 'Fail', action: 'stop' });
    expect(late.reason).toBe('still inconclusive 24h after the soak (deadline): Fabrikam: 3 < 20');
  });

  it('a success rate between the two thresholds is inconclusive, not a pass', () => {
    const { report } = evaluateGate(
      input({
        read: counts([
          [FABRIKAM, 92, 8],
          [CONTOSO, 200, 2],
        ]),
      }),
    );
    expect(report.verdict).toBe('Inconclusive');
    expect(report.tenants[0]).toMatchObject({ verdict: 'Inconclusive', why: '92.0% < 95.0%' });
  });

  it('ignores live data of another deployment or another wave', () => {
    for (const read of [
      counts(
        [
          [FABRIKAM, 100, 0],
          [CONTOSO, 200, 0],
        ],
        'd0',
      ),
      counts(
        [
          [FABRIKAM, 100, 0],
          [CONTOSO, 200, 0],
        ],
        'd1',
        'w1',
      ),
    ]) {
      const { report } = evaluateGate(input({ read }));
      expect(report).toMatchObject({ verdict: 'Inconclusive', devices: 0, action: 'none' });
      expect(report.line).toMatch(/ignored/);
    }
  });

  it('starts the soak when a wave is first seen, and keeps a recorded one (a restart does not reset it)', () => {
    const fresh = evaluateGate(input({ record: record(0, 1), now: at(20) }));
    expect(fresh.clock).toEqual({ deploymentId: 'd1', wave: 2, since: at(20).toISOString() });
    expect(fresh.report).toMatchObject({ verdict: 'Inconclusive', soakElapsedMs: 0 });
    const other = evaluateGate(input({ record: { ...record(0), deploymentId: 'd0' }, now: at(20) }));
    expect(other.clock?.since).toBe(at(20).toISOString());
    const kept = evaluateGate(input({ record: record(3), now: at(20) }));
    expect(kept.clock).toBeUndefined();
    expect(kept.report.soakElapsedMs).toBe(17 * H);
  });

  it('judges only reports after the resume baseline', () => {
    const rec = { ...record(0), baseline: { [FABRIKAM.id]: { installed: 60, failed: 40 } } };
    const { report } = evaluateGate(
      input({
        record: rec,
        read: counts([
          [FABRIKAM, 100, 41],
          [CONTOSO, 200, 2],
        ]),
      }),
    );
    expect(report.tenants[0]).toMatchObject({ installed: 40, failed: 1, verdict: 'Pass' });
    expect(report.verdict).toBe('Pass');
  });

  it('stops promoting at toWave', () => {
    const { report } = evaluateGate(input({ rules: { ...rules, toWave: 2 } }));
    expect(report).toMatchObject({ verdict: 'Pass', action: 'none' });
    expect(report.line).toMatch(/at toWave 2, promoting no further$/);
  });

  it('a failed read is no verdict; a held deployment is not judged', () => {
    const err = evaluateGate(input({ read: { ok: false, error: { code: 'API_UNAVAILABLE', message: 'x' } } })).report;
    expect(err.verdict).toBeUndefined();
    expect(err).toMatchObject({ action: 'none', readError: { code: 'API_UNAVAILABLE' } });
    const held = evaluateGate(
      input({
        hold: {
          at: at(2).toISOString(),
          deploymentId: 'd1',
          wave: 2,
          reason: 'Fabrikam: 40.0% failed > 10.0% over 100 devices',
          stopped: true,
        },
      }),
    ).report;
    expect(held).toMatchObject({ action: 'none' });
    expect(held.verdict).toBeUndefined();
    expect(held.line).toMatch(/^Deployment\/seven-zip {2}wave 2\/2: held since 2026-11-22 02:00 \(wave 2\): Fabrikam: 40\.0% failed/);
  });
});
