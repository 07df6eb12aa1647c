/**
 * One YAML document checked as a manifest: another group's document (apps/v1, …) is set aside with
 * a warning; a packsync one is checked for apiVersion and kind, then against its kind's JSON
 * Schema, then for integers too large to hold exactly. Every problem carries its position.
 */
import { API_VERSION, SOURCE_KINDS } from './model.js';
import type { Problem, SourceKind } from './model.js';
import { unsafeIntegers } from './numbers.js';
import type { AuthoredRecord } from './kinds/types.js';
import { isObjectKind } from './kinds/index.js';
import { displayPath, toPointer, valueAt } from './paths.js';
import type { DocRecord } from './doc-record.js';
import { schemaProblems } from './schema-problems.js';
import { KIND_SCHEMAS, validators } from './schemas.js';
import { didYouMean } from './suggest.js';
import type { ParsedDocument } from './yaml-types.js';
import { isRecord } from '../util/records.js';

/** How messages about a manifest begin: `Flow "pwsh": `. */
export function manifestPrefix(kind: SourceKind, name: string | undefined): string {
  return name === undefined ? `${kind}: ` : `${kind} "${name}": `;
}

export interface CheckResult {
  record?: DocRecord;
  /** A document of an authored kind (a Baseline): expanded before the object documents are checked. */
  authored?: AuthoredRecord;
  problems: Problem[];
  foreign?: { file: string; line: number; column: number; what: string };
}

/** Whether an apiVersion names another group's document (apps/v1, v1, …); a packsync.dev typo is still packsync's. */
export function isForeignApiVersion(av: unknown): av is string {
  return typeof av === 'string' && !av.startsWith(API_VERSION.split('/')[0]!) && !/packsync/i.test(av);
}

/** Another group's document is not a packsync manifest: skipped with a warning. */
function foreignDocument(d: ParsedDocument): CheckResult['foreign'] {
  const av = isRecord(d.value) ? d.value.apiVersion : undefined;
  if (!isForeignApiVersion(av)) return undefined;
  const p = d.locate(['apiVersion'], 'value');
  const kind = isRecord(d.value) && typeof d.value.kind === 'string' ? ` ${d.value.kind}` : '';
  return { file: d.file, line: p.line, column: p.column, what: `${av}${kind}` };
}

type Here = (segments: string[], mode: 'value' | 'container', rule: string, message: string) => Problem;

function problemAt(d: ParsedDocument): Here {
  return (segments, mode, rule, message) => {
    const p = d.locate(segments, mode);
    return {
      file: d.file,
      line: p.line,
      column: p.column,
      pointer: segments.map((s) => `/${s}`).join(''),
      rule,
      message,
      severity: 'error',
    };
  };
}

/** apiVersion and kind: the kind when it is one packsync reads (the schema check needs it), with the problems found. */
function checkHeader(v: Record<string, unknown>, name: string | undefined, here: Here): { kind?: SourceKind; problems: Problem[] } {
  const problems: Problem[] = [];
  const kindList = SOURCE_KINDS.join(', ');
  if (!('apiVersion' in v))
    problems.push(here([], 'container', 'schema.required', `missing required field apiVersion (use ${API_VERSION})`));
  else if (v.apiVersion !== API_VERSION) {
    const got = JSON.stringify(v.apiVersion);
    const message = `apiVersion must be ${API_VERSION} (got ${got}); it is the only version this packsync reads`;
    problems.push(here(['apiVersion'], 'value', 'manifest.api-version', message));
  }
  if (!('kind' in v)) {
    problems.push(here([], 'container', 'schema.required', `missing required field kind (one of ${kindList})`));
    return { problems };
  }
  const kind = v.kind;
  if (typeof kind !== 'string' || !(SOURCE_KINDS as readonly string[]).includes(kind)) {
    const guess = typeof kind === 'string' ? didYouMean(kind, SOURCE_KINDS) : undefined;
    const who = name === undefined ? '' : `"${name}": `;
    const hint = guess ? ` (did you mean "${guess}"?)` : '';
    problems.push(
      here(['kind'], 'value', 'manifest.kind', `${who}unknown kind ${JSON.stringify(kind)}: must be one of ${kindList}${hint}`),
    );
    return { problems };
  }
  return { kind: kind as SourceKind, problems };
}

/** The kind's JSON Schema, then integers too large to hold exactly; `ok` is the schema's verdict. */
function checkSchema(d: ParsedDocument, v: Record<string, unknown>, k: SourceKind, prefix: string): { ok: boolean; problems: Problem[] } {
  const validate = validators().byKind[k];
  const ok = validate(v);
  // apiVersion was checked with a better message.
  const errors = (validate.errors ?? []).filter(
    (e) =>
      e.instancePath !== '/apiVersion' &&
      !(e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === 'apiVersion'),
  );
  const specFields = Object.keys((KIND_SCHEMAS[k].properties as Record<string, { properties?: object }>).spec?.properties ?? {});
  const problems = schemaProblems(errors, { doc: d, prefix, specFields });
  for (const segments of unsafeIntegers(v)) {
    const pointer = toPointer(segments);
    if (problems.some((p) => p.pointer === pointer)) continue; // the schema already refused it
    const written = d.sourceText(segments) ?? String(valueAt(v, segments));
    const at = d.locate(segments, 'value');
    const message = `${prefix}${displayPath(segments)} ${written} is too large to be held exactly (integers go up to ${Number.MAX_SAFE_INTEGER})`;
    problems.push({ file: d.file, line: at.line, column: at.column, pointer, rule: 'schema.range', message, severity: 'error' });
  }
  return { ok, problems };
}

export function checkDocument(d: ParsedDocument): CheckResult {
  if (!d.ok) return { problems: [] }; // the YAML errors are already reported
  const foreign = foreignDocument(d);
  if (foreign) return { problems: [], foreign };
  const here = problemAt(d);
  const v = d.value;
  if (!isRecord(v)) {
    const got = Array.isArray(v) ? 'a list' : JSON.stringify(v);
    return {
      problems: [here([], 'value', 'schema.type', `a manifest must be a mapping with apiVersion, kind, metadata and spec (got ${got})`)],
    };
  }
  const meta = v.metadata;
  const name = isRecord(meta) && typeof meta.name === 'string' ? meta.name : undefined;
  const header = checkHeader(v, name, here);
  if (!header.kind) return { problems: header.problems };
  const k = header.kind;
  const prefix = manifestPrefix(k, name);
  const schema = checkSchema(d, v, k, prefix);
  const problems = [...header.problems, ...schema.problems];
  const checked = { doc: d, name, data: v, valid: schema.ok && problems.length === 0, prefix };
  if (isObjectKind(k)) return { record: { ...checked, kind: k }, problems };
  return { authored: { ...checked, kind: k }, problems };
}
