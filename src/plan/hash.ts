import { createHash, hash } from 'node:crypto';
import type { LiveState } from '../live/types.js';

/** JSON with sorted keys and `undefined` dropped, so equal values always serialise the same way. */
export function stableStringify(value: unknown): string {
  return write(value) ?? 'null';
}

// Writes directly instead of building a sorted copy first: the planner hashes every object, and
// at 100k objects the copies were most of its garbage. Output is exactly JSON.stringify's for the
// same (key-sorted) value: strings without characters JSON escapes are quoted directly (any
// surrogate is left to JSON.stringify, which escapes lone ones), and the quoted form of each object
// key is cached (spec keys are a small, fixed vocabulary).
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 4096;

function quote(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function quoteKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = quote(k);
    if (quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(k, q);
  }
  return q;
}

/**
 * Sorts a fresh key list in place, as `sort()` would (UTF-16 code unit order). A spec object has a
 * handful of keys: insertion sort needs no work array, where `sort()` allocates one per call (4 MB
 * of a 19,750-object plan's garbage).
 */
function sortKeys(keys: string[]): void {
  if (keys.length > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
}

function write(value: unknown): string | undefined {
  if (typeof value === 'string') return quote(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => write(v) ?? 'null').join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length > 1) sortKeys(keys);
  let out = '';
  for (const k of keys) {
    const v = write(obj[k]);
    if (v === undefined) continue;
    out += out ? `,${quoteKey(k)}:${v}` : `${quoteKey(k)}:${v}`;
  }
  return `{${out}}`;
}

/**
 * hashValue's digest without building the text: the same bytes go into the hash in pieces, so the
 * digests of the whole live state and inventory (tens of MB of JSON at 15,000 objects, the largest
 * transient of a pass) cost a small buffer instead of one string the size of the state.
 */
export function digestValue(value: unknown): string {
  const d = new StreamedDigest();
  if (!d.walk(value)) d.put('null');
  return d.finish();
}

/** Stable JSON (stableStringify's bytes) streamed into a sha256 in 64K pieces. */
class StreamedDigest {
  private readonly h = createHash('sha256');
  private buf = '';

  put(s: string): void {
    this.buf += s;
    if (this.buf.length >= 65536) {
      this.h.update(this.buf);
      this.buf = '';
    }
  }

  /** Writes `v`; false (nothing written) for what JSON leaves out: undefined, functions, symbols. */
  walk(v: unknown): boolean {
    if (typeof v === 'string') {
      this.put(quote(v));
      return true;
    }
    if (v === null || typeof v !== 'object') {
      const t = JSON.stringify(v) as string | undefined;
      if (t === undefined) return false;
      this.put(t);
      return true;
    }
    if (Array.isArray(v)) {
      this.put('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) this.put(',');
        if (!this.walk(v[i])) this.put('null');
      }
      this.put(']');
      return true;
    }
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (keys.length > 1) keys.sort();
    this.put('{');
    let first = true;
    for (const k of keys) {
      const x = obj[k];
      // write() drops what serialises to undefined (undefined, functions, symbols).
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
      this.put(first ? `${quoteKey(k)}:` : `,${quoteKey(k)}:`);
      first = false;
      this.walk(x);
    }
    this.put('}');
    return true;
  }

  finish(): string {
    this.h.update(this.buf);
    return this.h.digest('hex').slice(0, 16);
  }
}

/** Short content hash of a value (sha256, 16 hex digits: collisions are not a threat model here). */
export function hashValue(value: unknown): string {
  return textHash(stableStringify(value));
}

/** hashValue of a value whose stable JSON is `text`. */
export function textHash(text: string): string {
  return hash('sha256', text, 'hex').slice(0, 16);
}

/** Names the top-level-or-nested fields that differ between two plain values. */
export function diffFields(from: unknown, to: unknown, prefix = ''): { field: string; from: unknown; to: unknown }[] {
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(from) && isObj(to)) {
    const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
    return keys.flatMap((k) => diffFields(from[k], to[k], prefix ? `${prefix}.${k}` : k));
  }
  return stableStringify(from) === stableStringify(to) ? [] : [{ field: prefix || '.', from, to }];
}

/**
 * The digest a saved plan is checked against: the live state without what always moves (the
 * service clock, wave counts). A wave change still moves it (deployments are in it).
 */
export function liveDigest(live: LiveState): string {
  const { serviceTime: _t, waveLive: _w, ...stable } = live;
  return digestValue(stable);
}

/** The digests a saved plan carries (`Plan.digests`). */
export function planDigests(live: LiveState, inventory: { history?: unknown }): { live: string; inventory: string } {
  return { live: liveDigest(live), inventory: inventoryDigest(inventory) };
}

/**
 * The inventory as a saved plan depends on it: its history (what the report reads, recorded by
 * every pass) is left out, so an agent pass that only recorded history does not make a plan stale.
 */
export function inventoryDigest(inventory: { history?: unknown }): string {
  return digestValue({ ...inventory, history: undefined });
}
