/**
 * Plan formatters: `text` (symbols + ~ - ±, colour only on a TTY), `json` (the versioned plan as
 * is) and `markdown` (ready for a pull-request comment). Pure: strings out.
 */
import { visible, visibleDeep } from '../../util/visible.js';
import { OBJECT_KIND_SPECS } from '../../manifests/kinds/index.js';
import type { Change, ObjectPlan, Plan, PlanAction, PlanSummary } from '../types.js';
import type { Problem } from '../../manifests/model.js';
import { OP } from '../ops.js';
import { codeSpan, htmlText, markdownText as md } from './markdown.js';
import { windowLines } from '../windows/window-format.js';
import { formatCount } from '../../util/count-format.js';

const SYMBOL: Record<Change, string> = {
  create: '+',
  update: '~',
  replace: '±',
  delete: '-',
  move: '→',
  adopt: '~',
  forget: '-',
  none: ' ',
  waiting: '…',
  skipped: '!',
  conflict: '!',
  'requires-replacement': '±',
  drift: '!',
  orphan: '?',
  error: '✗',
};

const LABEL: Record<Change, string> = {
  create: 'will be created',
  update: 'will be updated in place',
  replace: 'will be replaced',
  delete: 'will be deleted',
  move: 'has moved (state only, no API call)',
  adopt: 'will be adopted',
  forget: 'will be forgotten (not deleted)',
  none: 'unchanged',
  waiting: 'waiting',
  skipped: 'skipped',
  conflict: 'conflict',
  'requires-replacement': 'requires replacement (not applied without --allow-replace)',
  drift: 'drifted (reported only)',
  orphan: 'kept in the state, not in git',
  error: 'error',
};

const COLOUR: Partial<Record<Change, string>> = {
  create: '32',
  update: '33',
  adopt: '33',
  replace: '35',
  'requires-replacement': '35',
  delete: '31',
  forget: '31',
  error: '31',
  conflict: '31',
  drift: '33',
  skipped: '90',
  waiting: '36',
};

/**
 * A destroyed rollout added again starts over: its early waves' tenants get it again (operator
 * review: nothing said so). `wave` is `k/n` as the destroys carry it.
 */
function restartNote(wave: string): string {
  const m = /^(\d+)\/(\d+)$/.exec(wave);
  if (!m || Number(m[1]) < 1) return '';
  return `; its rollout restarts at wave 1 of ${m[2]} (was ${wave})`;
}

export function summaryLine(s: PlanSummary): string {
  // Reported drift is not blocked: nothing stops it from being healed but the policy.
  const extra = [
    s.waiting ? `${s.waiting} waiting` : '',
    s.blocked ? `${s.blocked} blocked` : '',
    s.suspended ? `${s.suspended} suspended` : '',
    s.drifted ? `${s.drifted} drifted (reported, not healed)` : '',
    s.orphaned ? `${s.orphaned} orphaned (requires pruning)` : '',
  ].filter(Boolean);
  const reach = s.tenants !== undefined ? ` Reaches ${s.tenants} tenant(s), ${formatCount(s.devices ?? 0)} device(s).` : '';
  return `Plan: ${s.create} to create, ${s.change} to change, ${s.delete} to delete, ${s.unchanged} unchanged${extra.length ? `, ${extra.join(', ')}` : ''}.${reach}`;
}

/** Two name lists (flow flags) read as what is added and removed: `[+radarTracking, -x]`. */
function fieldText(f: { field: string; from: unknown; to: unknown }): string {
  const names = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (names(f.from) && names(f.to)) {
    const from = f.from;
    const to = f.to;
    const delta = [...to.filter((x) => !from.includes(x)).map((x) => `+${x}`), ...from.filter((x) => !to.includes(x)).map((x) => `-${x}`)];
    return `${f.field}: [${delta.join(', ')}]`;
  }
  return `${f.field}: ${valueText(f.from)} → ${valueText(f.to)}`;
}

function valueText(v: unknown): string {
  return v === undefined || v === null ? '(none)' : typeof v === 'string' ? `"${v}"` : JSON.stringify(v);
}

const KIND_ORDER: Record<string, number> = Object.fromEntries(Object.values(OBJECT_KIND_SPECS).map((s) => [s.kind, s.order]));

/** People read a plan in the order it runs: packages, flows, deployments, uploads (stable within a kind). */
function byDependency<T extends { kind: string }>(objects: T[]): T[] {
  return objects
    .map((o, i) => ({ o, i }))
    .sort((a, b) => (KIND_ORDER[a.o.kind] ?? 9) - (KIND_ORDER[b.o.kind] ?? 9) || a.i - b.i)
    .map((x) => x.o);
}

/**
 * `show` names an object's file as the person reading sees it (cli/paths.ts `showFile`), for the
 * objects printed only: a no-op's 19,750 objects were copied with their files renamed, to print none.
 */
