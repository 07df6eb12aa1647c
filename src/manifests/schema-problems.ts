/**
 * ajv errors → problems a person can act on: one per mistake, pointing at the offending key or
 * value, with the allowed values and a "did you mean" where a typo is likely. ajv's raw output for
 * `oneOf` and `if/then` is noisy (one error per branch plus a summary); it is folded here.
 */
import baselineSchema from '../../schemas/v1/baseline.json' with { type: 'json' };
import type { AnySchemaObject, ErrorObject } from 'ajv/dist/2020.js';
import type { Problem } from './model.js';
import { displayPath, fromPointer, toPointer } from './paths.js';
import { didYouMean, suggestion } from './suggest.js';
import { WINDOW_PATTERN, windowMistake } from './window-values.js';
import type { LocateMode, ParsedDocument, Position, Segment } from './yaml-types.js';

export const NAME_PATTERN = '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';
/** `spec.promotion` durations and rates (schemas/v1/deployment.json). */
export const DURATION_PATTERN = '^([0-9]+d)?([0-9]+h)?([0-9]+m)?$';
export const RATE_PATTERN = '^(100|[0-9]{1,2}(\\.[0-9]+)?)%$';
/**
 * A day of the Gregorian calendar, YYYY-MM-DD, leap years included (a freeze's `from`/`to`, an
 * exception's `expires`): checked by the schema, so a day that does not exist (2026-02-30) is reported
 * with every other schema problem of the document, not only once they are fixed.
 */
export const DATE_PATTERN =
  '^(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)$';

export interface SchemaContext {
  doc: ParsedDocument;
  /** `Deployment "x": ` — the start of every message about this document. */
  prefix: string;
  /** Field names allowed under `spec`, to spot spec fields written at the top level. */
  specFields: readonly string[];
}

/** The settings a Baseline's defaults, apps, overrides and exceptions share (for did-you-mean). */
const SETTINGS_FIELDS = Object.keys((baselineSchema.$defs.settings as { properties: object }).properties);

const RULES: Record<string, string> = {
  required: 'schema.required',
  additionalProperties: 'schema.additional',
  unevaluatedProperties: 'schema.additional',
  enum: 'schema.enum',
  const: 'schema.enum',
  type: 'schema.type',
  pattern: 'schema.pattern',
  maxLength: 'schema.length',
  minLength: 'schema.length',
  minimum: 'schema.range',
  maximum: 'schema.range',
  uniqueItems: 'schema.unique',
  oneOf: 'schema.oneOf',
  not: 'schema.oneOf',
};

export function schemaProblems(errors: readonly ErrorObject[], ctx: SchemaContext): Problem[] {
  const data = ctx.doc.value;
  // A value of the wrong type makes every other keyword on it noise (a string `spec` "passes" both
  // oneOf branches, for instance): keep only the type error there.
  const typed = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  const relevant = errors.filter((e) => e.keyword === 'type' || !typed.has(e.instancePath));
  const conditions = errors.filter((e) => e.keyword === 'if');
  const skip = new Set<ErrorObject>(conditions);
  const out: Problem[] = [];
  for (const o of relevant.filter((e) => e.keyword === 'oneOf')) {
    const branchErrors = relevant.filter((e) => e.schemaPath.startsWith(`${o.schemaPath}/`));
    const onlyRequired = branchErrors.every((e) => e.keyword === 'required' && e.instancePath === o.instancePath);
    if (!onlyRequired && !Array.isArray((o.params as { passingSchemas?: unknown }).passingSchemas)) {
      // No shipped schema does this, but stay useful: report the branch that came closest.
      const best = closestBranch(o.schemaPath, branchErrors);
      for (const e of branchErrors) if (!best.includes(e)) skip.add(e);
      skip.add(o);
      continue;
    }
    for (const e of branchErrors) skip.add(e);
    skip.add(o);
    out.push(oneOfProblem(o, ctx));
  }
  // A bad map key (propertyNames): its own error names the key; ajv's wrapper after it says only "must be valid".
  const named = new Set(relevant.filter((e) => e.propertyName !== undefined).map((e) => e.instancePath));
  for (const e of relevant) if (e.keyword === 'propertyNames' && named.has(e.instancePath)) skip.add(e);
  for (const e of relevant) {
    if (skip.has(e) || e.keyword === 'oneOf') continue;
    out.push(problemFor(e, ctx, conditions, data));
  }
  return out;
}

