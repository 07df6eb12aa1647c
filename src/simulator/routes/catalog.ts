/** Catalog apps (search, showcase, verified, details, import) and script templates. */
import type { V1AppVersionViewModel, V1AppViewModel } from '../../api/wire/index.js';
import { importedPackage } from '../imported-package.js';
import { latestOf, versionsOf } from '../releases.js';
import type { CatalogApp } from '../fixtures.js';
import { solidPng } from '../media.js';
import { paged, searchFilter } from '../paging.js';
import { badRequest, notFound } from '../problems.js';
import { enumInput, isUuid } from '../request.js';
import type { Query } from '../request.js';
import type { RouteContext, RouteResult, Router } from '../router.js';
import { INSTALLER_SCOPE } from '../vocabulary.js';

const logoCache = new Map<string, string>();

function appView(a: CatalogApp, logo: boolean, versions: readonly V1AppVersionViewModel[]): V1AppViewModel {
  let logoData: string | null = null;
  if (logo) {
    logoData = logoCache.get(a.color) ?? solidPng(32, 32, a.color).toString('base64');
    logoCache.set(a.color, logoData);
  }
  return {
    id: a.id,
    name: a.name,
    publisherName: a.publisherName,
    description: a.description,
    shortDescription: a.shortDescription,
    logoData,
    verified: a.verified,
    showcased: a.showcased,
    machineScope: a.machineScope,
    userScope: a.userScope,
    latestVersion: latestOf(versions)?.version ?? '',
    tags: a.tags,
    flags: a.flags,
  };
}

function listApps(ctx: RouteContext, only?: 'showcased' | 'verified'): ReturnType<typeof paged> {
  const q = ctx.query;
  const showcased = only === 'showcased' ? true : q.bool('showcased');
  const verified = only === 'verified' ? true : q.bool('verified');
  let apps = ctx.account.fixtures.apps;
  if (showcased !== undefined) apps = apps.filter((a) => a.showcased === showcased);
  if (verified !== undefined) apps = apps.filter((a) => a.verified === verified);
  apps = searchFilter(apps, q, (a) => `${a.name} ${a.publisherName} ${a.tags.join(' ')}`);
  const logo = q.bool('logo') ?? false;
  return paged(
    apps.map((a) => appView(a, logo, versionsOf(ctx.account, a))),
    q,
  );
}

function findApp(ctx: RouteContext, id: string): CatalogApp {
  const app = isUuid(id) ? ctx.account.fixtures.appsById.get(id.toLowerCase()) : undefined;
  if (!app) throw notFound('App', id);
  return app;
}

export function templateId(ctx: RouteContext, field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!ctx.account.fixtures.templates.some((t) => t.id === value)) throw badRequest(field, `Script template ${value} was not found.`);
  return value;
}

function importScope(q: Query): number {
  return enumInput('scope', q.str('scope'), INSTALLER_SCOPE) ?? INSTALLER_SCOPE.machine;
}

/**
 * The id response of create-like operations, in the configured style, because the evidence
 * conflicts: a quoted JSON string (the interface, for flow create), `{"id": ...}` (RobopackPS's
 * README reads `.id`), or the bare UUID as `text/plain` (EUCToolbox pastes the raw import answer
 * into its next URL, which only works unquoted).
 */
export function idResponse(ctx: RouteContext, id: string): RouteResult {
  if (ctx.responseStyle === 'text') return { binary: { contentType: 'text/plain; charset=utf-8', body: Buffer.from(id, 'utf8') } };
  return { json: ctx.responseStyle === 'object' ? { id } : id };
}

export function registerCatalogRoutes(r: Router): void {
  r.add('GET', '/v1/app', 'searchApps', (ctx) => listApps(ctx));
  r.add('GET', '/v1/app/showcase', 'listShowcasedApps', (ctx) => listApps(ctx, 'showcased'));
  r.add('GET', '/v1/app/verified', 'listVerifiedApps', (ctx) => listApps(ctx, 'verified'));
  r.add('GET', '/v1/app/:id', 'getApp', (ctx) => {
    const a = findApp(ctx, ctx.params.id!);
    const versions = versionsOf(ctx.account, a);
    return { json: { ...appView(a, ctx.query.bool('logo') ?? false, versions), versions } };
  });
  r.add('POST', '/v1/app/import/:appId', 'importApp', (ctx) => {
    const a = findApp(ctx, ctx.params.appId!);
    const q = ctx.query;
    const version = q.str('version');
    const versionId = q.uuid('versionId');
    if (version !== undefined && versionId !== undefined) throw badRequest('versionId', 'Give either version or versionId, not both.');
    const versions = versionsOf(ctx.account, a);
    const v =
      versionId !== undefined
        ? versions.find((x) => x.id === versionId)
        : version !== undefined
          ? versions.find((x) => x.version === version)
          : latestOf(versions);
    if (!v) {
      const field = versionId !== undefined ? 'versionId' : 'version';
      throw badRequest(
        field,
        `${a.name} has no version ${versionId ?? version ?? ''}; available: ${versions.map((x) => x.version).join(', ')}.`,
      );
    }
    const scope = importScope(q);
    const tpl = templateId(ctx, 'scriptTemplateId', q.uuid('scriptTemplateId'));
    const p = importedPackage(a, v.version, {
      now: ctx.now,
      machine: scope !== INSTALLER_SCOPE.user,
      user: scope !== INSTALLER_SCOPE.machine,
      latest: latestOf(versions)!.version,
      scriptTemplateId: tpl ?? null,
    });
    ctx.account.addPackage(p);
    return idResponse(ctx, p.id);
  });

  r.add('GET', '/v1/template', 'listTemplates', (ctx) =>
    paged(
      ctx.account.fixtures.templates.map(({ scriptTemplate: _s, color: _c, ...t }) => t),
      ctx.query,
    ),
  );
  const findTemplate = (ctx: RouteContext): RouteContextTemplate => {
    const t = ctx.account.fixtures.templates.find((x) => x.id === ctx.params.id?.toLowerCase());
    if (!t) throw notFound('Script template', ctx.params.id ?? '');
    return t;
  };
  r.add('GET', '/v1/template/:id', 'getTemplate', (ctx) => {
    const { color: _c, ...t } = findTemplate(ctx);
    return { json: t };
  });
  r.add('GET', '/v1/template/:id/banner', 'getTemplateBanner', (ctx) => {
    const t = findTemplate(ctx);
    return { binary: { contentType: 'image/png', body: solidPng(600, 120, t.color), fileName: `${t.name}-banner.png` } };
  });
  r.add('GET', '/v1/template/:id/logo', 'getTemplateLogo', (ctx) => {
    const t = findTemplate(ctx);
    return { binary: { contentType: 'image/png', body: solidPng(128, 128, t.color), fileName: `${t.name}-logo.png` } };
  });
}

type RouteContextTemplate = RouteContext['account']['fixtures']['templates'][number];
