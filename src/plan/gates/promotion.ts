/**
 * Promotion gates (docs/manifests.md), pure: one deployment's current wave, its live data, the recorded
 * soak clock and the service's time in; a verdict per tenant and for the wave, the action it calls
 * for, the clock to keep and the plan's gate line out. No I/O and no clock of its own, so every
 * verdict can be replayed from the figures a plan shows.
 */
import type { GateHold, GateLogEntry, PromotionRecord } from '../../state/inventory-types.js';
import type { V1DeploymentViewModel, V1TenantViewModel, V1WaveViewModel } from '../../api/wire/index.js';
import type { WaveLiveRead } from '../../live/types.js';
import type { PromotionRules } from '../../manifests/promotion-values.js';
import type { ErrorCode } from '../../util/errors.js';
import { formatCount } from '../../util/count-format.js';

export type GateVerdict = 'Pass' | 'Fail' | 'Inconclusive';
export type GateAction = 'skip-wave' | 'stop' | 'hold' | 'none';

export interface TenantGate {
  tenantId: string;
  name: string;
  /** Reports since the baseline (all of them without one). */
  installed: number;
  failed: number;
  reports: number;
  /** installed / reports; null without reports. */
  successRate: number | null;
  verdict: GateVerdict | 'Excluded';
  /** Why a tenant is not Pass, e.g. `3 < 20`, `91.0% < 95%`, `no admin consent`. */
  why?: string;
}

export interface GateReport {
  key: string;
  deploymentId: string;
  wave: number;
  waveCount: number;
  /** Judged verdict; absent when the gate did not judge (held, or the read failed). */
  verdict?: GateVerdict;
  held?: GateHold;
  action: GateAction;
  soakMs: number;
  soakElapsedMs: number;
  /** Service time the wave's soak started (ISO). */
  since: string;
  /** Service time the figures were judged at (ISO). */
  at: string;
  /** Reports over every tenant that is not excluded. */
  devices: number;
  successRate: number | null;
  tenants: TenantGate[];
  /** Why the verdict, with its figures (stable text: no times). */
  reason: string;
  /** The plan's gate line: `Deployment/NAME  wave k/n: ...`. */
  line: string;
  /** Service time when judging again may change the verdict (end of soak, deadline). */
  nextCheckAt?: string;
  /** The live read failed: an error of the pass. */
  readError?: { code: ErrorCode; message: string };
  /** The newest promote or resume a person ran (from the state), for status and events. */
  lastCommand?: GateLogEntry;
  /** The gate passed but a closed change window holds its skip (`waits for window …`): nothing was done this pass. */
  windowHeld?: string;
}

export interface GateInput {
  key: string;
  rules: PromotionRules;
  live: V1DeploymentViewModel;
  /** The flow's waves (details); the wave's tenants come from here. */
  waves: readonly V1WaveViewModel[];
  tenants: readonly V1TenantViewModel[];
  read: WaveLiveRead | undefined;
  record: PromotionRecord | undefined;
  hold: GateHold | undefined;
  /** The service's clock. */
  now: Date;
}

export interface GateEvaluation {
  report: GateReport;
  /** The soak clock to keep when it differs from the recorded one (a wave seen for the first time). */
  clock?: PromotionRecord;
}

