/**
 * `POST /_sim/releases` and `GET /_sim/releases` (docs/api-model.md, "Releases"): publish a version of
 * a catalog app now (optionally released earlier), and list what was published in this account.
 */
import type { Account } from './account.js';
import type { CatalogApp } from './fixtures.js';
import { badRequest, HttpProblem, notFound } from './problems.js';
import { jsonObject } from './request.js';
import type { RouteResult } from './router.js';
import { publishRelease, releaseProblem, settleAccount } from './releases.js';

function findApp(a: Account, nameOrId: string): CatalogApp {
  const key = nameOrId.trim().toLowerCase();
  const app = a.fixtures.appsById.get(key) ?? a.fixtures.apps.find((x) => x.name.toLowerCase() === key);
  if (!app) throw notFound('App', nameOrId);
  return app;
}

function releasedAtOf(value: unknown, now: number): number {
  if (value === undefined || value === null) return now;
  if (typeof value !== 'string') throw badRequest('releasedAt', 'releasedAt must be an ISO 8601 time, e.g. "2026-11-20T09:00:00Z".');
  const ms = Date.parse(value);
  if (!Number.isFinite(ms) || !/^\d{4}-\d{2}-\d{2}/.test(value))
    throw badRequest('releasedAt', `releasedAt ${JSON.stringify(value)} is not an ISO 8601 time, e.g. "2026-11-20T09:00:00Z".`);
  return ms;
}

/** The answer to a releases route, or null when `route` is not one. */
export function releaseRoute(
  route: string,
  a: Account,
  body: { bytes: Buffer; contentType: string | undefined },
  now: number,
): RouteResult | null {
  if (route === 'GET /releases') {
    settleAccount(a, now);
    return { json: a.releases.releases };
  }
  if (route !== 'POST /releases') return null;
  const b = jsonObject(body.bytes, body.contentType);
  if (typeof b.app !== 'string' || b.app.trim() === '') throw badRequest('app', 'app is required: a catalog app name or id.');
  if (typeof b.version !== 'string' || b.version.trim() === '' || b.version.length > 64)
    throw badRequest('version', 'version is required: the new version as a string of at most 64 characters, e.g. "24.09".');
  const app = findApp(a, b.app);
  const releasedAtMs = releasedAtOf(b.releasedAt, now);
  settleAccount(a, now);
  const problem = releaseProblem(a, app, b.version.trim(), releasedAtMs, now);
  if (problem) throw problem.includes('already') ? new HttpProblem(409, problem) : badRequest('releasedAt', problem);
  return { status: 201, json: publishRelease(a, app, b.version.trim(), { releasedAtMs, nowMs: now }) };
}
