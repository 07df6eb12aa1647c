/**
 * One operation table (src/api/operation-table.ts) that the simulator's routes and the retry table of
 * docs/errors.md are held against (the client's requests are, in contract.test.ts). A route added on
 * one side only, a path spelled differently, or a POST whose retry safety the docs state otherwise
 * fails here.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, routePattern } from '../../src/api/operation-table.js';
import { buildRouter } from '../../src/simulator/server.js';

const ROOT = join(import.meta.dirname, '..', '..');
const table = Object.entries(OPERATIONS).map(([operation, spec]) => ({ operation, ...spec }));

describe('operation table', () => {
  it('is what the simulator serves: the same operations, methods and routes', () => {
    const routes = buildRouter()
      .list()
      .map((r) => ({ operation: r.operation, method: r.method, path: r.pattern.replace(/:([A-Za-z]+)/g, '{$1}') }));
    const wanted = table.map(({ operation, method, path }) => ({ operation, method, path: path.replace(/\{[^}]+\}/g, '{x}') }));
    const served = routes.map((r) => ({ ...r, path: r.path.replace(/\{[^}]+\}/g, '{x}') }));
    expect(served.sort((a, b) => a.operation.localeCompare(b.operation))).toEqual(
      wanted.sort((a, b) => a.operation.localeCompare(b.operation)),
    );
  });

  it('states the retry safety docs/errors.md states for every POST, and GET/DELETE are always safe', async () => {
    const doc = await readFile(join(ROOT, 'docs', 'errors.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## POST retry safety'), doc.indexOf('## Other errors of the API layer'));
    const rows = [...section.matchAll(/^\| `(\w+)` \| `POST ([^`?]+)[^`]*` \| (yes|\*\*no\*\*) \|/gm)].map((m) => ({
      operation: m[1]!,
      path: m[2]!,
      idempotent: m[3] === 'yes',
    }));
    const posts = table.filter((o) => o.method === 'POST').map(({ operation, path, idempotent }) => ({ operation, path, idempotent }));
    const byName = (a: { operation: string }, b: { operation: string }): number => a.operation.localeCompare(b.operation);
    expect(rows.map((r) => ({ ...r, path: r.path.replace(/\{[^}]+\}/g, '{x}') })).sort(byName)).toEqual(
      posts.map((p) => ({ ...p, path: p.path.replace(/\{[^}]+\}/g, '{x}') })).sort(byName),
    );
    expect(table.filter((o) => o.method !== 'POST' && !o.idempotent)).toEqual([]);
  });

  it('turns a route into a pattern of concrete paths', () => {
    expect(routePattern('/v1/flow/deployment/{id}/skip-wave').test('/v1/flow/deployment/3f0c/skip-wave')).toBe(true);
    expect(routePattern('/v1/flow/deployment/{id}/skip-wave').test('/v1/flow/deployment/3f0c/start')).toBe(false);
    expect(routePattern('/v1/flow/{id}').test('/v1/flow/a/b')).toBe(false);
  });
});
