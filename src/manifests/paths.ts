/** JSON pointers and the dotted paths messages show (`spec.flags[1]`). */
import type { Segment } from './yaml-types.js';

export function toPointer(segments: readonly Segment[]): string {
  return segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** Splits an ajv instancePath; indices into arrays of `data` become numbers. */
export function fromPointer(pointer: string, data: unknown): Segment[] {
  if (pointer === '') return [];
  const out: Segment[] = [];
  let cur: unknown = data;
  for (const raw of pointer.split('/').slice(1)) {
    const s = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      const i = Number(s);
      out.push(i);
      cur = cur[i];
    } else {
      out.push(s);
      cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[s] : undefined;
    }
  }
  return out;
}

export function displayPath(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out === '' ? 'the document' : out;
}

export function valueAt(data: unknown, segments: readonly Segment[]): unknown {
  let cur = data;
  for (const s of segments) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[String(s)];
  }
  return cur;
}