export function formatPlanText(
  shownPlan: Plan,
  opts: { color?: boolean; verbose?: boolean; show?: (file: string) => string } = {},
): string {
  // An unchanged object with a reason (e.g. `live wave 3 is past the gate wave 2`) is shown too:
  // the reason is news, though nothing is written. Only what is shown is made visible: a no-op of
  // 19,750 objects copied every one of them for nothing (docs/performance.md, fleet-cli).
  const wanted = shownPlan.objects.filter((o) => opts.verbose || o.change !== 'none' || o.reasons.length > 0);
  // Names and API messages are shown, never obeyed by the terminal (docs/errors.md, "Text output").
  // Only what is printed is made visible: an object's lines and an action's description, not their
  // action ids, request bodies and records (patch-tuesday: 6,500 objects and actions, ~0.1 s).
  const plan = visibleDeep({ ...shownPlan, objects: [], actions: [] });
  const paint = (c: Change, s: string): string => (opts.color && COLOUR[c] ? `\x1b[${COLOUR[c]}m${s}\x1b[0m` : s);
  const lines: string[] = [];
  // The plan header names a verified revision's signer (docs/architecture.md, signature verification).
  if (plan.signer) lines.push(`Revision ${plan.revision ?? '(directory)'} signed by ${plan.signer}`, '');
  if (plan.baselines && plan.baselines.length > 0) lines.push(...plan.baselines, '');
  if (plan.targets)
    lines.push(`Targeted: ${plan.targets.join(', ')} (and what they depend on); other changes wait for a plan without --target.`, '');
  for (const e of plan.errors) lines.push(`Error: ${e}`);
  const shown = byDependency(wanted);
  const actionsById = new Map<string, PlanAction>();
  for (const a of shownPlan.actions) actionsById.set(a.id, a);
  for (const o of shown) objectLines(o, actionsById, paint, lines, opts.show);
  if (shown.every((o) => o.change === 'none') && plan.errors.length === 0) lines.push('No changes. Live state matches the desired state.');
  // One gate line per running deployment with promotion, changed or not (docs/manifests.md).
  if (plan.gates && plan.gates.length > 0) lines.push('', ...plan.gates.map((g) => g.line));
  const windows = windowLines(plan);
  if (windows.length > 0) lines.push('', 'Change windows:', ...windows.map((l) => `  ${l}`));
  lines.push('');
  lines.push(summaryLine(plan.summary) + (plan.reads !== undefined ? ` (${plan.reads} API reads)` : ''));
  return lines.join('\n');
}

/** One object's lines, into `lines`: its key, fields, reasons, destroys, error and actions, made visible. */
function objectLines(
  raw: ObjectPlan,
  actionsById: ReadonlyMap<string, PlanAction>,
  paint: (c: Change, s: string) => string,
  lines: string[],
  show?: (file: string) => string,
): void {
  const { change, kind } = raw;
  const o = visibleDeep({
    key: raw.key,
    fields: raw.fields,
    reasons: raw.reasons,
    destroys: raw.destroys,
    error: raw.error,
    source: raw.source && show ? { ...raw.source, file: show(raw.source.file) } : raw.source,
  });
  lines.push(paint(change, `${SYMBOL[change]} ${o.key} ${LABEL[change]}`));
  for (const f of o.fields) lines.push(`    ${fieldText(f)}`);
  for (const r of o.reasons) lines.push(`    # ${r}`);
  for (const d of o.destroys ?? [])
    lines.push(
      paint(
        'delete',
        `    - ${d.key} (deployment ${d.id}, ${d.status}, wave ${d.wave}) will be destroyed ${kind === 'Flow' ? 'with the old flow' : 'and added again'}${restartNote(d.wave)}`,
      ),
    );
  if (o.error)
    lines.push(`    ${o.source ? `${o.source.file}:${o.source.line}:${o.source.column}: ` : ''}${o.error.code}: ${o.error.message}`);
  for (const id of raw.actions) {
    const a = actionsById.get(id);
    if (a && a.op !== OP.record && !(a.op === OP.gate && a.quiet)) lines.push(`    - ${visible(a.description)}`);
  }
}

/**
 * The plan as JSON. `errors` lists plan-wide errors and then each object's error (`KEY: CODE:
 * message`), so a pull-request bot reads one field (operator review: `errors` was empty while an
 * object failed).
 */
export function formatPlanJson(plan: Plan): string {
  const objectErrors = plan.objects.filter((o) => o.error).map((o) => `${o.key}: ${o.error!.code}: ${o.error!.message}`);
  return JSON.stringify({ ...plan, errors: [...plan.errors, ...objectErrors] }, null, 2);
}

