/**
 * Paging, search and sorting as the list operations do it: a bare JSON array body and the
 * `X-Pagination` header (1-based `page`, `itemsPerPage` default 50, maximum 1000), or everything
 * with `disablePaging=true`.
 *
 * Where public evidence conflicts both forms are accepted (docs/api-model.md): `page=0` is the first page
 * too (the vendor documents `Page` as 0-indexed, every public client starts at 1), and `query` is
 * an alias of `search` (RoboPackCLI sends it). The header is compact JSON under exactly the name
 * `X-Pagination`, keys in the captured order: a client that splits a raw header line on `": "`
 * gets the name and the whole value.
 */
import type { PaginationHeader } from '../api/wire/index.js';
import { badRequest } from './problems.js';
import { INT32_MAX } from './request.js';
import type { Query } from './request.js';
import type { RouteResult } from './router.js';

export function searchFilter<T>(items: T[], q: Query, text: (x: T) => string): T[] {
  const s = (q.str('search') ?? q.str('query'))?.trim().toLowerCase();
  if (!s) return items;
  return items.filter((x) => text(x).toLowerCase().includes(s));
}

export function paged<T extends object>(items: T[], q: Query, defaultSort?: string): RouteResult {
  const sortBy = q.str('sortBy') ?? defaultSort;
  const desc = q.bool('sortDesc') ?? q.bool('sortDescending') ?? false;
  let list = items;
  if (sortBy) {
    const first = items[0] as Record<string, unknown> | undefined;
    const key = first ? Object.keys(first).find((k) => k.toLowerCase() === sortBy.toLowerCase()) : undefined;
    if (first && !key) throw badRequest('sortBy', `Cannot sort by '${sortBy}'.`);
    if (key) {
      list = [...items].sort((a, b) => {
        const x = (a as Record<string, unknown>)[key];
        const y = (b as Record<string, unknown>)[key];
        const c = typeof x === 'number' && typeof y === 'number' ? x - y : sortText(x).localeCompare(sortText(y), 'en', { numeric: true });
        return desc ? -c : c;
      });
    }
  }
  const disable = q.bool('disablePaging') ?? false;
  const perPage = q.int('itemsPerPage', 1, 1000) ?? 50;
  // 0 and 1 both name the first page; the header always answers in the simulator's own 1-based terms.
  const page = Math.max(1, q.int('page', 0, INT32_MAX) ?? 1);
  const totalCount = list.length;
  const header: PaginationHeader = disable
    ? { totalCount, itemsPerPage: totalCount, page: 1, totalPages: totalCount > 0 ? 1 : 0, hasNext: false, hasPrevious: false }
    : {
        totalCount,
        itemsPerPage: perPage,
        page,
        totalPages: Math.ceil(totalCount / perPage),
        hasNext: page * perPage < totalCount,
        hasPrevious: page > 1,
      };
  const body = disable ? list : list.slice((page - 1) * perPage, page * perPage);
  return { json: body, headers: { 'X-Pagination': JSON.stringify(header) } };
}

function sortText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}
