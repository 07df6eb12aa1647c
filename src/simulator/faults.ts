/**
 * Fault injection, one spec for the flag and the admin call: comma-separated `key=value` with keys
 * `5xx`, `429`, `reset` (rates 0..1), `latency` (added to every request, `100ms`, `1s` or a number
 * of ms) and `slow` (rate of requests delayed 5 s). Decisions come from a seeded PRNG so a failing
 * run can be repeated with the same seed. `path` (chosen, beyond docs/api-model.md) confines every fault to
 * requests whose path contains that text, e.g. `5xx=1,path=/live` fails only wave live reads, so a
 * test can fail one kind of read while the rest of a pass goes through; `method` (chosen) confines
 * them to one HTTP method, e.g. `5xx=1,method=DELETE` fails deletes while reads of the same path pass.
 */
import { seededRandom } from './random.js';
import { PacksyncError } from '../util/errors.js';

export interface FaultSpec {
  '5xx': number;
  '429': number;
  reset: number;
  latencyMs: number;
  slow: number;
  /** When set, only requests whose path contains it (in any case, as routes match) are faulted. */
  path?: string;
  /** When set, only requests of this HTTP method are faulted (a read and a delete share a path). */
  method?: string;
}

export const NO_FAULTS: FaultSpec = { '5xx': 0, '429': 0, reset: 0, latencyMs: 0, slow: 0 };

export class FaultSpecError extends PacksyncError<'SIM_BAD_FAULT_SPEC'> {
  constructor(message: string) {
    super('SIM_BAD_FAULT_SPEC', message);
  }
}

function rate(key: string, v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new FaultSpecError(`fault "${key}" must be a rate between 0 and 1 (got "${String(v)}")`);
  return n;
}

function duration(v: unknown): number {
  if (typeof v === 'number' && v >= 0) return v;
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(String(v).trim());
  if (!m) throw new FaultSpecError(`fault "latency" must look like 100ms or 1s (got "${String(v)}")`);
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
}

function fromEntries(entries: [string, unknown][]): FaultSpec {
  const spec: FaultSpec = { ...NO_FAULTS };
  for (const [k, v] of entries) {
    switch (k.trim()) {
      case '5xx':
        spec['5xx'] = rate(k, v);
        break;
      case '429':
        spec['429'] = rate(k, v);
        break;
      case 'reset':
        spec.reset = rate(k, v);
        break;
      case 'slow':
        spec.slow = rate(k, v);
        break;
      case 'latency':
      case 'latencyMs':
        spec.latencyMs = duration(v);
        break;
      case 'path':
        if (typeof v !== 'string' || v.trim() === '')
          throw new FaultSpecError('fault "path" must be a non-empty path fragment, e.g. /live');
        spec.path = v.trim();
        break;
      case 'method': {
        const m = typeof v === 'string' ? v.trim().toUpperCase() : '';
        if (!/^(GET|POST|PUT|PATCH|DELETE)$/.test(m)) throw new FaultSpecError('fault "method" must be GET, POST, PUT, PATCH or DELETE');
        spec.method = m;
        break;
      }
      default:
        throw new FaultSpecError(`unknown fault "${k}" (known: 5xx, 429, reset, latency, slow, path, method)`);
    }
  }
  if (spec['5xx'] + spec['429'] + spec.reset > 1) throw new FaultSpecError('the rates of 5xx, 429 and reset add up to more than 1');
  return spec;
}

/** Parses `5xx=0.1,429=0.05,reset=0.02,latency=100ms`, or a JSON object with the same keys. */
export function parseFaultSpec(input: string | Record<string, unknown>): FaultSpec {
  if (typeof input !== 'string') return fromEntries(Object.entries(input));
  const s = input.trim();
  if (s === '' || s === 'none') return { ...NO_FAULTS };
  if (s.startsWith('"')) {
    // The flag string sent as a JSON string body.
    let inner: unknown;
    try {
      inner = JSON.parse(s);
    } catch {
      throw new FaultSpecError('fault spec is not valid JSON');
    }
    return parseFaultSpec(String(inner));
  }
  if (s.startsWith('{')) {
    let obj: unknown;
    try {
      obj = JSON.parse(s);
    } catch {
      throw new FaultSpecError('fault spec is not valid JSON');
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new FaultSpecError('fault spec must be a JSON object');
    const o = obj as Record<string, unknown>;
    return typeof o.spec === 'string' ? parseFaultSpec(o.spec) : fromEntries(Object.entries(o));
  }
  return fromEntries(
    s.split(',').map((part) => {
      const i = part.indexOf('=');
      if (i < 0) throw new FaultSpecError(`fault "${part}" has no value (write key=value)`);
      return [part.slice(0, i), part.slice(i + 1)];
    }),
  );
}

export function formatFaultSpec(f: FaultSpec): string {
  const parts: string[] = [];
  if (f['5xx']) parts.push(`5xx=${f['5xx']}`);
  if (f['429']) parts.push(`429=${f['429']}`);
  if (f.reset) parts.push(`reset=${f.reset}`);
  if (f.latencyMs) parts.push(`latency=${f.latencyMs}ms`);
  if (f.slow) parts.push(`slow=${f.slow}`);
  if (f.path !== undefined && parts.length > 0) parts.push(`path=${f.path}`);
  if (f.method !== undefined && parts.length > 0) parts.push(`method=${f.method}`);
  return parts.join(',') || 'none';
}

export type FaultDecision =
  | { kind: 'none' }
  | { kind: 'status'; status: 500 | 502 | 503 | 429 }
  /** `after`: the request takes effect, then the connection is destroyed (a lost response). */
  | { kind: 'reset'; after: boolean };

export class FaultInjector {
  private rnd: () => number;
  spec: FaultSpec;

  constructor(spec: FaultSpec, seed: number) {
    this.spec = spec;
    this.rnd = seededRandom(seed ^ 0x5eed);
  }

  set(spec: FaultSpec): void {
    this.spec = spec;
  }

  /** Whether the spec's faults apply to a request for `path`. */
  applies(path: string, method?: string): boolean {
    if (this.spec.method !== undefined && method !== undefined && method !== this.spec.method) return false;
    return this.spec.path === undefined || path.toLowerCase().includes(this.spec.path.toLowerCase());
  }

  delayMs(path = '', method?: string): number {
    if (!this.applies(path, method)) return 0;
    return this.spec.latencyMs + (this.spec.slow > 0 && this.rnd() < this.spec.slow ? 5000 : 0);
  }

  decide(path = '', method?: string): FaultDecision {
    if (!this.applies(path, method)) return { kind: 'none' };
    const { reset } = this.spec;
    const r = this.rnd();
    if (r < reset) return { kind: 'reset', after: this.rnd() < 0.5 };
    if (r < reset + this.spec['5xx']) return { kind: 'status', status: ([500, 502, 503] as const)[Math.floor(this.rnd() * 3)]! };
    if (r < reset + this.spec['5xx'] + this.spec['429']) return { kind: 'status', status: 429 };
    return { kind: 'none' };
  }
}
