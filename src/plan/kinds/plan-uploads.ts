/**
 * Tenant uploads: one manual upload per (tenant, live package id). A failed task is retried; a
 * new live package version is uploaded again.
 */
import type { TenantUploadManifest } from '../../manifests/model.js';
import { idOf } from '../context.js';
import type { PlanContext } from '../context.js';
import { hashValue } from '../hash.js';
import { newest, otherHolder, planOwnedElsewhere, planSameIdentity } from '../ownership.js';
import { OP } from '../ops.js';
import { planResolveError } from '../not-planned.js';

export function planTenantUpload(ctx: PlanContext, m: TenantUploadManifest): void {
  const name = m.metadata.name;
  const key = `TenantUpload/${name}`;
  let tenantId: string;
  try {
    tenantId = ctx.tenants.resolve(m.spec.tenant, 'spec.tenant').id;
  } catch (e) {
    planResolveError(ctx, m, key, e);
    return;
  }
  const pkg = ctx.packageRefs.get(m.spec.package);
  if (!pkg || pkg.blockedBy) {
    ctx.object(
      'TenantUpload',
      name,
      'skipped',
      { source: m.source, reasons: [`not planned: ${pkg?.blockedBy ?? `Package/${m.spec.package} is not in the desired set`}`] },
      key,
    );
    return;
  }
  // Design §3: uploaded once per (tenant, package), however each manifest names the tenant.
  const twin = ctx.claimIdentity(`TenantUpload|${tenantId}|${m.spec.package}`, key);
  if (twin !== undefined) {
    planSameIdentity(ctx, m, key, { first: twin, what: `one upload of ${m.spec.package} to tenant ${tenantId}` });
    return;
  }
  const msixAsWin32 = m.spec.uploadMsixAsWin32 ?? true;
  const entry = ctx.entry(key);
  const packageId = pkg.isNew ? undefined : idOf(pkg.ref);
  const spec = { tenant: tenantId, package: m.spec.package, uploadMsixAsWin32: msixAsWin32 };
  const record = {
    specHash: hashValue(spec),
    spec,
    ...(m.metadata.annotations ? { annotations: m.metadata.annotations } : {}),
  };
  const tasks = ctx.live.uploads[tenantId] ?? [];
  // GUIDs compare case-insensitively: an answer in upper case is still the task the state recorded.
  const same = (a: string | null | undefined, b: string | null | undefined): boolean => !!a && !!b && a.toLowerCase() === b.toLowerCase();
  const matching = packageId ? tasks.filter((t) => same(t.packageId, packageId)) : [];
  // Tasks another key records are that key's (docs/reconcile.md): never adopted here, never a conflict.
  const forPackage = matching.filter((t) => otherHolder(ctx, key, t.id) === undefined);
  const owned =
    entry && same(entry.packageId, packageId) && same(entry.tenantId, tenantId) ? tasks.find((t) => same(t.id, entry.id)) : undefined;

  const c: UploadCase = { m, key, record, tenantId };
  const reasons: string[] = [];
  if (owned) {
    const again = planOwnedUpload(ctx, c, owned, entry?.specHash);
    if (again === undefined) return;
    reasons.push(again);
  } else if (!entry && forPackage.length === 0 && matching[0] !== undefined) {
    const task = newest(matching) ?? matching[0];
    const holder = otherHolder(ctx, key, task.id) ?? '';
    planOwnedElsewhere(ctx, m, key, { holder, what: `the upload of this package to this tenant (task ${task.id})` });
    return;
  } else if (!entry && forPackage.length > 0) {
    planUnownedUpload(ctx, c, forPackage);
    return;
  } else if (entry && !same(entry.packageId, packageId) && planEarlierUpload(ctx, c, forPackage)) {
    return;
  } else if (entry) {
    reasons.push(
      !same(entry.packageId, packageId) ? 'the package has a new live version' : 'upload task not found live (a read by id answered 404)',
    );
  }
  const up = ctx.action(key, {
    op: OP.tenantUpload,
    dependsOn: pkg.readyAfter ? [pkg.readyAfter] : [],
    description: `upload ${m.spec.package} to ${m.spec.tenant}`,
    tenantId,
    packageRef: pkg.ref ?? { key: `Package/${m.spec.package}` },
    uploadMsixAsWin32: msixAsWin32,
    record,
  });
  ctx.object('TenantUpload', name, entry ? 'update' : 'create', { source: m.source, reasons, actions: [up] }, key);
}

type UploadTask = NonNullable<PlanContext['live']['uploads'][string]>[number];

