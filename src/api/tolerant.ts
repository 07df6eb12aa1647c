/**
 * Tolerant readers for the places where public clients disagree about the wire (docs/api-model.md):
 * ids returned as a bare JSON string or as an object, lists as a bare array or `{items}`, and
 * states as strings in any casing or as enum numbers (by the explicit code tables of
 * `wire/codes.ts`, never by position). Callers always see the canonical form.
 */
import { ApiError } from './errors.js';
import type {
  V1AppDetailsViewModel,
  V1DeploymentCurrentViewModel,
  V1DeploymentViewModel,
  V1FlowDetailsViewModel,
  V1PackageViewModel,
  V1TaskViewModel,
} from './wire/index.js';
import { CONTENT_UPDATE_STATUS_CODES, DEPLOYMENT_STATUS_CODES, PACKAGE_STATE_CODES, TASK_STATE_CODES } from './wire/index.js';

const ID_KEYS = ['id', 'packageId', 'deploymentId', 'flowId'] as const;
const UUID_RE = /^[{(]?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}[)}]?$/i;

function invalid(operation: string, what: string): ApiError {
  return new ApiError('API_INVALID_RESPONSE', `${operation}: invalid response: ${what}`, { operation });
}

function cleanId(s: string): string {
  return s.trim().replace(/^[{(]/, '').replace(/[)}]$/, '');
}

/**
 * The id of a created object from a response body: a bare string (`"3c85…"`), or an object with
 * `id`, `packageId`, `deploymentId` or `flowId` (first one found, in that order).
 */
export function readId(body: unknown, operation: string): string {
  if (typeof body === 'string') {
    const id = cleanId(body);
    if (id) return id;
    throw invalid(operation, 'empty id');
  }
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const o = body as Record<string, unknown>;
    for (const key of ID_KEYS) {
      const v = o[key];
      if (typeof v === 'string' && v.trim()) return cleanId(v);
    }
  }
  throw invalid(operation, 'no id in the body');
}

/**
 * Parses the raw text of an id-returning answer: JSON (string or object), or, as one client
 * shows, the bare GUID without quotes.
 */
export function readIdText(text: string, operation: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw invalid(operation, 'empty body where an id was expected');
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    if (UUID_RE.test(trimmed)) return cleanId(trimmed);
    throw invalid(operation, 'body is neither JSON nor an id');
  }
  return readId(parsed, operation);
}

/** A list body: a bare array, or an object wrapping one in `items` (any casing) or `data`. */
export function readList<T>(body: unknown, operation: string): T[] {
  if (Array.isArray(body)) return body as T[];
  if (body !== null && typeof body === 'object') {
    const o = body as Record<string, unknown>;
    for (const key of ['items', 'Items', 'data']) {
      const v = o[key];
      if (Array.isArray(v)) return v as T[];
    }
  }
  throw invalid(operation, 'expected a JSON array');
}

function squash(s: string): string {
  return s.replace(/[\s_-]/g, '').toLowerCase();
}

/** A state's name → its numeric code on the wire (e.g. `PACKAGE_STATE_CODES`). */
export type StateCodes<T extends string> = Readonly<Record<T, number>>;

/**
 * A state value as one of the names of `codes`: a string in any casing (`running`, `NOT_STARTED`),
 * or a number (or a string of digits) looked up in `codes`. Undefined when unknown.
 */
export function readState<T extends string>(value: unknown, codes: StateCodes<T>): T | undefined {
  const names = Object.keys(codes) as T[];
  const byCode = (n: number): T | undefined => names.find((name) => codes[name] === n);
  if (typeof value === 'number') return byCode(value);
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return byCode(Number(text));
  const want = squash(text);
  return names.find((a) => squash(a) === want);
}

/**
 * Replaces `obj[key]` by its canonical state. A value we cannot map is kept as received (a string,
 * so a newer server state reads as "not one we know" rather than failing the whole response).
 */
function normalizeField<O extends object, T extends string>(obj: O, key: keyof O & string, codes: StateCodes<T>): O {
  const rec = obj as Record<string, unknown>;
  if (!(key in rec)) return obj;
  const v = rec[key];
  const canonical = readState(v, codes);
  const next = canonical ?? (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v);
  if (next === v) return obj;
  return { ...obj, [key]: next };
}

function isObject(v: unknown): v is object {
  return v !== null && typeof v === 'object';
}

export function normalizePackage<P extends Partial<V1PackageViewModel>>(p: P): P {
  return isObject(p) ? normalizeField(p, 'state', PACKAGE_STATE_CODES) : p;
}

export function normalizeTask<P extends Partial<V1TaskViewModel>>(t: P): P {
  return isObject(t) ? normalizeField(t, 'state', TASK_STATE_CODES) : t;
}

export function normalizeDeployment<P extends Partial<V1DeploymentViewModel>>(d: P): P {
  if (!isObject(d)) return d;
  return normalizeField(normalizeField(d, 'status', DEPLOYMENT_STATUS_CODES), 'contentUpdateStatus', CONTENT_UPDATE_STATUS_CODES);
}

export function normalizeDeploymentCurrent<P extends Partial<V1DeploymentCurrentViewModel>>(d: P): P {
  return isObject(d) ? normalizeField(d, 'status', DEPLOYMENT_STATUS_CODES) : d;
}

export function normalizeFlowDetails<P extends Partial<V1FlowDetailsViewModel>>(f: P): P {
  if (!isObject(f)) return f;
  let out = f;
  if (Array.isArray(f.deployments)) out = { ...out, deployments: f.deployments.map((d) => normalizeDeployment(d)) };
  if (isObject(f.currentDeployment)) out = { ...out, currentDeployment: normalizeDeploymentCurrent(f.currentDeployment) };
  return out;
}

/**
 * An app's details with its versions as callers read them: a list, each with a `version` and its
 * release time in `createdDate` (RoboPackCLI reads `createdDate` or `timestamp`, docs/api-model.md).
 * Anything else is API_INVALID_RESPONSE naming the operation, never a TypeError where it is read.
 */
export function normalizeAppDetails(d: V1AppDetailsViewModel, operation: string): V1AppDetailsViewModel {
  if (!isObject(d)) throw invalid(operation, 'not an object');
  const raw = (d as { versions?: unknown }).versions;
  if (!Array.isArray(raw)) throw invalid(operation, 'versions is not a list');
  const versions = raw.map((v: unknown, i) => {
    const x = isObject(v) ? (v as Record<string, unknown>) : undefined;
    if (!x || typeof x.version !== 'string') throw invalid(operation, `versions[${i}] has no version`);
    const created = typeof x.createdDate === 'string' ? x.createdDate : x.timestamp;
    if (typeof created !== 'string') throw invalid(operation, `versions[${i}] has no createdDate or timestamp`);
    return { ...(x as unknown as V1AppDetailsViewModel['versions'][number]), createdDate: created };
  });
  return { ...d, versions };
}
