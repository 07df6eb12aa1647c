/**
 * Packages: list, details, download, documentation PDF, custom create, chunked content upload and
 * finalize. Chunk rules (chosen; the real checks are unknown; all violations are 400s): per file index the chunks must be
 * contiguous from offset 0; a chunk with offset 0 and chunk 0 restarts that file (so an upload cut
 * off by a crash can simply be sent again); an exact repeat of the last chunk is accepted (a retry
 * whose first answer was lost); anything else is a 400 naming the expected offset.
 */
import { randomUUID } from 'node:crypto';
import type { MemDetectionRule, SourceType, UploadFileInfoViewModel } from '../../api/wire/index.js';
import type { PackageRec } from '../account.js';
import { withLatest } from '../releases.js';
import { DURATIONS } from '../account.js';
import { listPackageView, packageView } from '../views.js';
import { dotnetTime } from '../clock.js';
import { storedZip, textPdf } from '../media.js';
import { paged, searchFilter } from '../paging.js';
import { badRequest, conflict, HttpProblem, notFound } from '../problems.js';
import { INT32_MAX, enumInput, isUuid, jsonObject, optBool, optString } from '../request.js';
import type { RouteContext, RouteResult, RouteSpec, Router } from '../router.js';
import { DETECTION_OPERATORS, DOWNLOAD_FORMATS, PACKAGE_SOURCE, SOURCE_TYPES } from '../vocabulary.js';
import { templateId } from './catalog.js';

const MAX_CHUNK = 64 * 1024 * 1024;
const RULE_TYPES = ['file', 'registry', 'msi', 'script'] as const;

export function findPackage(ctx: RouteContext, id: string | undefined): PackageRec {
  const p = id && isUuid(id) ? ctx.account.packages.get(id.toLowerCase()) : undefined;
  if (!p) throw notFound('Package', id ?? '');
  return p;
}

function detectionRules(value: unknown): MemDetectionRule[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('detectionRules', 'detectionRules must be an array.');
  return value.map((raw: unknown, i) => {
    const f = `detectionRules[${i}]`;
    if (raw === null || typeof raw !== 'object') throw badRequest(f, `${f} must be an object.`);
    const r = raw as Record<string, unknown>;
    const type = typeof r.type === 'string' ? r.type.toLowerCase() : '';
    if (!(RULE_TYPES as readonly string[]).includes(type))
      throw badRequest(`${f}.type`, `${f}.type must be one of ${RULE_TYPES.join(', ')}.`);
    const operator = enumInput(`${f}.operator`, r.operator, DETECTION_OPERATORS);
    const rule: MemDetectionRule = { type: type as MemDetectionRule['type'] };
    for (const k of ['path', 'fileName', 'targetVersion', 'keyPath', 'valueName', 'productCode', 'scriptContent', 'description'] as const) {
      const v = optString(r, k, 16_384);
      if (v !== undefined) rule[k] = v;
    }
    const is32 = optBool(r, 'is32Bit');
    if (is32 !== undefined) rule.is32Bit = is32;
    if (operator !== undefined) rule.operator = operator;
    return rule;
  });
}

/** A name in any case, or a number looked up in the table (never a position in a list); optional, `null` when absent. */
function sourceType(value: unknown): SourceType | null {
  if (value === undefined || value === null) return null;
  const names = Object.keys(SOURCE_TYPES) as (keyof typeof SOURCE_TYPES)[];
  const hit =
    typeof value === 'string'
      ? names.find((n) => n === value.toLowerCase())
      : typeof value === 'number'
        ? names.find((n) => SOURCE_TYPES[n] === value)
        : undefined;
  if (!hit) throw badRequest('sourceType', `sourceType must be one of ${names.join(', ')}.`);
  return hit;
}

/** Packages: one handler per operation (method, route, operation name, handler). */
export const PACKAGE_ROUTES: readonly RouteSpec[] = [
  ['GET', '/v1/package', 'listPackages', listPackages],
  ['GET', '/v1/package/:id', 'getPackage', getPackage],
  ['GET', '/v1/package/:id/download', 'downloadPackage', downloadPackage],
  ['GET', '/v1/package/:id/documentation/pdf', 'getPackageDocumentationPdf', getPackageDocumentationPdf],
  ['POST', '/v1/package/create', 'createPackage', createPackage],
  ['POST', '/v1/package/content/:id', 'uploadContentChunk', uploadContentChunk],
  ['POST', '/v1/package/content/:id/finalize', 'finalizeContent', finalizeContent],
];

