/**
 * The evidence report (docs/reports.md): per tenant and period, what was rolled out, how fast and
 * how well. Pure: built from facts read elsewhere (report-read.ts), so every figure can be checked
 * against the simulator's journal and live data. The JSON format is `Report` as documented.
 */
import type { ExceptionFacts } from '../plan/types.js';
import type { DriftRecord, HistoryGateEntry, TenantCounts } from '../state/history.js';
import type { MissingTenant, RadarApp } from './radar.js';

export const REPORT_SCHEMA = 'packsync.dev/report/v1';

/** An owned flow whose details could not be read (after the client's retries): neither live nor deleted. */
export interface UnreadFlow {
  flowId: string;
  /** The state's manifest name of the flow (its id when no Flow key owns it any more). */
  flow: string;
  error: string;
}

/** Another read of the report that failed (wave live counts, an app's release times): what it left out. */
export interface UnreadLive {
  what: string;
  error: string;
}

/** One rollout as known from the state's history merged with the live deployment. */
export interface RolloutFacts {
  deploymentId: string;
  key: string;
  flow: string;
  /** The flow's live id, when the history recorded it (a rollout the service removed is told by it). */
  flowId?: string;
  app: string;
  appId?: string;
  version: string;
  waves: string[][];
  status: string | null;
  waveCount: number;
  startedAt: string | null;
  reached: { wave: number; at: string; by: string }[];
  completedAt: string | null;
  stoppedAt: string | null;
  gates: HistoryGateEntry[];
  counts: { source: 'live' | 'recorded'; at: string; tenants: Record<string, TenantCounts> } | null;
}

export interface ReportTenant {
  id: string;
  name: string;
  domain: string;
  rollouts: TenantRollout[];
  drift: DriftRecord[];
  radar: RadarApp[];
  summary: { rollouts: number; completed: number; installed: number; failed: number; holds: number; medianLatencyHours: number | null };
}

export interface TenantRollout {
  deployment: string;
  flow: string;
  app: string;
  version: string;
  /** The catalog's release time of this version, when it is a catalog app and the catalog lists it. */
  releasedAt: string | null;
  startedAt: string | null;
  /** Every wave the rollout reached (all tenants), in order. */
  waves: { wave: number; reachedAt: string; by: string }[];
  waveCount: number;
  /** This tenant's wave and when the rollout reached it (null: not yet). */
  tenantWave: number;
  tenantReachedAt: string | null;
  completedAt: string | null;
  stoppedAt: string | null;
  status: string | null;
  /** Release → completed, in hours (one decimal); null until both are known. */
  patchLatencyHours: number | null;
  installs: { installed: number; failed: number; pending: number; source: 'live' | 'recorded'; at: string } | null;
  gates: HistoryGateEntry[];
}

export interface Report {
  schema: typeof REPORT_SCHEMA;
  generatedAt: string;
  period: { from: string; to: string };
  /** True when nothing happened in the period for the tenants shown (the report says so). */
  empty: boolean;
  tenants: ReportTenant[];
  /** Tenants whose radar could not be read. */
  missingTenants: MissingTenant[];
  /** Owned flows whose details could not be read: their rollouts' status is `Unknown`, one the history never recorded is missing. */
  missingFlows: UnreadFlow[];
  /** Wave live counts and release times that could not be read: recorded counts (or none) and no release time shown instead. */
  missingReads: UnreadLive[];
  drift: DriftRecord[];
  totals: { rollouts: number; completed: number; installed: number; failed: number; holds: number; radarApps: number };
  /**
   * With a PATH: the Baselines' exceptions (deviations from the standard, with owner and reason), as
   * of the end of the period: still in force, or expired so the baseline applies again.
   */
  exceptions?: ReportException[];
}

export interface ReportException extends ExceptionFacts {
  state: 'in force' | 'expired';
}

export interface ReportFacts {
  generatedAt: string;
  from: Date;
  to: Date;
  tenants: { id: string; name: string; domain: string }[];
  rollouts: RolloutFacts[];
  /** Release times by `appId version`. */
  releases: Map<string, string>;
  drift: DriftRecord[];
  radar: { apps: RadarApp[]; missing: MissingTenant[] };
  missingFlows: UnreadFlow[];
  missingReads: UnreadLive[];
}

const HOUR = 3_600_000;

export function releaseKey(appId: string, version: string): string {
  return `${appId} ${version}`;
}