export function evaluateGate(g: GateInput): GateEvaluation {
  const { live, rules, now } = g;
  const wave = live.currentWave;
  const base = { key: g.key, deploymentId: live.id, wave, waveCount: live.waveCount, soakMs: rules.soakMs, at: now.toISOString() };
  const head = `${g.key}  wave ${wave}/${live.waveCount}`;
  if (g.hold) return { report: heldReport(g.key, g.hold, base, head) };
  // The soak clock belongs to one wave of one live deployment: anything else starts it now.
  const same = g.record !== undefined && g.record.deploymentId === live.id && g.record.wave === wave;
  const clock: PromotionRecord | undefined = same ? undefined : { deploymentId: live.id, wave, since: now.toISOString() };
  const record = same ? g.record! : clock!;
  const sinceMs = Date.parse(record.since);
  const soakElapsedMs = Math.max(0, now.getTime() - sinceMs);
  const soakEnd = sinceMs + rules.soakMs;
  const soakText = `soak ${hours(soakElapsedMs)}/${hours(rules.soakMs)}`;
  const withClock = (report: GateReport): GateEvaluation => (clock ? { report, clock } : { report });

  if (!g.read || !g.read.ok) {
    const readError: { code: ErrorCode; message: string } =
      g.read && !g.read.ok ? g.read.error : { code: 'GATE_READ_MISSING', message: 'the wave live data was not read' };
    const reason = `the live data of wave ${wave} could not be read (${readError.code}); no verdict this pass`;
    return withClock({
      ...base,
      action: 'none',
      soakElapsedMs,
      since: record.since,
      devices: 0,
      successRate: null,
      tenants: [],
      reason,
      line: `${head}: ${soakText}; ${reason}`,
      readError,
    });
  }

  const data = g.read.data;
  const waveDef = g.waves.find((w) => w.index === wave);
  // Live data counts only when it is this deployment's and this wave's (an earlier wave or another
  // deployment of the flow is ignored: Argo CD's RollingSync judged a step on stale status, #29410).
  const belongs = data.deploymentId === live.id && (live.currentWaveId === null || data.waveId === live.currentWaveId);
  const counts = new Map(belongs ? data.tenants.map((t) => [t.tenantId, t]) : []);
  const tenantIds = waveDef?.tenantIds ?? data.tenants.map((t) => t.tenantId);
  const tenants = tenantGates(tenantIds, { g, counts, baseline: record.baseline });

  const judged = tenants.filter((t) => t.verdict !== 'Excluded');
  const devices = judged.reduce((n, t) => n + t.reports, 0);
  const installed = judged.reduce((n, t) => n + t.installed, 0);
  const successRate = devices > 0 ? installed / devices : null;
  const failing = judged.filter((t) => t.verdict === 'Fail');
  const inconclusive = judged.filter((t) => t.verdict === 'Inconclusive');

  const { verdict, reason, nextCheckAt } = waveVerdict({ judged, failing, inconclusive, rules, now, soakEnd });

  let action: GateAction = 'none';
  if (verdict === 'Fail') action = rules.onFailure === 'stop' ? 'stop' : 'hold';
  else if (verdict === 'Pass' && (rules.toWave === null || wave < rules.toWave)) action = 'skip-wave';

  const ignored = belongs
    ? undefined
    : `live data of ${data.deploymentId === live.id ? 'another wave' : `deployment ${data.deploymentId ?? '(none)'}`} ignored`;
  const figures = [
    soakText,
    ...tenantFigures({ tenants, judged, failing, inconclusive, successRate, devices }),
    ...(ignored ? [ignored] : []),
  ];
  const outcome = {
    'skip-wave': wave >= live.waveCount ? '→ Pass: complete the rollout' : `→ Pass: skip to wave ${wave + 1}`,
    stop: `→ Fail: stop and hold`,
    hold: `→ Fail: hold (no call)`,
    none: verdict === 'Pass' ? `→ Pass: at toWave ${rules.toWave ?? wave}, promoting no further` : `→ ${verdict}`,
  }[action];
  const line = `${head}: ${figures.join('; ')} ${outcome}`;
  const report: GateReport = { ...base, verdict, action, soakElapsedMs, since: record.since, devices, successRate, tenants, reason, line };
  if (nextCheckAt !== undefined) report.nextCheckAt = new Date(nextCheckAt).toISOString();
  return withClock(report);
}

/** Durations as a gate line shows them, in whole hours and minutes: `14h`, `1h30m`, `72h`, `45m`. */
function hours(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 60_000));
  const h = Math.floor(total / 60);
  const m = total % 60;
  return h === 0 ? `${m}m` : m === 0 ? `${h}h` : `${h}h${m}m`;
}

function pct(x: number): string {
  return `${(Math.floor(x * 1000) / 10).toFixed(1)}%`;
}

/** Each tenant of the wave judged on its own (excluded without admin consent), counts net of the wave's baseline. */
function tenantGates(
  tenantIds: readonly string[],
  o: { g: GateInput; counts: Map<string, { installed: number; failed: number }>; baseline: PromotionRecord['baseline'] },
): TenantGate[] {
  const rules = o.g.rules;
  const byId = new Map(o.g.tenants.map((t) => [t.id, t]));
  return tenantIds.map((id) => {
    const t = byId.get(id);
    const name = t?.displayName ?? id;
    if (t && !t.adminConsentGranted)
      return { tenantId: id, name, installed: 0, failed: 0, reports: 0, successRate: null, verdict: 'Excluded', why: 'no admin consent' };
    const c = o.counts.get(id);
    const installed = Math.max(0, (c?.installed ?? 0) - (o.baseline?.[id]?.installed ?? 0));
    const failed = Math.max(0, (c?.failed ?? 0) - (o.baseline?.[id]?.failed ?? 0));
    const reports = installed + failed;
    const successRate = reports > 0 ? installed / reports : null;
    const tg: TenantGate = { tenantId: id, name, installed, failed, reports, successRate, verdict: 'Inconclusive' };
    if (reports >= rules.minDevices && failed / reports > rules.maxFailureRate) {
      tg.verdict = 'Fail';
      tg.why = `${pct(failed / reports)} failed > ${pct(rules.maxFailureRate)}`;
    } else if (reports < rules.minDevices) {
      tg.why = `${reports} < ${rules.minDevices}`;
    } else if ((successRate ?? 0) >= rules.successRate) {
      tg.verdict = 'Pass';
    } else {
      tg.why = `${pct(successRate ?? 0)} < ${pct(rules.successRate)}`;
    }
    return tg;
  });
}