export function registerPackageRoutes(r: Router): void {
  r.addAll(PACKAGE_ROUTES);
}

function listPackages(ctx: RouteContext): RouteResult {
  const appId = ctx.query.uuid('appId');
  let list = [...ctx.account.packages.values()];
  if (appId) list = list.filter((p) => p.appId === appId);
  list = searchFilter(list, ctx.query, (p) => `${p.productName} ${p.manufacturer} ${p.fullProductName}`);
  return paged(
    list.map((p) => withLatest(ctx.account, listPackageView(p))),
    ctx.query,
  );
}

function getPackage(ctx: RouteContext): RouteResult {
  return { json: withLatest(ctx.account, packageView(findPackage(ctx, ctx.params.id))) };
}

function downloadPackage(ctx: RouteContext): RouteResult {
  const p = findPackage(ctx, ctx.params.id);
  const format = enumInput('format', ctx.query.str('format') ?? ctx.query.str('downloadFormat'), DOWNLOAD_FORMATS) ?? 4;
  if (p.state !== 'Completed') throw conflict(`Package ${p.id} is ${p.state}; it can be downloaded once Completed.`);
  const fmt = Object.entries(DOWNLOAD_FORMATS).find(([, n]) => n === format)?.[0] ?? 'IntuneWin';
  const readme = `${p.fullProductName}\nFormat: ${fmt}\nScript wrapped: ${String(!(ctx.query.bool('noScriptWrap') ?? false))}\n`;
  const body = storedZip([
    { name: 'README.txt', data: Buffer.from(readme) },
    {
      name: 'package.json',
      data: Buffer.from(JSON.stringify({ id: p.id, name: p.productName, version: p.productVersion, files: p.files }, null, 2)),
    },
  ]);
  return { binary: { contentType: 'application/zip', body, fileName: `${p.fullProductName}.${fmt.toLowerCase()}.zip` } };
}

function getPackageDocumentationPdf(ctx: RouteContext): RouteResult {
  const p = findPackage(ctx, ctx.params.id);
  const body = textPdf([
    `${p.fullProductName}`,
    `Publisher: ${p.manufacturer}`,
    `State: ${p.state}`,
    `Created: ${p.created}`,
    `Install: ${p.installCommand ?? '(inferred)'}`,
  ]);
  return { binary: { contentType: 'application/pdf', body, fileName: `${p.fullProductName}.pdf` } };
}

function createPackage(ctx: RouteContext): RouteResult {
  const b = jsonObject(ctx.body, ctx.contentType);
  const name = optString(b, 'name');
  if (!name?.trim()) throw badRequest('name', 'The name field is required.');
  const st = sourceType(b.sourceType);
  const version = optString(b, 'version', 64) ?? '1.0.0';
  const publisher = optString(b, 'publisher') ?? '';
  const tpl = templateId(ctx, 'scriptTemplateId', optString(b, 'scriptTemplateId'));
  const userContext = optBool(b, 'userContext') ?? false;
  const p: PackageRec = {
    id: randomUUID(),
    appId: null,
    created: dotnetTime(ctx.now),
    productName: name,
    manufacturer: publisher,
    productVersion: version,
    state: 'WaitingForContent',
    fullProductName: `${name} ${version}`,
    fileName: '',
    size: 0,
    downloadAvailable: false,
    newVersionAvailable: false,
    latestVersion: null,
    source: PACKAGE_SOURCE.custom,
    isCustom: true,
    userScope: userContext,
    machineScope: !userContext,
    importInfo: null,
    errorDetails: null,
    issues: [],
    outputFormats: [],
    sourceType: st,
    installCommand: optString(b, 'installCommand', 4096) ?? null,
    uninstallCommand: optString(b, 'uninstallCommand', 4096) ?? null,
    scriptTemplateId: tpl ?? null,
    detectionRules: detectionRules(b.detectionRules),
    files: [],
    createdMs: ctx.now,
    dueMs: null,
    uploads: {},
  };
  optBool(b, 'runAnalysis');
  ctx.account.addPackage(p);
  return { json: listPackageView(p) };
}

