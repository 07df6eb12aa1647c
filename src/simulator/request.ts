/**
 * Request parsing with the tolerance of ASP.NET Core model binding: query keys are matched
 * case-insensitively, unknown keys are ignored, booleans accept true/false/1/0, arrays accept both
 * `key` and `key[]`, enum inputs accept names or numbers.
 */
import { badRequest } from './problems.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

/** The largest `int32`, the bound of the interface's `int32` query parameters (`Page`, `chunk`). */
export const INT32_MAX = 2_147_483_647;

export class Query {
  private readonly values = new Map<string, string[]>();

  constructor(search: URLSearchParams) {
    for (const [k, v] of search) {
      const key = k.toLowerCase().replace(/\[\]$/, '');
      const list = this.values.get(key);
      if (list) list.push(v);
      else this.values.set(key, [v]);
    }
  }

  /** The raw query as a plain object (for the journal). */
  toJSON(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of this.values) out[k] = v.length === 1 ? v[0]! : v;
    return out;
  }

  str(name: string): string | undefined {
    const v = this.values.get(name.toLowerCase());
    return v?.[v.length - 1];
  }

  list(name: string): string[] {
    return (this.values.get(name.toLowerCase()) ?? []).flatMap((v) => v.split(',')).filter((v) => v.length > 0);
  }

  bool(name: string): boolean | undefined {
    const v = this.str(name);
    if (v === undefined || v === '') return undefined;
    const l = v.toLowerCase();
    if (l === 'true' || l === '1') return true;
    if (l === 'false' || l === '0') return false;
    throw badRequest(name, `The value '${v}' is not valid for ${name}.`);
  }

  /** `min`/`max` default to the JavaScript safe range: pass `INT32_MAX` for an `int32` parameter. */
  int(name: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const v = this.str(name);
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isInteger(n)) throw badRequest(name, `The value '${v}' is not valid for ${name}.`);
    if (n < min || n > max) throw badRequest(name, `${name} must be between ${min} and ${max}.`);
    return n;
  }

  requiredInt(name: string, min?: number, max?: number): number {
    const n = this.int(name, min, max);
    if (n === undefined) throw badRequest(name, `The ${name} field is required.`);
    return n;
  }

  uuid(name: string): string | undefined {
    const v = this.str(name);
    if (v === undefined || v === '') return undefined;
    if (!isUuid(v)) throw badRequest(name, `The value '${v}' is not valid for ${name}.`);
    return v.toLowerCase();
  }

  /** A repeated or comma-separated list of ids (`tenants[]=…&tenants[]=…`); one that is not a GUID is a 400, as model binding answers. */
  uuidList(name: string): string[] {
    return this.list(name).map((v) => {
      if (!isUuid(v)) throw badRequest(name, `The value '${v}' is not valid for ${name}.`);
      return v.toLowerCase();
    });
  }

  requiredUuid(name: string): string {
    const v = this.uuid(name);
    if (v === undefined) throw badRequest(name, `The ${name} field is required.`);
    return v;
  }
}

/** An enum input given as a name (any case) or as a number. */
export function enumInput<T extends Record<string, number>>(field: string, value: unknown, values: T): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Object.values(values).includes(value)) return value;
  if (typeof value === 'string') {
    const hit = Object.entries(values).find(([k]) => k.toLowerCase() === value.toLowerCase());
    if (hit) return hit[1];
    const n = Number(value);
    if (Number.isInteger(n) && Object.values(values).includes(n)) return n;
  }
  throw badRequest(field, `The value '${typeof value === 'string' ? value : JSON.stringify(value)}' is not valid for ${field}.`);
}

/** A JSON body that must be an object. */
export function jsonObject(body: Buffer, contentType: string | undefined): Record<string, unknown> {
  if (body.length === 0) throw badRequest('body', 'A non-empty request body is required.');
  if (contentType && !/json/i.test(contentType)) throw badRequest('body', `Unsupported content type ${contentType}.`);
  let v: unknown;
  try {
    v = JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('body', 'The request body is not valid JSON.');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest('body', 'The request body must be a JSON object.');
  return caseless(v as Record<string, unknown>);
}

/**
 * ASP.NET Core binds a body's JSON properties to the model case-insensitively (`sourcetype`,
 * `SOURCETYPE` and `sourceType` alike): a field is read by its name in any case. (Only the first
 * letter was folded before, so `{"sourcetype": "msi"}` was refused as a missing field.)
 */
function caseless(v: Record<string, unknown>): Record<string, unknown> {
  const byLower = new Map<string, unknown>();
  for (const [k, val] of Object.entries(v)) byLower.set(k.toLowerCase(), val);
  return new Proxy(v, {
    get: (_t, k) => (typeof k === 'string' ? byLower.get(k.toLowerCase()) : undefined),
    has: (_t, k) => typeof k === 'string' && byLower.has(k.toLowerCase()),
  });
}

export function optString(body: Record<string, unknown>, field: string, max = 256): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badRequest(field, `${field} must be a string.`);
  if (v.length > max) throw badRequest(field, `${field} must be at most ${max} characters.`);
  return v;
}

export function optBool(body: Record<string, unknown>, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw badRequest(field, `${field} must be true or false.`);
  return v;
}

export function optUuid(body: Record<string, unknown>, field: string): string | undefined {
  const v = optString(body, field);
  if (v === undefined || v === '') return undefined;
  if (!isUuid(v)) throw badRequest(field, `The value '${v}' is not a valid GUID for ${field}.`);
  return v.toLowerCase();
}
