/**
 * What a Package manifest asks of the service, resolved against the live state: the catalog import
 * query or the custom create body, the spec that is hashed and recorded, the natural key a live
 * package is found by, and the fields of a change in manifest words.
 */
import { DETECTION_OPERATORS, INSTALLER_SCOPE } from '../../api/wire/index.js';
import type { ImportQuery, MemDetectionRule, V1PackageCreateViewModel, V1PackageViewModel } from '../../api/wire/index.js';
import { packageNaturalKey } from '../../live/identity.js';
import { ResolveError } from '../../live/resolve.js';
import type { PackageManifest } from '../../manifests/model.js';
import type { InventoryEntry } from '../../state/inventory-types.js';
import type { PlanContext } from '../context.js';
import { diffFields } from '../hash.js';
import { onTrack } from '../../util/version-order.js';
import type { ObjectPlan } from '../types.js';

export interface CatalogTarget {
  kind: 'catalog';
  appId: string;
  appName: string;
  version: string;
  query: ImportQuery;
  spec: Record<string, unknown>;
}
export interface CustomTarget {
  kind: 'custom';
  body: V1PackageCreateViewModel;
  spec: Record<string, unknown>;
}

export function catalogTarget(ctx: PlanContext, m: PackageManifest): CatalogTarget {
  const c = m.spec.catalog;
  if (!c) throw new Error('unreachable: catalogTarget without catalog');
  const app = ctx.apps.resolve(c.app, 'spec.catalog.app');
  // The versions the catalog offers (read once per app a manifest names): a version it does not
  // offer is a plan error here, not a 400 from import in the middle of an apply. Not read (a
  // hand-built live state): not checked.
  const offered = ctx.live.appVersions[app.id];
  const available = (): string => (offered && offered.length > 0 ? offered.map((x) => x.version).join(', ') : 'none');
  let version = c.version;
  if (version !== undefined && offered && !offered.some((x) => x.version.toLowerCase() === version?.toLowerCase())) {
    throw new ResolveError('REF_UNKNOWN', `${app.name} has no version ${version}; available: ${available()}`, 'spec.catalog.version');
  }
  if (!version && c.versionId) {
    const v = (offered ?? []).find((x) => x.id.toLowerCase() === c.versionId?.toLowerCase());
    if (!v)
      throw new ResolveError(
        'REF_UNKNOWN',
        `${app.name} has no version id ${c.versionId}; available: ${available()}`,
        'spec.catalog.versionId',
      );
    version = v.version;
  }
  version ??= app.latestVersion;
  // A version policy's track that matches no version the catalog offers (read whenever the pinned
  // version is off the track, live/snapshot.ts): a plan error, as `packsync update` says it.
  const track = c.update?.track;
  if (track !== undefined && offered && offered.length > 0 && !offered.some((x) => onTrack(x.version, track)))
    throw new ResolveError(
      'REF_UNKNOWN',
      `track "${track}" matches no version of ${app.name}; there are ${available()}`,
      'spec.catalog.update.track',
    );
  const scope = INSTALLER_SCOPE[c.scope ?? 'machine'];
  const templateId = c.scriptTemplate ? ctx.templates.resolve(c.scriptTemplate, 'spec.catalog.scriptTemplate').id : undefined;
  const query: ImportQuery = { scope, ...(c.versionId ? { versionId: c.versionId } : { version }) };
  if (templateId) query.scriptTemplateId = templateId;
  return {
    kind: 'catalog',
    appId: app.id,
    appName: app.name,
    version,
    query,
    spec: { catalog: { appId: app.id, version, scope, scriptTemplateId: templateId } },
  };
}

