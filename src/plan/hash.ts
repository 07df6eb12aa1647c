import { createHash } from 'node:crypto';

/** JSON with sorted keys and `undefined` dropped, so equal values always serialise the same way. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortValue(value));
}

function sortValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortValue(v);
    }
    return out;
  }
  return value;
}

/** Short content hash of a value (sha256, 16 hex digits: collisions are not a threat model here). */
export function hashValue(value: unknown): string {
  return createHash('sha256').update(stableStringify(value)).digest('hex').slice(0, 16);
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
