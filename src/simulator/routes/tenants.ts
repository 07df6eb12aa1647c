/** Tenants, manual upload tasks, and radar (apps found on devices, and their devices). */
import { randomUUID } from 'node:crypto';
import type { V1TenantDetailsViewModel } from '../../api/wire/index.js';
import type { TaskRec } from '../account.js';
import { DURATIONS } from '../account.js';
import { taskView } from '../views.js';
import { dotnetTime } from '../clock.js';
import { paged, searchFilter } from '../paging.js';
import { badRequest, conflict, notFound } from '../problems.js';
import { isUuid } from '../request.js';
import type { RouteContext, RouteResult, RouteSpec, Router } from '../router.js';

function findTenant(ctx: RouteContext, id: string | undefined): V1TenantDetailsViewModel {
  const t = id && isUuid(id) ? ctx.account.fixtures.tenants.find((x) => x.id === id.toLowerCase()) : undefined;
  if (!t) throw notFound('Tenant', id ?? '');
  return t;
}

/** Tenants and tenant uploads: one handler per operation. */
export const TENANT_ROUTES: readonly RouteSpec[] = [
  ['GET', '/v1/tenant', 'listTenants', listTenants],
  ['GET', '/v1/tenant/:id', 'getTenant', getTenant],
  ['POST', '/v1/tenant/:id/upload', 'uploadToTenant', uploadToTenant],
  ['GET', '/v1/tenant/upload/:uploadId', 'getUploadTask', getUploadTask],
  ['GET', '/v1/tenant/:tenantId/uploads', 'listTenantUploads', listTenantUploads],
  ['GET', '/v1/tenant/:tenantId/radar', 'listRadarApps', listRadarApps],
  ['GET', '/v1/tenant/:tenantId/radar/:appId/devices', 'listRadarAppDevices', listRadarAppDevices],
  ['GET', '/v1/tenant/:tenantId/radar/entry/:entryId/devices', 'listRadarEntryDevices', listRadarEntryDevices],
];

export function registerTenantRoutes(r: Router): void {
  r.addAll(TENANT_ROUTES);
}

function listTenants(ctx: RouteContext): RouteResult {
  return paged(
    ctx.account.fixtures.tenants.map(({ intune: _i, ...t }) => t),
    ctx.query,
  );
}

function getTenant(ctx: RouteContext): RouteResult {
  return { json: findTenant(ctx, ctx.params.id) };
}

async function uploadToTenant(ctx: RouteContext): Promise<RouteResult> {
  const tenant = findTenant(ctx, ctx.params.id);
  const packageId = ctx.query.requiredUuid('packageId');
  ctx.query.bool('uploadMsixAsWin32');
  const wait = ctx.query.bool('wait') ?? false;
  const pkg = ctx.account.packages.get(packageId);
  if (!pkg) throw badRequest('packageId', `Package ${packageId} was not found.`);
  if (pkg.state !== 'Completed') throw conflict(`Package ${packageId} is ${pkg.state}; only a Completed package can be uploaded.`);
  const t: TaskRec = {
    id: randomUUID(),
    created: dotnetTime(ctx.now),
    startedAt: dotnetTime(ctx.now),
    completedAt: null,
    supportsProgress: true,
    progress: 0,
    state: 'Running',
    tenantId: tenant.id,
    packageId,
    errorDetails: null,
    dueMs: ctx.now + DURATIONS.tenantUpload * 1000,
    // The upload runs in the background; a tenant without admin consent fails it there.
    failure: tenant.adminConsentGranted ? null : `Tenant ${tenant.defaultDomain} has not granted admin consent to Robopack.`,
  };
  ctx.account.addTask(t);
  if (wait) {
    await ctx.sleepVirtual(t.dueMs - ctx.now);
    ctx.account.settle(t.dueMs);
  }
  return { json: taskView(t) };
}

function getUploadTask(ctx: RouteContext): RouteResult {
  const id = ctx.params.uploadId;
  const t = id && isUuid(id) ? ctx.account.tasks.get(id.toLowerCase()) : undefined;
  if (!t) throw notFound('Upload task', id ?? '');
  if (t.state === 'Running') t.progress = Math.min(99, Math.round(100 * (1 - (t.dueMs - ctx.now) / (DURATIONS.tenantUpload * 1000))));
  return { json: taskView(t) };
}

function listTenantUploads(ctx: RouteContext): RouteResult {
  const tenant = findTenant(ctx, ctx.params.tenantId);
  const tasks = [...ctx.account.tasks.values()].filter((t) => t.tenantId === tenant.id).map(taskView);
  return paged(tasks, ctx.query);
}

function listRadarApps(ctx: RouteContext): RouteResult {
  const tenant = findTenant(ctx, ctx.params.tenantId);
  const q = ctx.query;
  const matched = q.bool('matched');
  const includeManaged = q.bool('includeManaged') ?? true;
  const includeModern = q.bool('includeModernApps') ?? true;
  let apps = ctx.account.fixtures.radar.filter((a) => a.tenantId === tenant.id);
  if (matched !== undefined) apps = apps.filter((a) => a.matched === matched);
  if (!includeManaged) apps = apps.filter((a) => !a.managed);
  if (!includeModern) apps = apps.filter((a) => !a.modernApp);
  return paged(
    searchFilter(apps, q, (a) => `${a.name} ${a.publisher}`),
    q,
  );
}

function listRadarAppDevices(ctx: RouteContext): RouteResult {
  const tenant = findTenant(ctx, ctx.params.tenantId);
  const app = ctx.account.fixtures.radar.find((a) => a.tenantId === tenant.id && a.id === ctx.params.appId?.toLowerCase());
  if (!app) throw notFound('Radar app', ctx.params.appId ?? '');
  return { json: app.entries.flatMap((e) => ctx.account.fixtures.radarDevices.get(e.id) ?? []) };
}

function listRadarEntryDevices(ctx: RouteContext): RouteResult {
  const tenant = findTenant(ctx, ctx.params.tenantId);
  const entryId = ctx.params.entryId?.toLowerCase() ?? '';
  const owned = ctx.account.fixtures.radar.some((a) => a.tenantId === tenant.id && a.entries.some((e) => e.id === entryId));
  const devices = owned ? ctx.account.fixtures.radarDevices.get(entryId) : undefined;
  if (!devices) throw notFound('Radar entry', ctx.params.entryId ?? '');
  return { json: devices };
}
