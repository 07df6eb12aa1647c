/** A tiny router: method + path pattern with `:params`, literal segments matched before params. */
import type { Account } from './account.js';
import type { Query } from './request.js';

/** How create-like operations answer with an id: quoted JSON string, `{"id"}`, or unquoted `text/plain`. */
export type ResponseStyle = 'bare' | 'object' | 'text';

export interface RouteContext {
  account: Account;
  params: Record<string, string>;
  query: Query;
  body: Buffer;
  contentType: string | undefined;
  /** Virtual now, in ms. */
  now: number;
  responseStyle: ResponseStyle;
  /** Resolves after `virtualMs` of virtual time (for `wait=true`). */
  sleepVirtual: (virtualMs: number) => Promise<void>;
}

export interface RouteResult {
  status?: number;
  json?: unknown;
  binary?: { contentType: string; body: Buffer; fileName?: string };
  headers?: Record<string, string>;
}

export type Handler = (ctx: RouteContext) => RouteResult | Promise<RouteResult>;

/** One row of a route table: method, path pattern, operation name (as the client's operation table names it), handler. */
export type RouteSpec = readonly [method: string, pattern: string, operation: string, handler: Handler];

export interface Route {
  method: string;
  segments: string[];
  operation: string;
  handler: Handler;
}

export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, operation: string, handler: Handler): this {
    this.routes.push({ method, segments: pattern.split('/').filter(Boolean), operation, handler });
    return this;
  }

  /** Registers a route table, row by row. */
  addAll(table: readonly RouteSpec[]): this {
    for (const [method, pattern, operation, handler] of table) this.add(method, pattern, operation, handler);
    return this;
  }

  get size(): number {
    return this.routes.length;
  }

  /** Every route as registered (`/v1/app/:id`), for the test that holds them against the client's operation table. */
  list(): { method: string; pattern: string; operation: string }[] {
    return this.routes.map((r) => ({ method: r.method, pattern: `/${r.segments.join('/')}`, operation: r.operation }));
  }

  /**
   * `null` when no route has this path; `{ allowed }` when the path exists with other methods only
   * (the methods it has, for a 405's `Allow` header).
   */
  match(method: string, path: string): { route: Route; params: Record<string, string> } | null | { allowed: string[] } {
    const parts = path.split('/').filter(Boolean).map(decodeSegment);
    let best: { route: Route; params: Record<string, string>; score: number } | null = null;
    const allowed = new Set<string>();
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let score = 0;
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = route.segments[i]!;
        const part = parts[i]!;
        if (seg.startsWith(':')) params[seg.slice(1)] = part;
        else if (seg.toLowerCase() === part.toLowerCase()) score += 1 << (parts.length - i);
        else {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      allowed.add(route.method);
      if (route.method !== method) continue;
      if (!best || score > best.score) best = { route, params, score };
    }
    if (best) return { route: best.route, params: best.params };
    return allowed.size > 0 ? { allowed: [...allowed].sort() } : null;
  }
}

/** A path segment decoded; malformed percent-encoding (`%E0%A4%A`) stays as sent, so it matches no route or id (404) instead of throwing (500). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
