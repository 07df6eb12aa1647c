/**
 * Wave live data (docs/api-model.md): every tenant has a fixed number of managed devices; once a wave is
 * current, its tenants' devices report one by one over about six virtual hours, each install
 * succeeding or failing by the outcome rules in force when it reports. Nothing is stored per
 * device: a device's report time and its roll are hashes of (seed, deployment, tenant, device), so
 * counts are a pure function of the deployment's history and the clock, never of call timing.
 */
import type { V1WaveTenantLiveDataViewModel } from '../api/wire/index.js';
import type { Fixtures } from './fixtures.js';

/** Virtual ms after a wave becomes current before the first device reports (chosen: 30 min). */
export const FIRST_REPORT_MS = 30 * 60_000;
/** Every device has reported this long after the wave became current (chosen: 6 h). */
export const LAST_REPORT_MS = 6 * 3_600_000;
/** Share of a tenant's devices the app does not apply to (chosen: 5 %, counted as notApplicable). */
const NOT_APPLICABLE = 0.05;

export interface OutcomeRule {
  /** Catalog app name or id. */
  app?: string;
  /** Package id. */
  package?: string;
  /** Tenant default domain, display name or id. */
  tenant?: string;
  failureRate: number;
}

export interface OutcomeSpec {
  default: { failureRate: number };
  rules: OutcomeRule[];
}

/** Chosen default when nobody set outcomes: 2 % of installs fail everywhere. */
export const DEFAULT_OUTCOMES: OutcomeSpec = { default: { failureRate: 0.02 }, rules: [] };

/** A rule set and the virtual time it took effect: it decides devices that report from then on. */
export interface OutcomeEpoch {
  at: number;
  spec: OutcomeSpec;
  /** The body as given, for `GET /_sim/outcomes`. */
  given: unknown;
}

export class OutcomeSpecError extends Error {}

function rate(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1)
    throw new OutcomeSpecError(`${where}.failureRate must be a number from 0 to 1`);
  return v;
}

function optText(o: Record<string, unknown>, k: string, where: string): string | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw new OutcomeSpecError(`${where}.${k} must be a non-empty string`);
  return v.trim();
}

/** Validates a `PUT /_sim/outcomes` body. */
export function parseOutcomes(body: unknown): OutcomeSpec {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new OutcomeSpecError('outcomes must be a JSON object with "default" and/or "rules"');
  const b = body as Record<string, unknown>;
  const def = b.default === undefined ? DEFAULT_OUTCOMES.default : b.default;
  if (def === null || typeof def !== 'object' || Array.isArray(def))
    throw new OutcomeSpecError('default must be an object like {"failureRate": 0.02}');
  const rulesIn = b.rules ?? [];
  if (!Array.isArray(rulesIn)) throw new OutcomeSpecError('rules must be an array');
  const rules = rulesIn.map((r: unknown, i): OutcomeRule => {
    const where = `rules[${i}]`;
    if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new OutcomeSpecError(`${where} must be an object`);
    const o = r as Record<string, unknown>;
    const out: OutcomeRule = { failureRate: rate(o.failureRate, where) };
    const app = optText(o, 'app', where);
    const pkg = optText(o, 'package', where);
    const tenant = optText(o, 'tenant', where);
    if (app !== undefined) out.app = app;
    if (pkg !== undefined) out.package = pkg;
    if (tenant !== undefined) out.tenant = tenant;
    return out;
  });
  return { default: { failureRate: rate((def as Record<string, unknown>).failureRate, 'default') }, rules };
}

/** What one count needs to know about a deployment. */
export interface ReportSubject {
  deploymentId: string;
  packageId: string;
  appId: string | null;
  /** Virtual time the wave became current. */
  enteredMs: number;
  /** Running intervals of the deployment (end null while running); reports only advance inside them. */
  runs: readonly (readonly [number, number | null])[];
}

/** 32-bit FNV-1a of a string: the per-(deployment, tenant) part of every device's hash. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A uniform number in [0, 1) from a base hash, a device index and a salt (murmur3's finaliser). */
function unit(base: number, device: number, salt: number): number {
  let h = (base ^ Math.imul(device + 1, 0x9e3779b1) ^ Math.imul(salt, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** Running time of the deployment since the wave became current, up to `now`. */
function activeMs(s: ReportSubject, now: number): number {
  let total = 0;
  for (const [from, to] of s.runs) total += Math.max(0, Math.min(to ?? now, now) - Math.max(from, s.enteredMs));
  return total;
}

/** The virtual time at which `offset` ms of running time had passed since the wave became current. */
function wallTimeAt(s: ReportSubject, offset: number): number {
  let left = offset;
  for (const [from, to] of s.runs) {
    const start = Math.max(from, s.enteredMs);
    const end = to ?? Infinity;
    if (end <= start) continue;
    if (start + left <= end) return start + left;
    left -= end - start;
  }
  return Infinity;
}

function failureRate(
  epochs: readonly OutcomeEpoch[],
  at: number,
  s: ReportSubject,
  tenant: { id: string; defaultDomain: string; displayName: string },
  fx: Fixtures,
): number {
  let spec = DEFAULT_OUTCOMES;
  for (const e of epochs) if (e.at <= at) spec = e.spec;
  const app = s.appId ? fx.appsById.get(s.appId) : undefined;
  const eq = (a: string, b: string | undefined): boolean => b !== undefined && a.toLowerCase() === b.toLowerCase();
  for (const r of spec.rules) {
    if (r.app !== undefined && !(eq(r.app, app?.name) || eq(r.app, s.appId ?? undefined))) continue;
    if (r.package !== undefined && !eq(r.package, s.packageId)) continue;
    if (r.tenant !== undefined && !(eq(r.tenant, tenant.id) || eq(r.tenant, tenant.defaultDomain) || eq(r.tenant, tenant.displayName)))
      continue;
    return r.failureRate;
  }
  return spec.default.failureRate;
}

/** One tenant's counts at `now` for a deployment whose wave became current at `s.enteredMs`. */
export function tenantCounts(
  fx: Fixtures,
  epochs: readonly OutcomeEpoch[],
  s: ReportSubject,
  tenantId: string,
  now: number,
): V1WaveTenantLiveDataViewModel {
  const tenant = fx.tenants.find((t) => t.id === tenantId);
  // A tenant without admin consent never gets the install: it reports nothing at all.
  if (!tenant?.adminConsentGranted) return { tenantId, installed: 0, failed: 0, pending: 0, notApplicable: 0 };
  const devices = fx.devices.get(tenantId) ?? 0;
  const notApplicable = Math.floor(devices * NOT_APPLICABLE);
  const applicable = devices - notApplicable;
  const active = activeMs(s, now);
  const base = fnv(`${fx.seed}:${s.deploymentId}:${tenantId}`);
  let installed = 0;
  let failed = 0;
  for (let i = 0; i < applicable; i++) {
    const offset = FIRST_REPORT_MS + unit(base, i, 1) * (LAST_REPORT_MS - FIRST_REPORT_MS);
    if (offset > active) continue;
    const rate = failureRate(epochs, wallTimeAt(s, offset), s, tenant, fx);
    if (unit(base, i, 2) < rate) failed++;
    else installed++;
  }
  return { tenantId, installed, failed, pending: applicable - installed - failed, notApplicable };
}