/** GitHub refuses comments over 65,536 characters; the plan stays well under with room for a bot's own text. */
export const MARKDOWN_LIMIT = 60_000;

/**
 * A pull-request comment: a title naming the commit (else the digest), plan-wide errors and the
 * summary in the open, the per-object table folded in `<details>`, capped under `MARKDOWN_LIMIT`
 * characters with a line saying how many objects were left out.
 */
export function formatPlanMarkdown(plan: Plan, opts: { commit?: string | null } = {}): string {
  const title = opts.commit
    ? ` for commit ${codeSpan(opts.commit.slice(0, 12))}`
    : plan.revision
      ? ` for ${codeSpan(plan.revision.slice(0, 19))}`
      : '';
  const out: string[] = [`### packsync plan${title}`, ''];
  if (plan.signer) out.push(`Signed by ${md(plan.signer)}`, '');
  for (const b of plan.baselines ?? []) out.push(`${md(b)}  `);
  if (plan.baselines && plan.baselines.length > 0) out.push('');
  if (plan.targets)
    out.push(
      `Targeted: ${plan.targets.map((t) => codeSpan(t)).join(', ')} (and what they depend on); other changes wait for a plan without \`--target\`.`,
      '',
    );
  for (const e of plan.errors) out.push(`> **Error:** ${md(e)}`, '');
  out.push(`**${summaryLine(plan.summary)}**`, '');
  const changed = byDependency(plan.objects.filter((o) => o.change !== 'none' || o.reasons.length > 0));
  const changing = changed.filter((o) => o.change !== 'none');
  // A gate line is machine output with its own backtick quoting (`packsync resume …`): a code span
  // (fenced longer than its backticks) shows it exactly as the text plan prints it, double spaces
  // kept, and a tenant or reason text can never turn into emphasis, a link, an @mention or an
  // issue reference the way it could in escaped prose.
  const gates = plan.gates && plan.gates.length > 0 ? ['', '**Rollouts**', '', ...plan.gates.map((g) => `- ${codeSpan(g.line)}`)] : [];
  if (changing.length === 0) out.push('No changes. Live state matches the desired state.');
  if (changed.length === 0) {
    out.push(...gates);
    return out.join('\n');
  }
  if (changing.length === 0) out.push('');
  // Real changes (and orphans that need pruning) are in the open; unchanged objects with a note
  // and superseded copies kept in the state are the noise folded away (operator review: a restarted
  // rollout hid inside <details>).
  const open = changed.filter((o) => (o.change !== 'none' && o.change !== 'orphan') || o.requiresPruning === true);
  const folded = changed.filter((o) => !open.includes(o));
  let size = out.join('\n').length + 200;
  let shown = 0;
  const table = (objects: readonly ObjectPlan[]): void => {
    out.push('| | Object | Change | Details |', '|---|---|---|---|');
    for (const o of objects) {
      const row = `| ${codeSpan(SYMBOL[o.change], { inTable: true })} | ${codeSpan(o.key, { inTable: true })} | ${md(LABEL[o.change])} | ${details(o)} |`;
      if (size + row.length + 1 > MARKDOWN_LIMIT) return;
      out.push(row);
      size += row.length + 1;
      shown++;
    }
  };
  if (open.length > 0) table(open);
  if (folded.length > 0 && shown === open.length) {
    const byChange = new Map<string, number>();
    for (const o of folded) byChange.set(LABEL[o.change], (byChange.get(LABEL[o.change]) ?? 0) + 1);
    if (open.length > 0) out.push('');
    out.push(
      `<details><summary>${folded.length} more object(s): ${[...byChange].map(([k, n]) => `${n} ${htmlText(k)}`).join(', ')}</summary>`,
      '',
    );
    table(folded);
    out.push('', '</details>');
  }
  if (shown < changed.length)
    out.push('', `… and ${changed.length - shown} more object(s) not shown (comment size limit); \`packsync plan\` prints them all.`);
  out.push(...gates);
  return out.join('\n');
}

function details(o: ObjectPlan): string {
  const parts = [
    ...o.fields.map(fieldText),
    ...o.reasons,
    ...(o.reach ?? []),
    ...(o.destroys ?? []).map((d) => `destroys ${d.key} (${d.status}, wave ${d.wave})`),
    ...(o.error ? [`${o.source ? `${o.source.file}:${o.source.line}:${o.source.column}: ` : ''}${o.error.code}: ${o.error.message}`] : []),
  ];
  return parts.map(md).join('<br>');
}

/** The comment for a revision whose manifests are invalid: one line per problem, nothing planned. */
export function formatProblemsMarkdown(problems: readonly Problem[]): string {
  const lines = problems.map((p) => `- ${codeSpan(`${p.file}:${p.line}:${p.column}`)}: ${md(p.message)}`);
  return ['### packsync plan: invalid manifests', '', ...lines].join('\n');
}
