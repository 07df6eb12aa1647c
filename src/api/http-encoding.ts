/**
 * Pure helpers for what goes on and comes off the wire: query encoding, response headers, error
 * bodies, and the network error code buried in an undici error. No I/O, no state, so the transport,
 * the retry decision and the response decoders share them and tests call them directly.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ProblemDetails } from './wire/index.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** A whole answer: status, headers and the body read to the end. */
export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Set when the body carries a secret (the key echoed in a 200 answer): its JSON readers redact every string. */
  echoes?: readonly string[];
}

/** What an attempt puts on the wire besides the path: the key, content negotiation, and the body. */
export function encodeRequest(
  spec: { method: HttpMethod; accept?: string; body?: unknown; binary?: Uint8Array },
  apiKey: string,
): { headers: Record<string, string>; body: Buffer | Uint8Array | undefined } {
  const headers: Record<string, string> = {
    'x-api-key': apiKey,
    accept: spec.accept ?? 'application/json',
  };
  let body: Buffer | Uint8Array | undefined;
  if (spec.binary !== undefined) {
    headers['content-type'] = 'application/octet-stream';
    body = spec.binary;
  } else if (spec.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = Buffer.from(JSON.stringify(spec.body), 'utf8');
  } else if (spec.method === 'POST') {
    headers['content-length'] = '0';
  }
  return { headers, body };
}

/** The most specific error code in an error, its cause chain, or an AggregateError. */
export function networkCode(err: unknown): string {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (e !== null && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code) return code;
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      e = errors[0];
      continue;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return 'UNKNOWN';
}

/**
 * Query string: keys as given (camelCase), undefined/null skipped, booleans `true`/`false`,
 * arrays as a repeated `key[]` (the form `Get-RobopackFlow.ps1` sends for `tenants[]`).
 */
export function encodeQuery(query: object | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  const value = (v: unknown, key: string): string => {
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new TypeError(`query ${key} is not a finite number`);
      return String(v);
    }
    if (typeof v === 'string') return encodeURIComponent(v);
    throw new TypeError(`query ${key} has an unsupported type`);
  };
  const encKey = (k: string): string => encodeURIComponent(k).replace(/%5B%5D$/, '[]');
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) {
      const key = encKey(k.endsWith('[]') ? k : `${k}[]`);
      for (const item of v as unknown[]) if (item !== undefined && item !== null) parts.push(`${key}=${value(item, k)}`);
    } else {
      parts.push(`${encKey(k)}=${value(v, k)}`);
    }
  }
  return parts.join('&');
}

/** The file name of a `Content-Disposition` header (`filename*` wins over `filename`). */
export function parseContentDisposition(value: string | string[] | undefined): string | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  const star = /filename\*\s*=\s*([^;]+)/i.exec(raw);
  if (star?.[1]) {
    const v = star[1].trim().replace(/^"(.*)"$/, '$1');
    const m = /^([^']*)'[^']*'(.*)$/.exec(v);
    try {
      return decodeURIComponent(m?.[2] ?? v);
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(raw);
  if (!plain) return null;
  const name = plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : (plain[1] ?? '').trim();
  return name || null;
}

/** The first value of a response header. */
export function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Problem details from an error body: RFC 7807 JSON, any JSON object, or null. */
export function readProblem(body: Buffer): ProblemDetails | null {
  if (body.length === 0) return null;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as ProblemDetails;
    if (typeof parsed === 'string' && parsed.trim()) return { detail: parsed.trim() };
  } catch {
    // a plain-text or HTML error page: not worth quoting
  }
  return null;
}
