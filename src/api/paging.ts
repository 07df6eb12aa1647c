/**
 * Paging of list operations: the body is a bare JSON array and the metadata rides in the
 * `X-Pagination` response header (a JSON object, camelCase as captured; PascalCase accepted).
 *
 * The page base is not assumed: the vendor documents `Page` as 0-indexed while every public client
 * starts at 1 (docs/api-model.md). The first page is asked for without `page`, so any server answers its
 * own first page, and the `page` of that answer's header is the base the walk counts from.
 */
import { ApiError } from './errors.js';
import type { Page } from './operations.js';
import type { PaginationHeader } from './wire/index.js';

export const DEFAULT_ITEMS_PER_PAGE = 1000;
export const MAX_ITEMS_PER_PAGE = 1000;
/** A safety stop for a server whose header never says "last page". */
const MAX_PAGES = 100_000;

function pick(obj: Record<string, unknown>, name: string): unknown {
  if (name in obj) return obj[name];
  const pascal = name.charAt(0).toUpperCase() + name.slice(1);
  if (pascal in obj) return obj[pascal];
  const lower = name.toLowerCase();
  for (const k of Object.keys(obj)) if (k.toLowerCase() === lower) return obj[k];
  return undefined;
}

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function bool(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'True') return true;
  if (v === 'false' || v === 'False') return false;
  return null;
}

/**
 * Reads the header tolerantly. Null when it is absent, not JSON, or lacks both `page` and
 * `totalPages`; missing flags are derived from the numbers.
 */
export function parsePaginationHeader(value: string | string[] | undefined | null): PaginationHeader | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw === null || raw.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const o = parsed as Record<string, unknown>;
  const page = num(pick(o, 'page')) ?? num(pick(o, 'currentPage'));
  const totalPages = num(pick(o, 'totalPages'));
  if (page === null && totalPages === null) return null;
  const itemsPerPage = num(pick(o, 'itemsPerPage')) ?? num(pick(o, 'pageSize')) ?? 0;
  const totalCount = num(pick(o, 'totalCount')) ?? 0;
  const p = page ?? 1;
  const tp = totalPages ?? (itemsPerPage > 0 ? Math.ceil(totalCount / itemsPerPage) : p);
  return {
    totalCount,
    itemsPerPage,
    page: p,
    totalPages: tp,
    hasNext: bool(pick(o, 'hasNext')) ?? p < tp,
    hasPrevious: bool(pick(o, 'hasPrevious')) ?? p > 1,
  };
}

export interface PageRequest {
  /** Absent for the first page: the server's default is its first page, whatever its base. */
  page?: number;
  itemsPerPage: number;
}

export interface IterateOptions {
  /** Default and maximum 1000. */
  itemsPerPage?: number;
}

/**
 * Every item of a list, page after page. The first answer's `X-Pagination` gives the base (0 or
 * 1); every later page is `base + n` and must come back numbered so (a server that ignores `page`
 * would hand out its first page forever). Stops when `hasNext` is false or the last of
 * `totalPages` was read. Without the header the base is taken to be 1, as every public client
 * assumes, and the walk stops at the first page shorter than `itemsPerPage`. An empty page always
 * ends the walk, so a header that lies cannot loop forever.
 */
export async function* iterateAll<T>(
  fetchPage: (req: PageRequest) => Promise<Page<T>>,
  opts: IterateOptions = {},
): AsyncGenerator<T, void, undefined> {
  const itemsPerPage = Math.min(MAX_ITEMS_PER_PAGE, Math.max(1, Math.floor(opts.itemsPerPage ?? DEFAULT_ITEMS_PER_PAGE)));
  let base = 1;
  for (let n = 0; n < MAX_PAGES; n++) {
    const asked = n === 0 ? undefined : base + n;
    const result = await fetchPage(asked === undefined ? { itemsPerPage } : { page: asked, itemsPerPage });
    yield* result.items;
    if (result.items.length === 0) return;
    const h = result.pagination;
    if (h) {
      if (n === 0) base = h.page === 0 ? 0 : 1;
      else if (h.page !== asked) {
        throw new ApiError('API_INVALID_RESPONSE', `list: asked for page ${asked}, the server answered page ${h.page}`, {
          operation: 'list',
        });
      }
      if (!h.hasNext || h.page - base + 1 >= h.totalPages) return;
    } else if (result.items.length < itemsPerPage) {
      return;
    }
  }
}

/** Collects `iterateAll` into an array. */
export async function collectAll<T>(fetchPage: (req: PageRequest) => Promise<Page<T>>, opts: IterateOptions = {}): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterateAll(fetchPage, opts)) out.push(item);
  return out;
}