export function buildReport(f: ReportFacts): Report {
  const inPeriod = (t: string | null | undefined): boolean => {
    if (!t) return false;
    const ms = Date.parse(t);
    return ms >= f.from.getTime() && ms <= f.to.getTime();
  };
  const rollouts = f.rollouts.filter((r) => rolloutTimes(r).some(inPeriod));
  const drift = f.drift.filter((d) => inPeriod(d.at));
  const tenants = f.tenants.map((t): ReportTenant => {
    const mine = rollouts.flatMap((r) => tenantRollout(r, t.id, f.releases));
    const flows = new Set(mine.map((r) => `Flow/${r.flow}`));
    const keys = new Set(mine.map((r) => r.deployment));
    const tenantDrift = drift.filter((d) => keys.has(d.key) || flows.has(d.key));
    const radar = f.radar.apps.filter((a) => a.tenantId === t.id);
    return { ...t, rollouts: mine, drift: tenantDrift, radar, summary: summarise(mine) };
  });
  const sum = (k: 'installed' | 'failed'): number => tenants.reduce((n, t) => n + t.summary[k], 0);
  return {
    schema: REPORT_SCHEMA,
    generatedAt: f.generatedAt,
    period: { from: f.from.toISOString(), to: f.to.toISOString() },
    empty: tenants.every((t) => t.rollouts.length === 0) && drift.length === 0,
    tenants,
    missingTenants: f.radar.missing,
    missingFlows: f.missingFlows,
    missingReads: f.missingReads,
    drift,
    totals: {
      rollouts: rollouts.length,
      completed: rollouts.filter((r) => r.completedAt).length,
      installed: sum('installed'),
      failed: sum('failed'),
      holds: rollouts.reduce((n, r) => n + r.gates.filter(isHold).length, 0),
      radarApps: f.radar.apps.length,
    },
  };
}

/**
 * A moment as the report prints it: ISO 8601 in UTC (`…T04:23:34.040Z`), whether it came from the
 * service's wire form (`…T04:23:34.0400000+00:00`) or from packsync's clock, so one report has one form.
 */
function iso<T extends string | null | undefined>(t: T): T {
  if (!t) return t;
  const ms = Date.parse(t);
  return (Number.isNaN(ms) ? t : new Date(ms).toISOString()) as T;
}

/** Every moment of a rollout: it is in a period when one of them is. */
export function rolloutTimes(r: RolloutFacts): (string | null)[] {
  return [r.startedAt, r.completedAt, r.stoppedAt, ...r.reached.map((w) => w.at), ...r.gates.map((g) => g.at)];
}

function tenantRollout(r: RolloutFacts, tenantId: string, releases: Map<string, string>): TenantRollout[] {
  const index = r.waves.findIndex((w) => w.includes(tenantId));
  if (index < 0) return [];
  const releasedAt = r.appId ? (releases.get(releaseKey(r.appId, r.version)) ?? null) : null;
  const c = r.counts?.tenants[tenantId];
  const latency = releasedAt && r.completedAt ? Math.round(((Date.parse(r.completedAt) - Date.parse(releasedAt)) / HOUR) * 10) / 10 : null;
  const waves = r.reached.filter((w) => w.wave <= r.waveCount).sort((a, b) => a.wave - b.wave);
  const tenantReachedAt = waves.find((w) => w.wave === index + 1)?.at ?? null;
  // A wave never reached has no installs: its zero counts would read as "nothing installed".
  const installs = c && r.counts && (tenantReachedAt || r.completedAt) ? { ...c, source: r.counts.source, at: r.counts.at } : null;
  return [
    {
      deployment: r.key,
      flow: r.flow,
      app: r.app,
      version: r.version,
      releasedAt: iso(releasedAt),
      startedAt: iso(r.startedAt),
      waves: waves.map((w) => ({ wave: w.wave, reachedAt: iso(w.at), by: w.by })),
      waveCount: r.waveCount,
      tenantWave: index + 1,
      tenantReachedAt: iso(tenantReachedAt),
      completedAt: iso(r.completedAt),
      stoppedAt: iso(r.stoppedAt),
      status: r.status,
      patchLatencyHours: latency,
      installs,
      gates: r.gates.map((g) => ({ ...g, at: iso(g.at) })),
    },
  ];
}

/** A gate that held the rollout (onFailure hold or stop). */
export function isHold(g: HistoryGateEntry): boolean {
  return g.action === 'hold' || g.action === 'stop';
}

function summarise(rs: TenantRollout[]): ReportTenant['summary'] {
  const latencies = rs
    .map((r) => r.patchLatencyHours)
    .filter((x): x is number => x !== null)
    .sort((a, b) => a - b);
  const mid = latencies.length / 2;
  const median =
    latencies.length === 0
      ? null
      : latencies.length % 2
        ? latencies[Math.floor(mid)]!
        : Math.round(((latencies[mid - 1]! + latencies[mid]!) / 2) * 10) / 10;
  return {
    rollouts: rs.length,
    completed: rs.filter((r) => r.completedAt).length,
    installed: rs.reduce((n, r) => n + (r.installs?.installed ?? 0), 0),
    failed: rs.reduce((n, r) => n + (r.installs?.failed ?? 0), 0),
    holds: rs.reduce((n, r) => n + r.gates.filter(isHold).length, 0),
    medianLatencyHours: median,
  };
}