function closestBranch(oneOfPath: string, errs: readonly ErrorObject[]): ErrorObject[] {
  const byBranch = new Map<string, ErrorObject[]>();
  for (const e of errs) {
    const branch = e.schemaPath.slice(oneOfPath.length + 1).split('/')[0] ?? '';
    byBranch.set(branch, [...(byBranch.get(branch) ?? []), e]);
  }
  return [...byBranch.values()].sort((a, b) => a.length - b.length)[0] ?? [];
}

function requiredNames(branches: unknown): string[] {
  if (!Array.isArray(branches)) return [];
  return branches.map((b) => {
    const req = (b as AnySchemaObject).required as unknown;
    return Array.isArray(req) ? req.map(String).join(' and ') : '?';
  });
}

function make(ctx: SchemaContext, segments: readonly Segment[], mode: LocateMode, rule: string, message: string): Problem {
  const p: Position = ctx.doc.locate(segments, mode);
  return {
    file: ctx.doc.file,
    line: p.line,
    column: p.column,
    pointer: toPointer(segments),
    rule,
    message: ctx.prefix + message,
    severity: 'error',
  };
}

function oneOfProblem(o: ErrorObject, ctx: SchemaContext): Problem {
  const parent = fromPointer(o.instancePath, ctx.doc.value);
  const names = requiredNames(o.schema);
  const passing = (o.params as { passingSchemas?: number[] | null }).passingSchemas;
  const where = displayPath(parent);
  if (Array.isArray(passing))
    return exclusive(
      ctx,
      parent,
      passing.map((i) => names[i] ?? '?'),
      'exactly one',
    );
  return make(ctx, parent, 'container', 'schema.required', `${where} must have one of ${names.join(' or ')}`);
}

/** Mutually exclusive keys given together; point at the one that comes last: that is the one to remove. */
function exclusive(ctx: SchemaContext, parent: readonly Segment[], given: readonly string[], howMany: string): Problem {
  const located = given.map((n) => ({ n, p: ctx.doc.locate([...parent, n], 'key') }));
  located.sort((a, b) => a.p.line - b.p.line || a.p.column - b.p.column);
  const last = located[located.length - 1]?.n ?? given[0] ?? '';
  return make(
    ctx,
    [...parent, last],
    'key',
    'schema.oneOf',
    `${displayPath(parent)} has both ${given.join(' and ')}; give ${howMany} of them`,
  );
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return `${typeof v} ${String(v)}`;
  if (Array.isArray(v)) return 'a list';
  return 'a mapping';
}

const TYPE_WORDS: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  null: 'empty',
};

/**
 * `spec.promotion` rates of a Deployment or a Flow (and a Baseline's, which generates those):
 * percentages written as strings like `95%` (schemas/v1/deployment.json, flow.json).
 */
const RATE_FIELDS = new Set(['successRate', 'maxFailureRate']);

/**
 * What a rate written as a number should be: `95` is "95%", while `0.95` is a fraction, 95 %
 * (appending `%` to it would validate and mean 0.95 %, a hundred times less).
 */
function rateHint(n: number, text: string): string {
  if (n > 0 && n <= 1) {
    const percent = Number((n * 100).toPrecision(12));
    return `; ${text} reads as a fraction: write it as the percentage "${percent}%"`;
  }
  return `; quote it: "${text}%"`;
}

function typeHint(expected: string, data: unknown, source: string | undefined, field?: string | number): string {
  if (expected === 'string' && (typeof data === 'number' || typeof data === 'boolean')) {
    const text = source ?? String(data);
    // A rate (successRate: 95) is a percentage string: suggest what validates, "95%".
    if (typeof field === 'string' && RATE_FIELDS.has(field) && typeof data === 'number') return rateHint(data, text);
    return `; quote it: "${text}"`;
  }
  if (expected === 'boolean' && typeof data === 'string' && /^(true|false|yes|no|on|off|y|n)$/i.test(data)) {
    return '; write true or false, without quotes';
  }
  if ((expected === 'integer' || expected === 'number') && typeof data === 'string' && data.trim() !== '' && !Number.isNaN(Number(data))) {
    return '; remove the quotes';
  }
  return '';
}

function conditionText(e: ErrorObject, conditions: readonly ErrorObject[]): string {
  if (!e.schemaPath.endsWith('/then/required')) return '';
  const ifPath = e.schemaPath.replace(/\/then\/required$/, '/if');
  const cond = conditions.find((c) => c.schemaPath === ifPath && c.instancePath === e.instancePath);
  const ifSchema = cond?.parentSchema?.if as AnySchemaObject | undefined;
  const props = ifSchema?.properties as Record<string, unknown> | undefined;
  if (!props || cond?.data === null || typeof cond?.data !== 'object') return '';
  const obj = cond.data as Record<string, unknown>;
  const parts = Object.keys(props).map((k) => `${k} is ${String(obj[k])}`);
  return parts.length > 0 ? ` (required when ${parts.join(' and ')})` : '';
}

