import { hash } from 'node:crypto';

/** JSON with sorted keys and `undefined` dropped, so equal values always serialise the same way. */
export function stableStringify(value: unknown): string {
  return write(value) ?? 'null';
}

// Writes directly instead of building a sorted copy first: the planner hashes every object, and
// at 100k objects the copies were most of its garbage.
function write(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => write(v) ?? 'null').join(',')}]`;
  const obj = value as Record<string, unknown>;
  let out = '';
  for (const k of Object.keys(obj).sort()) {
    const v = write(obj[k]);
    if (v === undefined) continue;
    out += `${out ? ',' : ''}${JSON.stringify(k)}:${v}`;
  }
  return `{${out}}`;
}

/** Short content hash of a value (sha256, 16 hex digits: collisions are not a threat model here). */
export function hashValue(value: unknown): string {
  return hash('sha256', stableStringify(value), 'hex').slice(0, 16);
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