export function customTarget(ctx: PlanContext, m: PackageManifest): CustomTarget {
  const c = m.spec.custom;
  if (!c) throw new Error('unreachable: customTarget without custom');
  const body: V1PackageCreateViewModel = { name: c.name, sourceType: c.sourceType, version: c.version };
  if (c.publisher !== undefined) body.publisher = c.publisher;
  if (c.installCommand !== undefined) body.installCommand = c.installCommand;
  if (c.uninstallCommand !== undefined) body.uninstallCommand = c.uninstallCommand;
  if (c.userContext !== undefined) body.userContext = c.userContext;
  if (c.runAnalysis !== undefined) body.runAnalysis = c.runAnalysis;
  if (c.scriptTemplate) body.scriptTemplateId = ctx.templates.resolve(c.scriptTemplate, 'spec.custom.scriptTemplate').id;
  if (c.detectionRules) {
    body.detectionRules = c.detectionRules.map((r) => {
      const { operator, ...rest } = r;
      const out: MemDetectionRule = { ...rest };
      if (operator) out.operator = DETECTION_OPERATORS[operator];
      return out;
    });
  }
  return { kind: 'custom', body, spec: { custom: body } };
}

export function naturalKeyOf(t: CatalogTarget | CustomTarget): string {
  return t.kind === 'catalog' ? catalogNaturalKey(t.appId, t.version, t.query.scope) : customNaturalKey(t.body.name, t.body.version ?? '');
}

/** A catalog import's natural key: app, version and installer scope (1 machine, 2 user, 4 both). */
export function catalogNaturalKey(appId: string, version: string, scope: number | undefined): string {
  return packageNaturalKey({
    isCustom: false,
    appId,
    productName: '',
    productVersion: version,
    machineScope: scope !== 2,
    userScope: scope !== 1,
  });
}

/** A custom package's natural key: its name and version. */
export function customNaturalKey(name: string, version: string): string {
  return packageNaturalKey({
    isCustom: true,
    appId: null,
    productName: name,
    productVersion: version,
    machineScope: true,
    userScope: false,
  });
}

/** A superseded package can be reused while it exists live and did not fail processing. */
export function usable(p: V1PackageViewModel | undefined): boolean {
  return p !== undefined && p.state !== 'Error';
}

/** What changed, in manifest words where the spec stores API values. */
export function packageFields(entry: InventoryEntry, target: CatalogTarget | CustomTarget, m: PackageManifest): ObjectPlan['fields'] {
  const fields = diffFields(entry.spec, target.spec);
  if (entry.contentDigest !== undefined && entry.contentDigest !== m.content?.digest) {
    fields.push({ field: 'content', from: entry.contentDigest, to: m.content?.digest ?? null });
    if (entry.contentFiles && m.content?.fileList) fields.push(...contentFileChanges(entry.contentFiles, m.content.fileList));
  }
  return fields;
}

type ContentFile = { path: string; size: number; sha256: string };

/** At most this many file lines under a content change; the rest are counted. */
const FILE_LINES = 20;

/**
 * The files a content change adds, removes or changes, with their sizes, so a reviewer sees what will
 * be uploaded (a digest alone says only that something changed).
 */
function contentFileChanges(before: readonly ContentFile[], after: readonly ContentFile[]): ObjectPlan['fields'] {
  const old = new Map(before.map((f) => [f.path, f]));
  const now = new Map(after.map((f) => [f.path, f]));
  const out: ObjectPlan['fields'] = [];
  for (const f of after) {
    const o = old.get(f.path);
    if (!o) out.push({ field: `content file ${f.path}`, from: null, to: `added, ${bytes(f.size)}` });
    else if (o.sha256 !== f.sha256) out.push({ field: `content file ${f.path}`, from: bytes(o.size), to: `${bytes(f.size)} (changed)` });
  }
  for (const f of before) if (!now.has(f.path)) out.push({ field: `content file ${f.path}`, from: bytes(f.size), to: 'removed' });
  if (out.length <= FILE_LINES) return out;
  return [...out.slice(0, FILE_LINES), { field: 'content files', from: null, to: `… and ${out.length - FILE_LINES} more changed` }];
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