/** One schema error with what every message needs: where it is, its display path, its rule and params. */
interface KeywordError {
  e: ErrorObject;
  ctx: SchemaContext;
  conditions: readonly ErrorObject[];
  segs: Segment[];
  path: string;
  rule: string;
  params: Record<string, unknown>;
}

function problemFor(e: ErrorObject, ctx: SchemaContext, conditions: readonly ErrorObject[], data: unknown): Problem {
  const segs = fromPointer(e.instancePath, data);
  if (e.propertyName !== undefined) return keyProblem(e, ctx, segs, e.propertyName);
  const k: KeywordError = {
    e,
    ctx,
    conditions,
    segs,
    path: displayPath(segs),
    rule: RULES[e.keyword] ?? `schema.${e.keyword}`,
    params: e.params as Record<string, unknown>,
  };
  return (BY_KEYWORD[e.keyword] ?? onOther)(k);
}

/** A map key the schema refuses (`rings: { Srv_1: … }`): at that key, naming it, not at the map's first key. */
function keyProblem(e: ErrorObject, ctx: SchemaContext, segs: Segment[], key: string): Problem {
  const params = e.params as Record<string, unknown>;
  const why = e.keyword === 'pattern' ? `must match ${String(params.pattern)}` : (e.message ?? 'is not allowed');
  return make(ctx, [...segs, key], 'key', RULES[e.keyword] ?? `schema.${e.keyword}`, `${displayPath(segs)} key "${key}" ${why}`);
}

const BY_KEYWORD: Record<string, (k: KeywordError) => Problem> = {
  required: onRequired,
  additionalProperties: onAdditionalProperties,
  unevaluatedProperties: onUnevaluatedProperties,
  enum: onEnum,
  not: onNot,
  const: onConst,
  type: onType,
  pattern: onPattern,
  maxLength: onMaxLength,
  minLength: onMinLength,
  minimum: onMinimum,
  maximum: onMaximum,
  uniqueItems: onUniqueItems,
};

function onRequired({ e, ctx, conditions, segs, rule, params }: KeywordError): Problem {
  const missing = String(params.missingProperty);
  return make(
    ctx,
    [...segs, missing],
    'container',
    rule,
    `missing required field ${displayPath([...segs, missing])}${conditionText(e, conditions)}`,
  );
}

function onAdditionalProperties({ e, ctx, segs, rule, params }: KeywordError): Problem {
  const extra = String(params.additionalProperty);
  const known = Object.keys((e.parentSchema?.properties as object | undefined) ?? {});
  let hint = suggestion(extra, known);
  if (segs.length === 0 && ctx.specFields.includes(extra))
    hint = ` (did you mean spec.${extra}? everything but apiVersion, kind and metadata goes under spec)`;
  else if (segs.length === 0 && hint === '') {
    const specMatch = didYouMean(extra, ctx.specFields);
    if (specMatch) hint = ` (did you mean spec.${specMatch}?)`;
  }
  if (hint === '' && known.length > 0) hint = ` (allowed: ${known.join(', ')})`;
  return make(ctx, [...segs, extra], 'key', rule, `unknown field ${displayPath([...segs, extra])}${hint}`);
}

function onUnevaluatedProperties({ e, ctx, segs, rule, params }: KeywordError): Problem {
  // A Baseline entry: its own fields and the shared settings (schemas/v1/baseline.json).
  const extra = String(params.unevaluatedProperty);
  const parent = e.parentSchema as { properties?: object; allOf?: { $ref?: string }[] } | undefined;
  const known = [...Object.keys(parent?.properties ?? {}), ...SETTINGS_FIELDS];
  const hint = suggestion(extra, known) || ` (allowed: ${known.join(', ')})`;
  return make(ctx, [...segs, extra], 'key', rule, `unknown field ${displayPath([...segs, extra])}${hint}`);
}

function onEnum({ e, ctx, segs, path, rule, params }: KeywordError): Problem {
  const allowed = (params.allowedValues as unknown[]).map(String);
  const got = e.data;
  const hint = typeof got === 'string' ? didYouMean(got, allowed) : undefined;
  return make(
    ctx,
    segs,
    'value',
    rule,
    `${path} must be one of ${allowed.join(', ')} (got ${describe(got)}${hint ? `; did you mean "${hint}"?` : ''})`,
  );
}

