/**
 * Rules JSON Schema cannot express: unique names per kind, references between manifests, custom
 * package content, and warnings about specs that are valid but probably not what was meant.
 */
import type { Turns } from '../util/turns.js';
import type { Kind, Problem } from './model.js';
import { inspectContent } from './content.js';
import { OBJECT_KIND_SPECS } from './kinds/index.js';
import { checkIdentities } from './identity-rules.js';
import { checkWindows } from './window-rules.js';
import type { DocRecord } from './doc-record.js';
import type { ContentInfo } from './content.js';
import { displayPath, toPointer, valueAt } from './paths.js';
import { didYouMean } from './suggest.js';
import { parseRate, PROMOTION_DEFAULTS } from './promotion-values.js';
import type { LocateMode, Segment } from './yaml-types.js';

export interface RuleResult {
  problems: Problem[];
  /** Content of each custom package that has valid content, by document. */
  content: Map<DocRecord, ContentInfo>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const plural = (kind: Kind): string => OBJECT_KIND_SPECS[kind].plural;

/** A problem at `segments` of a document: at its value unless `mode` says its key or container. */
function problem(
  r: DocRecord,
  segments: readonly Segment[],
  rule: string,
  message: string,
  o: { mode?: LocateMode; severity?: Problem['severity'] } = {},
): Problem {
  const p = r.doc.locate(segments, o.mode ?? 'value');
  const severity = o.severity ?? 'error';
  return { file: r.doc.file, line: p.line, column: p.column, pointer: toPointer(segments), rule, message: r.prefix + message, severity };
}

function str(data: unknown, segments: readonly Segment[]): string | undefined {
  const v = valueAt(data, segments);
  return typeof v === 'string' ? v : undefined;
}

/**
 * `heldBack(kind, name)`: the name may be defined in a file that failed to parse, so a reference to
 * it is not reported as unresolved (the YAML error is).
 */
export async function checkRules(
  records: readonly DocRecord[],
  root: string,
  rootReal: string,
  o: {
    heldBack?: (kind: Kind, name: string) => boolean;
    /** The folder of a record's file (absolute), for the hint on a content path written from it. */
    folderOf?: (file: string) => string | undefined;
    /** Gives way to the event loop between records (util/turns.ts). */
    turns?: Turns;
  } = {},
): Promise<RuleResult> {
  const problems: Problem[] = [];
  const names = nameIndex(records, problems);
  checkIdentities(
    records,
    (r) => r.name !== undefined && names.get(r.kind)?.get(r.name) === r,
    (r, at, rule, message) => problems.push(problem(r, at, rule, message)),
  );
  const ref = refChecker(names, problems, o.heldBack);
  const content = new Map<DocRecord, ContentInfo>();
  // A deployment is found live by (flow, package): two manifests for one pair would fight.
  const pairs = new Map<string, DocRecord>();
  for (const r of records) {
    if (o.turns?.due()) await o.turns.next();
    if (r.kind === 'Deployment' || r.kind === 'Flow')
      checkWindows(r.data, (at, rule, message) => problems.push(problem(r, at, rule, message)));
    for (const [field, target] of Object.entries(OBJECT_KIND_SPECS[r.kind].references)) ref(r, ['spec', field], target);
    if (r.kind === 'Deployment') {
      checkPair(r, names, pairs, problems);
      waveWarning(r, problems);
      noisyGateWarning(r, problems);
      appMismatch(r, names, problems);
    } else if (r.kind === 'Package') {
      pinnedUpdate(r, problems);
      await checkContent(r, { root, rootReal, from: o.folderOf?.(r.doc.file) }, problems, content);
    }
  }
  return { problems, content };
}

type NameIndex = Map<Kind, Map<string, DocRecord>>;

/** Records by kind and name; a second record with a taken name is a problem (names are unique per kind). */
function nameIndex(records: readonly DocRecord[], problems: Problem[]): NameIndex {
  const names: NameIndex = new Map();
  for (const r of records) {
    if (r.name === undefined) continue;
    const byName = names.get(r.kind) ?? new Map<string, DocRecord>();
    names.set(r.kind, byName);
    const first = byName.get(r.name);
    if (first) {
      const at = first.doc.locate(['metadata', 'name'], 'value');
      problems.push(
        problem(
          r,
          ['metadata', 'name'],
          'manifest.duplicate-name',
          `another ${r.kind} has the same name (first at ${first.doc.file}:${at.line}:${at.column}); names must be unique per kind`,
        ),
      );
    } else {
      byName.set(r.name, r);
    }
  }
  return names;
}

/** A reference (`spec.flow`, `spec.package`, …) must name a manifest of its kind, with a hint when it does not. */
function refChecker(
  names: NameIndex,
  problems: Problem[],
  heldBack: ((kind: Kind, name: string) => boolean) | undefined,
): (r: DocRecord, segments: Segment[], target: Kind) => void {
  return (r, segments, target) => {
    const value = str(r.data, segments);
    if (value === undefined || value === '') return;
    const known = names.get(target) ?? new Map<string, DocRecord>();
    if (known.has(value) || heldBack?.(target, value)) return;
    const guess = didYouMean(value, known.keys());
    const list = [...known.keys()].sort();
    const hint = guess
      ? ` (did you mean "${guess}"?)`
      : list.length === 0
        ? ` (there are no ${plural(target)})`
        : ` (${plural(target)}: ${list.slice(0, 10).join(', ')}${list.length > 10 ? ', …' : ''})`;
    problems.push(
      problem(r, segments, 'ref.unresolved', `${displayPath(segments)} "${value}" does not name a ${target} in this repository${hint}`),
    );
  };
}

/** One Deployment per (flow, package); a document already reported as a duplicate name is not reported twice. */
function checkPair(r: DocRecord, names: NameIndex, pairs: Map<string, DocRecord>, problems: Problem[]): void {
  const flow = str(r.data, ['spec', 'flow']);
  const pkg = str(r.data, ['spec', 'package']);
  if (!flow || !pkg || r.name === undefined || names.get('Deployment')?.get(r.name) !== r) return;
  const pair = `${flow}\u0000${pkg}`;
  const first = pairs.get(pair);
  if (!first) {
    pairs.set(pair, r);
    return;
  }
  const at = first.doc.locate(['spec', 'package'], 'value');
  problems.push(
    problem(
      r,
      ['spec', 'package'],
      'deployment.duplicate',
      `Deployment "${first.name ?? '?'}" (${first.doc.file}:${at.line}:${at.column}) already deploys package "${pkg}" in flow "${flow}"; one Deployment per (flow, package)`,
    ),
  );
}

async function checkContent(
  r: DocRecord,
  where: { root: string; rootReal: string; from: string | undefined },
  problems: Problem[],
  out: Map<DocRecord, ContentInfo>,
): Promise<void> {
  const custom = valueAt(r.data, ['spec', 'custom']);
  if (custom === null || typeof custom !== 'object' || Array.isArray(custom)) return;
  const spec = custom as Record<string, unknown>;
  if (!('content' in spec)) {
    const example = typeof r.name === 'string' ? ` (e.g. content: content/${r.name})` : '';
    problems.push(
      problem(
        r,
        ['spec', 'custom'],
        'content.required',
        `spec.custom.content is required: the service cannot finalize a custom package without uploaded files, so name the directory that holds the installer${example}`,
        { mode: 'container' },
      ),
    );
    return;
  }
  const dir = spec.content;
  if (typeof dir !== 'string' || dir === '') return; // the schema already reported it
  const check = await inspectContent(where.root, where.rootReal, dir, where.from);
  if (check.ok) out.set(r, check.content);
  else problems.push(problem(r, ['spec', 'custom', 'content'], check.rule, check.message));
}

/**
 * A version policy on a package pinned by `versionId`: `packsync update` writes `version`, so it would
 * never follow anything and the pin would look tracked (docs/manifests.md, "Version policy").
 */
function pinnedUpdate(r: DocRecord, problems: Problem[]): void {
  const c = ['spec', 'catalog'];
  if (valueAt(r.data, [...c, 'update']) === undefined || str(r.data, [...c, 'versionId']) === undefined) return;
  problems.push(
    problem(
      r,
      [...c, 'update'],
      'package.update-pinned',
      'spec.catalog.update needs spec.catalog.version: packsync update keeps `version` current and never changes a versionId pin; write the version instead of versionId, or remove update',
      { mode: 'key' },
    ),
  );
}

/** docs/promotion.md "Choosing minDevices": below this, a 2 % failure rate trips a 10 % gate by chance. */
export const RECOMMENDED_MIN_DEVICES = 50;

/** A promotion gate that judges failure from too few reports stops healthy rollouts (docs/promotion.md). */
function noisyGateWarning(r: DocRecord, problems: Problem[]): void {
  // A document its schema refused has its errors to fix first; a warning about it would be noise.
  if (!r.valid) return;
  const promotion = valueAt(r.data, ['spec', 'promotion']);
  if (promotion === null || typeof promotion !== 'object' || Array.isArray(promotion)) return;
  const p = promotion as { minDevices?: unknown; maxFailureRate?: unknown };
  const min = p.minDevices === undefined ? PROMOTION_DEFAULTS.minDevices : p.minDevices;
  const rateText = p.maxFailureRate === undefined ? PROMOTION_DEFAULTS.maxFailureRate : p.maxFailureRate;
  if (typeof min !== 'number' || typeof rateText !== 'string') return;
  let rate: number;
  try {
    rate = parseRate(rateText);
  } catch {
    return; // the schema reports it
  }
  if (min >= RECOMMENDED_MIN_DEVICES || rate > 0.1) return;
  const at = p.minDevices === undefined ? (['spec', 'promotion'] as const) : (['spec', 'promotion', 'minDevices'] as const);
  problems.push(
    problem(
      r,
      at,
      'promotion.min-devices-low',
      `minDevices ${min}${p.minDevices === undefined ? ' (the default)' : ''} with maxFailureRate ${rateText}: a healthy rollout failing 2 % of installs exceeds ${rateText} in some tenant by chance and is stopped; use minDevices: ${RECOMMENDED_MIN_DEVICES} or more (docs/promotion.md "Choosing minDevices")`,
      { mode: p.minDevices === undefined ? 'key' : 'value', severity: 'warning' },
    ),
  );
}

function waveWarning(r: DocRecord, problems: Problem[]): void {
  const wave = valueAt(r.data, ['spec', 'wave']);
  const state = str(r.data, ['spec', 'state']);
  if (typeof wave !== 'number' || !Number.isInteger(wave) || wave < 1 || (state !== 'pending' && state !== 'stopped')) return;
  problems.push(
    problem(
      r,
      ['spec', 'wave'],
      'deployment.wave-ignored',
      `wave ${wave} has no effect while state is ${state}: the wave gate only acts on a running deployment`,
      { severity: 'warning' },
    ),
  );
}

/**
 * A deployment whose package cannot belong to its flow. A flow on a package (`spec.package`)
 * deploys that package: any other package is an error, as is a custom package in a flow for a
 * catalog app (the service refuses it, but only in the middle of an apply). A catalog package of
 * another app than the flow's is a warning: both are names, and spelling is the likelier slip.
 */
function appMismatch(r: DocRecord, names: Map<Kind, Map<string, DocRecord>>, problems: Problem[]): void {
  const flow = names.get('Flow')?.get(str(r.data, ['spec', 'flow']) ?? '');
  const pkg = names.get('Package')?.get(str(r.data, ['spec', 'package']) ?? '');
  if (!flow || !pkg) return; // unresolved references are reported on their own
  const mismatch = (message: string, severity: Problem['severity']): void => {
    problems.push(problem(r, ['spec', 'package'], 'deployment.app-mismatch', message, { severity }));
  };
  const flowPackage = str(flow.data, ['spec', 'package']);
  if (flowPackage !== undefined) {
    if (flowPackage !== pkg.name) {
      mismatch(
        `flow "${flow.name ?? ''}" deploys package "${flowPackage}" only (it is a flow on that package), but this Deployment names package "${pkg.name ?? ''}"`,
        'error',
      );
    }
    return;
  }
  const flowApp = str(flow.data, ['spec', 'app']);
  if (!flowApp) return;
  const pkgApp = str(pkg.data, ['spec', 'catalog', 'app']);
  if (pkgApp === undefined) {
    if (valueAt(pkg.data, ['spec', 'custom']) !== undefined) {
      mismatch(
        `package "${pkg.name ?? ''}" is a custom package but flow "${flow.name ?? ''}" deploys catalog app "${flowApp}"; a custom package needs a flow on it (spec.package)`,
        'error',
      );
    }
    return;
  }
  if (UUID.test(flowApp) || UUID.test(pkgApp)) return;
  if (flowApp.toLowerCase() === pkgApp.toLowerCase()) return;
  mismatch(
    `package "${pkg.name ?? ''}" is catalog app "${pkgApp}" but flow "${flow.name ?? ''}" deploys catalog app "${flowApp}"`,
    'warning',
  );
}