/** The upload git describes: manifest, state key, the record it would write, the tenant's id. */
interface UploadCase {
  m: TenantUploadManifest;
  key: string;
  record: { specHash: string; spec: object; annotations?: Record<string, string> };
  tenantId: string;
}

/**
 * The task this key owns: nothing to do (Completed, same spec), a wait (still running), or why it
 * is uploaded again (returned; the caller plans the upload).
 */
function planOwnedUpload(ctx: PlanContext, c: UploadCase, owned: UploadTask, specHash: string | undefined): string | undefined {
  const { m, key } = c;
  const name = m.metadata.name;
  if (owned.state === 'Completed' && specHash === c.record.specHash) {
    ctx.object('TenantUpload', name, 'none', { source: m.source }, key);
    return undefined;
  }
  if (owned.state === 'Running' || owned.state === 'Pending') {
    const wait = ctx.action(key, { op: OP.waitUpload, dependsOn: [], description: `wait for upload task ${owned.id}`, taskId: owned.id });
    ctx.object('TenantUpload', name, 'waiting', { source: m.source, reasons: [`upload task is ${owned.state}`], actions: [wait] }, key);
    return undefined;
  }
  // Only uploadMsixAsWin32 changed: a manual upload is not kept up to date, so upload again.
  if (owned.state === 'Completed') return 'uploadMsixAsWin32 changed';
  // Stable across retries (each makes a new task): the task's id is in the state (`packsync state show`).
  return `the previous upload task ended ${owned.state}; uploading again`;
}

/** Tasks of this package nobody records: adopted (an interrupted run's, or with --adopt), else a conflict. */
function planUnownedUpload(ctx: PlanContext, c: UploadCase, forPackage: readonly UploadTask[]): void {
  const { m, key } = c;
  const name = m.metadata.name;
  const intent = ctx.intent(key);
  const fresh = newest(forPackage.filter((t) => !intent?.knownIds.includes(t.id)));
  const found = (intent && fresh) || ctx.options.adopt ? (fresh ?? newest(forPackage)) : undefined;
  if (!found) {
    const ids = forPackage.map((t) => t.id).join(', ');
    const reasons = [`this package was already uploaded to the tenant outside packsync (${ids}); run apply with --adopt to take it over`];
    ctx.object('TenantUpload', name, 'conflict', { source: m.source, reasons }, key);
    return;
  }
  const rec = recordTask(ctx, c, found, { description: `adopt upload task ${found.id}`, resolvesIntent: intent !== undefined });
  // A task adopted while still running is followed to its end, as if this run had started it
  // (regression: after a crash between the upload call and its record, the re-run ended
  // with the task Running where an uninterrupted run ends with it Completed).
  const running = found.state === 'Running' || found.state === 'Pending';
  const actions = [rec];
  if (running)
    actions.push(
      ctx.action(key, { op: OP.waitUpload, dependsOn: [rec], description: `wait for upload task ${found.id}`, taskId: found.id }),
    );
  const reasons = ['upload of this package to this tenant exists live', ...(running ? [`upload task is ${found.state}`] : [])];
  ctx.object('TenantUpload', name, 'adopt', { source: m.source, reasons, actions }, key);
}

/** The record that makes `task` this key's upload. */
function recordTask(ctx: PlanContext, c: UploadCase, task: UploadTask, o: { description: string; resolvesIntent: boolean }): string {
  const { key, record, tenantId } = c;
  return ctx.action(key, {
    op: OP.record,
    dependsOn: [],
    description: o.description,
    entry: {
      kind: 'TenantUpload',
      name: c.m.metadata.name,
      id: task.id,
      ...record,
      revision: null,
      tenantId,
      packageId: task.packageId,
      updatedAt: ctx.timestamp(),
    },
    resolvesIntent: o.resolvesIntent,
  });
}

/**
 * The package went back to one this tenant already has (a revert reuses the earlier live package):
 * its completed upload, held by no other key, is recorded again instead of uploading it a second
 * time (design §3: once per tenant and live package). False when there is none.
 */
function planEarlierUpload(ctx: PlanContext, c: UploadCase, forPackage: readonly UploadTask[]): boolean {
  const done = newest(forPackage.filter((t) => t.state === 'Completed'));
  if (!done) return false;
  const rec = recordTask(ctx, c, done, { description: `record upload task ${done.id} again`, resolvesIntent: false });
  const reasons = [
    `the package went back to ${done.packageId ?? 'a live package'}, already uploaded to this tenant: recorded, not uploaded again`,
  ];
  ctx.object('TenantUpload', c.m.metadata.name, 'update', { source: c.m.source, reasons, actions: [rec] }, c.key);
  return true;
}