function onNot({ e, ctx, segs, path, rule }: KeywordError): Problem {
  // `not: {required: [a, b]}` is how a schema says "at most one of a, b".
  const req = (e.schema as AnySchemaObject | undefined)?.required as unknown;
  if (Array.isArray(req)) return exclusive(ctx, segs, req.map(String), 'at most one');
  return make(ctx, segs, 'value', rule, `${path} ${e.message ?? 'is invalid'}`);
}

function onConst({ e, ctx, segs, path, rule, params }: KeywordError): Problem {
  return make(ctx, segs, 'value', rule, `${path} must be ${JSON.stringify(params.allowedValue)} (got ${describe(e.data)})`);
}

function onType({ e, ctx, segs, path, rule, params }: KeywordError): Problem {
  const expected = String(params.type);
  const word = TYPE_WORDS[expected] ?? expected;
  if (e.data === null || e.data === undefined) return make(ctx, segs, 'value', rule, `${path} is empty; it must be ${word}`);
  if (expected === 'integer' && typeof e.data === 'number')
    return make(ctx, segs, 'value', rule, `${path} must be a whole number (got ${e.data})`);
  return make(
    ctx,
    segs,
    'value',
    rule,
    `${path} must be ${word} (got ${describe(e.data)}${typeHint(expected, e.data, ctx.doc.sourceText(segs), segs.at(-1))})`,
  );
}

function onPattern({ e, ctx, segs, path, rule, params }: KeywordError): Problem {
  const pattern = String(params.pattern);
  if (pattern === NAME_PATTERN) {
    const fix = nameFix(String(e.data));
    return make(
      ctx,
      segs,
      'value',
      rule,
      `${path} ${JSON.stringify(e.data)} is not a valid name: use lowercase letters, digits, "-" and ".", starting and ending with a letter or digit${fix ? ` (e.g. "${fix}")` : ''}`,
    );
  }
  if (pattern.includes('{8}-')) return make(ctx, segs, 'value', rule, `${path} must be a UUID (got ${describe(e.data)})`);
  if (pattern === DURATION_PATTERN)
    return make(ctx, segs, 'value', rule, `${path} must be a duration like 30m, 2h, 1h30m or 3d (got ${describe(e.data)})`);
  if (pattern === DATE_PATTERN)
    return make(
      ctx,
      segs,
      'value',
      rule,
      `${path} is not a date: write a day of the calendar as YYYY-MM-DD, e.g. 2026-12-31 (got ${describe(e.data)})`,
    );
  // A window entry is told once, here, in words: window-rules.ts checks only entries the schema accepts.
  if (pattern === WINDOW_PATTERN) return make(ctx, segs, 'value', rule, `${path}: ${windowMistake(e.data)}`);
  if (pattern === RATE_PATTERN)
    return make(ctx, segs, 'value', rule, `${path} must be a percentage from 0% to 100% like 95% (got ${describe(e.data)})`);
  return make(ctx, segs, 'value', rule, `${path} must match ${pattern} (got ${describe(e.data)})`);
}

function onMaxLength({ e, ctx, segs, path, rule, params }: KeywordError): Problem {
  return make(ctx, segs, 'value', rule, `${path} is too long: ${String(e.data).length} characters, at most ${String(params.limit)}`);
}

function onMinLength({ ctx, segs, path, rule }: KeywordError): Problem {
  return make(ctx, segs, 'value', rule, `${path} must not be empty`);
}

function onMinimum({ e, ctx, segs, path, rule, params }: KeywordError): Problem {
  return make(ctx, segs, 'value', rule, `${path} must be at least ${String(params.limit)} (got ${describe(e.data)})`);
}

function onMaximum({ e, ctx, segs, path, rule, params }: KeywordError): Problem {
  return make(ctx, segs, 'value', rule, `${path} must be at most ${String(params.limit)} (got ${describe(e.data)})`);
}

function onUniqueItems({ e, ctx, segs, path, rule, params }: KeywordError): Problem {
  const later = Math.max(Number(params.i), Number(params.j));
  const item = Array.isArray(e.data) ? (e.data as unknown[])[later] : undefined;
  return make(ctx, [...segs, later], 'value', rule, `${path} lists ${describe(item)} more than once`);
}

function onOther({ e, ctx, segs, path, rule }: KeywordError): Problem {
  return make(ctx, segs, 'value', rule, `${path} ${e.message ?? 'is invalid'}`);
}

/** A valid name close to an invalid one, to show in the message. */
export function nameFix(name: string): string | undefined {
  const fixed = name
    .toLowerCase()
    .replace(/[^-a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 128)
    .replace(/[-.]+$/g, '');
  return fixed !== '' && fixed !== name ? fixed : undefined;
}
