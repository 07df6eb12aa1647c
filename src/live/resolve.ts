/**
 * Name → id resolution for catalog apps, script templates and tenants (pure). Manifests may name
 * these by UUID or by a unique human name; unknown or ambiguous names become an object error that
 * lists the candidates, never a guess.
 */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
import { PacksyncError } from '../util/errors.js';

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

export class ResolveError extends PacksyncError<'REF_UNKNOWN' | 'REF_AMBIGUOUS'> {
  /**
   * Dotted manifest path of the field that named the reference (`spec.catalog.app`), so the plan
   * can point at that field's line and column instead of the document's start.
   */
  readonly field: string | undefined;
  constructor(code: 'REF_UNKNOWN' | 'REF_AMBIGUOUS', message: string, field?: string) {
    super(code, message);
    this.field = field;
  }
}

export interface Named {
  id: string;
}

/** How a candidate is shown: the name a manifest can use (quoted) and what tells it apart. */
export interface Described {
  name: string;
  detail: string;
}

/** `"7-Zip" (1111…)`: only the usable name is quoted, so it can be copied into the manifest as is. */
export function candidateText(d: Described): string {
  return `"${d.name}" (${d.detail})`;
}

/** An unknown name lists every candidate up to this many. */
const LISTED = 20;

/** An index over one list, built once per plan so resolution is O(1) per reference. */
export class NameIndex<T extends Named> {
  private readonly byId = new Map<string, T>();
  private readonly byName = new Map<string, T[]>();

  constructor(
    private readonly what: string,
    items: readonly T[],
    names: (item: T) => string[],
    private readonly describe: (item: T) => Described,
  ) {
    for (const item of items) {
      this.byId.set(item.id.toLowerCase(), item);
      for (const n of new Set(names(item).map((x) => x.toLowerCase()))) {
        const list = this.byName.get(n);
        if (list) list.push(item);
        else this.byName.set(n, [item]);
      }
    }
  }

  get(id: string): T | undefined {
    return this.byId.get(id.toLowerCase());
  }

  /**
   * Resolves a UUID or a unique name (case-insensitive); throws ResolveError otherwise, carrying
   * `field` (the manifest path that named `ref`) for the error's position.
   */
  resolve(ref: string, field?: string): T {
    if (isUuid(ref)) {
      const hit = this.byId.get(ref.toLowerCase());
      if (hit) return hit;
      throw new ResolveError('REF_UNKNOWN', `unknown ${this.what} id ${ref}`, field);
    }
    const hits = this.byName.get(ref.toLowerCase()) ?? [];
    if (hits.length === 1 && hits[0]) return hits[0];
    if (hits.length > 1) {
      const list = hits
        .map((h) => candidateText(this.describe(h)))
        .sort()
        .join(', ');
      throw new ResolveError('REF_AMBIGUOUS', `${this.what} "${ref}" is ambiguous; candidates: ${list}`, field);
    }
    throw new ResolveError('REF_UNKNOWN', `unknown ${this.what} "${ref}"${this.candidates(ref)}`, field);
  }

  /**
   * What an unknown name could have been: the close names, else every one when the list is short
   * (tenants, templates), else how many there are (a thousand catalog apps are not listed).
   */
  private candidates(ref: string): string {
    const near = this.suggest(ref);
    if (near.length > 0) return `; did you mean ${near.join(' or ')}?`;
    const all = [...this.byId.values()];
    if (all.length === 0) return `; the account has none`;
    if (all.length <= LISTED)
      return `; candidates: ${all
        .map((i) => candidateText(this.describe(i)))
        .sort()
        .join(', ')}`;
    return `; none of the ${all.length} is close (name one by its exact name or id)`;
  }

  private suggest(ref: string): string[] {
    const r = ref.toLowerCase();
    const scored: [number, string][] = [];
    for (const [name, items] of this.byName) {
      const d = distance(r, name);
      if (d <= Math.max(2, Math.floor(r.length / 4)) || name.includes(r) || r.includes(name)) {
        for (const item of items) scored.push([d, candidateText(this.describe(item))]);
      }
    }
    return [...new Set(scored.sort((a, b) => a[0] - b[0]).map((s) => s[1]))].slice(0, 3);
  }
}

/** Levenshtein distance, bounded inputs (names are at most a few hundred characters). */
export function distance(a: string, b: string): number {
  if (a === b) return 0;
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] ?? 0;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] ?? 0;
      prev[j] = Math.min(up + 1, (prev[j - 1] ?? 0) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length] ?? 0;
}