/** The wave's verdict from its tenants', the soak and the deadline; when to look again while inconclusive. */
function waveVerdict(o: {
  judged: readonly TenantGate[];
  failing: readonly TenantGate[];
  inconclusive: readonly TenantGate[];
  rules: PromotionRules;
  now: Date;
  soakEnd: number;
}): { verdict: GateVerdict; reason: string; nextCheckAt?: number } {
  const { judged, failing, inconclusive, rules, now, soakEnd } = o;
  const deadline = soakEnd + rules.deadlineMs;
  if (failing.length > 0)
    return { verdict: 'Fail', reason: failing.map((t) => `${t.name}: ${t.why ?? ''} over ${formatCount(t.reports)} devices`).join('; ') };
  if (now.getTime() < soakEnd) return { verdict: 'Inconclusive', reason: `soaking until ${hours(rules.soakMs)}`, nextCheckAt: soakEnd };
  if (inconclusive.length === 0) {
    const reason =
      judged.length === 0
        ? 'soaked; no tenant of the wave can report (all excluded)'
        : `soaked; every tenant at least ${pct(rules.successRate)} over at least ${rules.minDevices} devices`;
    return { verdict: 'Pass', reason };
  }
  if (now.getTime() >= deadline) {
    const which = inconclusive.map((t) => `${t.name}: ${t.why ?? ''}`).join(', ');
    return { verdict: 'Fail', reason: `still inconclusive ${hours(rules.deadlineMs)} after the soak (deadline): ${which}` };
  }
  return { verdict: 'Inconclusive', reason: `${inconclusive.length} of ${judged.length} tenants inconclusive`, nextCheckAt: deadline };
}

/** The gate line's figures after the soak: success, inconclusive, failing and excluded tenants. */
function tenantFigures(o: {
  tenants: readonly TenantGate[];
  judged: readonly TenantGate[];
  failing: readonly TenantGate[];
  inconclusive: readonly TenantGate[];
  successRate: number | null;
  devices: number;
}): string[] {
  const { tenants, judged, failing, inconclusive } = o;
  const whys = (xs: readonly TenantGate[]): string => xs.map((t) => `${t.name}: ${t.why ?? ''}`).join(', ');
  const excluded = tenants.filter((t) => t.verdict === 'Excluded');
  return [
    o.successRate === null ? 'no reports yet' : `success ${pct(o.successRate)} over ${formatCount(o.devices)} devices`,
    ...(inconclusive.length > 0 ? [`${inconclusive.length} of ${judged.length} tenants inconclusive (${whys(inconclusive)})`] : []),
    ...(failing.length > 0 ? [`${failing.length} of ${judged.length} tenants failing (${whys(failing)})`] : []),
    ...(excluded.length > 0 ? [`${excluded.length} excluded (no admin consent: ${excluded.map((t) => t.name).join(', ')})`] : []),
  ];
}

/** A held deployment is not judged: its report says since when, why, and how to release it. */
function heldReport(
  key: string,
  hold: GateHold,
  base: Omit<GateReport, 'action' | 'soakElapsedMs' | 'since' | 'devices' | 'successRate' | 'tenants' | 'reason' | 'line'>,
  head: string,
): GateReport {
  const line = `${head}: held since ${hold.at.slice(0, 16).replace('T', ' ')} (wave ${hold.wave}): ${hold.reason}; \`packsync resume ${key} --reason ...\` releases it`;
  return {
    ...base,
    held: hold,
    action: 'none',
    soakElapsedMs: 0,
    since: hold.at,
    devices: 0,
    successRate: null,
    tenants: [],
    reason: hold.reason,
    line,
  };
}