function uploadContentChunk(ctx: RouteContext): RouteResult {
  const p = findPackage(ctx, ctx.params.id);
  const q = ctx.query;
  const index = q.requiredInt('index', 0, 99_999);
  const size = q.requiredInt('size', 0, MAX_CHUNK);
  const offset = q.int('offset', 0) ?? 0;
  const chunk = q.int('chunk', 0, INT32_MAX) ?? 0;
  if (!p.isCustom) throw conflict(`Package ${p.id} is a catalog package; only custom packages take content.`);
  if (p.state !== 'WaitingForContent')
    throw badRequest('id', `Package ${p.id} is ${p.state}; content can only be uploaded before finalize.`);
  if (ctx.body.length > MAX_CHUNK) throw new HttpProblem(413, `A chunk may be at most ${MAX_CHUNK} bytes.`);
  if (ctx.body.length !== size) throw badRequest('size', `size is ${size} but the body has ${ctx.body.length} bytes.`);
  const key = String(index);
  const fp = p.uploads[key];
  if (offset === 0 && chunk === 0) {
    p.uploads[key] = { received: size, chunks: 1, last: { offset, size, chunk } };
  } else if (fp && offset === fp.received && chunk === fp.chunks) {
    fp.received += size;
    fp.chunks += 1;
    fp.last = { offset, size, chunk };
  } else if (fp?.last && fp.last.offset === offset && fp.last.size === size && fp.last.chunk === chunk) {
    // An exact repeat of the last chunk: a retry whose first answer was lost.
  } else {
    throw badRequest(
      'offset',
      `File ${index} expects chunk ${fp?.chunks ?? 0} at offset ${fp?.received ?? 0}, got chunk ${chunk} at offset ${offset}.`,
    );
  }
  ctx.account.touch();
  return {};
}

function finalizeContent(ctx: RouteContext): RouteResult {
  const p = findPackage(ctx, ctx.params.id);
  const b = jsonObject(ctx.body, ctx.contentType);
  if (!Array.isArray(b.files)) throw badRequest('files', 'The files field is required.');
  const files: UploadFileInfoViewModel[] = b.files.map((raw: unknown, i) => {
    const f = raw as Record<string, unknown> | null;
    const fileName = f && typeof f.fileName === 'string' ? f.fileName.replace(/\\/g, '/') : '';
    const fileSize = f && typeof f.fileSize === 'number' && Number.isInteger(f.fileSize) && f.fileSize >= 0 ? f.fileSize : -1;
    if (!fileName) throw badRequest(`files[${i}].fileName`, `files[${i}].fileName is required.`);
    if (fileSize < 0) throw badRequest(`files[${i}].fileSize`, `files[${i}].fileSize must be a whole number >= 0.`);
    return { fileName, fileSize };
  });
  if (!p.isCustom) throw conflict(`Package ${p.id} is a catalog package; only custom packages take content.`);
  if (p.state !== 'WaitingForContent') {
    // A retried finalize whose first answer was lost: same files → same answer.
    if (JSON.stringify(p.files) === JSON.stringify(files)) return {};
    throw conflict(`Package ${p.id} is already finalized (${p.state}).`);
  }
  if (files.length === 0) throw badRequest('files', 'files must list at least one uploaded file.');
  // Shape errors are 400s; a list that does not match the bytes received is accepted and the
  // processing that follows fails (state Error with the reason), as a real packaging job would.
  const mismatches: string[] = [];
  const names = new Set<string>();
  files.forEach((f, i) => {
    if (names.has(f.fileName)) throw badRequest(`files[${i}].fileName`, `${f.fileName} is listed twice.`);
    names.add(f.fileName);
    const got = p.uploads[String(i)]?.received;
    if (got === undefined) mismatches.push(`no content was uploaded for file ${i} (${f.fileName})`);
    else if (got !== f.fileSize) mismatches.push(`${f.fileName}: ${got} bytes were uploaded but fileSize says ${f.fileSize}`);
  });
  const extra = Object.keys(p.uploads)
    .map(Number)
    .filter((i) => i >= files.length);
  if (extra.length > 0) mismatches.push(`content was uploaded for file index ${extra.join(', ')} but files lists only ${files.length}`);
  p.failure = mismatches.length > 0 ? `Finalize does not match the uploaded content: ${mismatches.join('; ')}.` : null;
  p.files = files;
  p.size = files.reduce((n, f) => n + f.fileSize, 0);
  p.fileName = files[0]!.fileName.split('/').pop() ?? '';
  p.state = 'Processing';
  p.uploads = {};
  ctx.account.schedulePackage(p, ctx.now + DURATIONS.customProcessing * 1000);
  return {};
}
