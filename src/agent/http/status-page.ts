/**
 * The status page (`GET /`, docs/agent.md): one server-rendered HTML document built from the same
 * `/status` object, so every view has its data there too. No script, no front-end build; it
 * refreshes itself with `<meta http-equiv=refresh>`. Everything printed goes through `esc()`.
 * Long lists are capped (with a line saying how many more are in `/status`) so the page stays
 * under 200 KB at 1,000 deployments.
 */
import { policySection } from '../policy-view.js';
import type { AgentStatus, Condition, ObjectStatus } from './status-types.js';
import type { Rollout } from './status-types.js';
import { objectAnchor } from './anchors.js';

export const PAGE_LIMITS = { rollouts: 200, attention: 100, events: 30, history: 30, progress: 30 } as const;
export const REFRESH_SECONDS = 10;

import { esc } from './html-escape.js';
import { expiredExceptionKey, expiredExceptionText } from '../expired-exception.js';

export { esc };

/** `3 min ago`, `in 40 s`: coarse, so a refresh does not make the page jitter. */
export function age(iso: string | null | undefined, nowMs: number): string {
  if (!iso) return '';
  const d = Math.round((nowMs - Date.parse(iso)) / 1000);
  const a = Math.abs(d);
  const t =
    a < 90 ? `${a} s` : a < 5400 ? `${Math.round(a / 60)} min` : a < 172_800 ? `${Math.round(a / 3600)} h` : `${Math.round(a / 86_400)} d`;
  return d >= 0 ? `${t} ago` : `in ${t}`;
}

const short = (rev: string | null | undefined): string => (!rev ? '' : rev.startsWith('sha256:') ? rev.slice(0, 19) : rev.slice(0, 12));

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}main{max-width:1200px;margin:0 auto;padding:12px 16px}
h1{font-size:18px;margin:0 0 8px}h2{font-size:15px;margin:18px 0 6px}table{border-collapse:collapse;width:100%;background:#fff}
td,th{border-bottom:1px solid #e1e4e8;padding:3px 6px;text-align:left;vertical-align:top}th{background:#eef1f4;font-weight:600}
.b{padding:10px 14px;border-radius:6px;color:#fff}.b p{margin:2px 0}.Ready{background:#1a7f37}.Reconciling{background:#0969da}.Stalled{background:#cf222e}.NotReady{background:#9a6700}
code{font:12px ui-monospace,monospace}.m{color:#57606a}.bar{display:inline-block;width:80px;height:8px;background:#d0d7de;margin-left:6px}.bar i{display:block;height:8px;background:#0969da}
.c i{display:inline-block;width:12px;height:12px;margin:1px;border-radius:2px}.Completed{background:#1a7f37}.InProgress{background:#0969da}.Pending{background:#d0d7de}.Failed{background:#cf222e}.Skipped{background:#8c959f}
.e{color:#cf222e}.w{color:#9a6700}ul{margin:4px 0;padding-left:20px;background:#fff}`;

export interface PageInput {
  status: AgentStatus;
  ready: boolean;
  now?: Date;
}

export function renderStatusPage({ status: s, ready, now = new Date() }: PageInput): string {
  const t = now.getTime();
  const out: string[] = [];
  out.push(
    `<!doctype html><html lang=en><head><meta charset=utf-8><meta http-equiv=refresh content=${REFRESH_SECONDS}><meta name=viewport content="width=device-width,initial-scale=1"><title>packsync: ${esc(health(s).state)}</title><style>${CSS}</style></head><body><main>`,
  );
  out.push(banner(s, ready, t));
  out.push(progress(s, t));
  const used = new Set<string>();
  out.push(attention(s, used));
  out.push(board(s.rollouts, used));
  out.push(serviceStarted(s, used));
  out.push(policySection(s.windows ?? [], s.approvals ?? null));
  out.push(counts(s));
  out.push(events(s, t, used));
  out.push(history(s, t));
  out.push(
    `<p class=m>Refreshes every ${REFRESH_SECONDS} s. The same data as JSON: <a href=/status>/status</a> · <a href=/metrics>/metrics</a></p></main></body></html>`,
  );
  return out.join('\n');
}

/** The banner's state: Stalled beats Reconciling beats Ready. */
export function health(s: AgentStatus): { state: 'Ready' | 'Reconciling' | 'Stalled' | 'NotReady'; condition: Condition | undefined } {
  const c = (type: string): Condition | undefined => s.conditions.find((x) => x.type === type);
  const stalled = c('Stalled');
  if (stalled?.status === 'True') return { state: 'Stalled', condition: stalled };
  const rec = c('Reconciling');
  if (rec?.status === 'True') return { state: 'Reconciling', condition: rec };
  const r = c('Ready');
  return { state: r?.status === 'True' ? 'Ready' : 'NotReady', condition: r };
}

function banner(s: AgentStatus, ready: boolean, t: number): string {
  const h = health(s);
  const ready_ = s.conditions.find((c) => c.type === 'Ready');
  const drifted = s.conditions.find((c) => c.type === 'Drifted' && c.status === 'True');
  const halted = s.conditions.find((c) => c.type === 'RolloutsHealthy' && c.status === 'False');
  const src = [s.source.source, s.source.ref ? `@ ${s.source.ref}` : '', s.source.path ? `(path ${s.source.path})` : '']
    .filter(Boolean)
    .join(' ');
  const lines = [
    `<h1 id=state>${esc(h.state === 'NotReady' ? 'Not ready' : h.state)}: ${esc(h.condition?.reason ?? '')}</h1>`,
    `<p id=message>${esc(h.condition?.message ?? '')}</p>`,
    h.state !== 'Ready' && ready_ && ready_ !== h.condition
      ? `<p>Ready: ${esc(ready_.status)} (${esc(ready_.reason)}) ${esc(ready_.message)}</p>`
      : '',
    drifted ? `<p id=drifted>Drifted: ${esc(drifted.message)}</p>` : '',
    halted ? `<p id=halted class=w>Rollouts not healthy: ${esc(halted.message)}</p>` : '',
    `<p>Source: <code>${esc(src)}</code></p>`,
    `<p id=applied>Applied: <code>${esc(short(s.lastAppliedRevision) || 'none yet')}</code>${s.lastAppliedAt ? ` ${esc(age(s.lastAppliedAt, t))}` : ''}${s.lastAppliedSigner ? `, signed by ${esc(s.lastAppliedSigner)}` : ''}${s.lastAttemptedRevision && s.lastAttemptedRevision !== s.lastAppliedRevision ? ` · attempted <code>${esc(short(s.lastAttemptedRevision))}</code>` : ''}</p>`,
    `<p>Next pass: ${s.nextPassAt ? esc(age(s.nextPassAt, t)) : 'on the next trigger'} · last pass ${esc(age(s.lastPassAt, t) || 'not yet')} · ${s.passes} pass(es) · /readyz ${ready ? 'ready' : 'not ready'}</p>`,
  ];
  return `<section class="b ${h.state}" id=banner>${lines.filter(Boolean).join('')}</section>`;
}

function progress(s: AgentStatus, t: number): string {
  if (s.progress.length === 0) return '';
  const rows = s.progress
    .slice(0, PAGE_LIMITS.progress)
    .map((p) => `<tr><td><code>${esc(p.object)}</code><td>${esc(p.state)}<td>${esc(p.activity)}<td>${esc(age(p.since, t))}`);
  return `<h2>In progress</h2><table id=progress><tr><th>Object<th>State<th>Doing<th>Since${rows.join('')}</table>${more(s.progress.length, PAGE_LIMITS.progress)}`;
}

/** Why an object needs a human, or null. */
export function attentionOf(o: ObjectStatus): string | null {
  if (o.outcome === 'failed') return `failed: ${o.error ? `${o.error.code}: ${o.error.message}` : (o.reasons[0] ?? '')}`;
  // A suspended object is paused by its manifest's choice (spec.suspend), not blocked: said so, still listed.
  if (o.outcome === 'skipped' && o.reasons[0] === 'suspended') return 'suspended: spec.suspend is true, nothing is changed';
  if (o.outcome === 'skipped') return `blocked: ${o.reasons[0] ?? 'skipped'}`;
  if (o.drift && o.driftHandling !== 'healed')
    return `drifted${o.driftHandling ? ` (${o.driftHandling})` : ''}: ${o.reasons[0] ?? 'changed outside packsync'}`;
  return null;
}

/** The id of an object's first appearance on the page (anchors.ts): later ones get none, ids stay unique. */
function anchorOnce(used: Set<string>, key: string): string {
  const id = objectAnchor(key);
  if (used.has(id)) return '';
  used.add(id);
  return ` id="${esc(id)}"`;
}

/** One line of "needs attention": the object it anchors (when it names one) and its text. */
interface AttentionItem {
  key?: string;
  cls?: string;
  html: string;
}

function attention(s: AgentStatus, used: Set<string>): string {
  const items = attentionItems(s);
  // Only the lines shown take their object's id: one cut by the cap leaves it to a later appearance.
  const shown = items
    .slice(0, PAGE_LIMITS.attention)
    .map((i) => `<li${i.cls ? ` class=${i.cls}` : ''}${i.key === undefined ? '' : anchorOnce(used, i.key)}>${i.html}`);
  const body =
    items.length === 0
      ? '<p class=m>Nothing needs attention.</p>'
      : `<ul>${shown.join('')}</ul>${more(items.length, PAGE_LIMITS.attention)}`;
  return `<h2>Needs attention (${items.length})</h2><div id=attention>${body}</div>`;
}

function attentionItems(s: AgentStatus): AttentionItem[] {
  const items: AttentionItem[] = [];
  for (const p of s.problems)
    items.push({
      cls: p.severity === 'error' ? 'e' : 'w',
      html: `<code>${esc(`${p.file}:${p.line}:${p.column}`)}</code>: ${esc(p.message)}`,
    });
  for (const o of s.objects) {
    const why = attentionOf(o);
    if (why)
      items.push({
        key: o.key,
        html: `<code>${esc(o.key)}</code>${o.source ? ` <span class=m>${esc(`${o.source.file}:${o.source.line}:${o.source.column}`)}</span>` : ''}: ${esc(why)}`,
      });
  }
  for (const r of s.rollouts) {
    const what =
      r.status === 'Failed'
        ? `rollout failed at wave ${r.currentWave}/${r.waveCount}`
        : r.promotion?.held
          ? `held by its promotion gate at wave ${r.promotion.held.wave}: ${esc(r.promotion.held.reason)} (packsync resume releases it)`
          : r.orphaned
            ? `requires pruning: its manifest left git, yet it is ${esc(r.status)} at wave ${r.currentWave}/${r.waveCount}`
            : undefined;
    // A hold git asked for (spec.wave) is intended: shown on the board as suspended by git, not here.
    if (what) items.push({ key: r.deployment, html: `<code>${esc(r.deployment)}</code>: ${what}` });
  }
  // A rollout the service started, held by its flow's gate (Flow/NAME@VERSION): halted as a git one is.
  const board = new Set(s.rollouts.map((r) => r.deployment));
  for (const g of s.gates)
    if (g.held && !board.has(g.deployment))
      items.push({
        key: g.deployment,
        html: `<code>${esc(g.deployment)}</code>: held by its flow's promotion gate at wave ${g.held.wave}: ${esc(g.held.reason)} (packsync resume releases it)`,
      });
  // Anchored by the key its ExceptionExpired notification links to.
  for (const e of s.expiredExceptions ?? [])
    items.push({
      key: expiredExceptionKey(e),
      cls: 'w',
      html: `<code>Baseline/${esc(e.baseline)}</code> <span class=m>${esc(e.at)}</span>: ${esc(expiredExceptionText(e))}`,
    });
  return items;
}

/** Rollouts the service began by itself in owned flows: shown, never counted as git's (docs/reconcile.md). */
function serviceStarted(s: AgentStatus, used: Set<string>): string {
  const list = s.serviceStarted ?? [];
  if (list.length === 0) return '';
  // Each row carries the id of `Flow/NAME@VERSION`, the name its gate's events and commands use.
  const rows = list
    .slice(0, PAGE_LIMITS.rollouts)
    .map(
      (d) =>
        `<tr${anchorOnce(used, `${d.flow}@${d.version}`)}><td><code>${esc(d.flow)}</code><td>${esc(d.version)}<td>${esc(d.status)}<td>${esc(d.wave)}`,
    )
    .join('');
  return `<h2>Started by the service (${list.length})</h2><table id=service-started><tr><th>Flow<th>Version<th>Status<th>Wave${rows}</table>${more(list.length, PAGE_LIMITS.rollouts)}`;
}

function board(all: Rollout[], used: Set<string>): string {
  const running = all.filter((r) => r.status === 'Running');
  // Held and failing ones first: they are what someone opens the page for.
  const rank = (r: Rollout): number =>
    r.promotion?.held || r.orphaned ? 0 : (r.tenants ?? []).some((x) => x.status === 'Failed') ? 1 : r.gate?.verdict === 'holding' ? 2 : 3;
  const rows = [...running].sort((a, b) => rank(a) - rank(b) || a.deployment.localeCompare(b.deployment)).slice(0, PAGE_LIMITS.rollouts);
  const html = rows.map((r) => {
    const pct = r.waveCount > 0 ? Math.round((r.currentWave / r.waveCount) * 100) : 0;
    // A promotion gate's own verdict and soak (docs/manifests.md) win over the plain wave gate and delay.
    const p = r.promotion;
    // After a carried-out skip-wave the judgement is of the wave before the current one: say which, and that it was done.
    const gate = p
      ? p.carriedOut
        ? `wave ${p.wave} ${p.line.slice(p.line.lastIndexOf('→ ') + 2)}`
        : `${p.verdict}: soak ${Math.floor(p.soak.elapsedMs / 3_600_000)}h/${Math.round(p.soak.requiredMs / 3_600_000)}h`
      : [
          // A hold git asked for is intended (Argo CD's "Suspended"): said so, not as a failure.
          r.gate
            ? r.gate.verdict === 'holding'
              ? `Suspended by git at wave ${r.gate.wave} (spec.wave)`
              : `gate wave ${r.gate.wave}: ${r.gate.verdict}`
            : '',
          r.soakHours !== undefined ? `soak ${r.soakHours} h` : '',
        ]
          .filter(Boolean)
          .join(', ');
    const cells = (r.tenants ?? [])
      .map((x) => `<i class=${x.status} title="${esc(`${x.tenant} (wave ${x.wave}): ${x.status}`)}"></i>`)
      .join('');
    const app = r.orphaned ? `${esc(r.app)} <b class=e>requires pruning</b>` : esc(r.app);
    return `<tr${anchorOnce(used, r.deployment)}><td>${app}<td>${esc(r.version)}<td>${esc(r.flow)}<td>${r.currentWave}/${r.waveCount}<span class=bar><i style="width:${pct}%"></i></span><td>${esc(gate)}<td>${r.successRate !== undefined ? `${r.successRate}%` : ''}<td class=c>${cells}`;
  });
  const head = `<h2>Rollouts (${running.length} running of ${all.length})</h2>`;
  if (rows.length === 0) return `${head}<p class=m id=rollouts>No deployment is running.</p>`;
  return `${head}<table id=rollouts><tr><th>App<th>Version<th>Flow<th>Wave<th>Gate<th>Success<th>Tenants${html.join('')}</table>${more(running.length, PAGE_LIMITS.rollouts)}`;
}

function counts(s: AgentStatus): string {
  const byKind = new Map<string, Map<string, number>>();
  for (const o of s.objects) {
    const k = byKind.get(o.kind) ?? new Map<string, number>();
    k.set(o.outcome, (k.get(o.outcome) ?? 0) + 1);
    if (o.drift) k.set('drifted', (k.get('drifted') ?? 0) + 1);
    byKind.set(o.kind, k);
  }
  const rows = [...byKind].map(
    ([kind, m]) =>
      `<tr><td>${esc(kind)}<td>${[...m.values()].reduce((a, b) => a + b, 0) - (m.get('drifted') ?? 0)}<td>${[...m].map(([k, n]) => `${esc(k)} ${n}`).join(', ')}`,
  );
  const rollouts = new Map<string, number>();
  for (const r of s.rollouts) rollouts.set(r.status, (rollouts.get(r.status) ?? 0) + 1);
  if (rollouts.size > 0)
    rows.push(`<tr><td>Deployments live<td>${s.rollouts.length}<td>${[...rollouts].map(([k, n]) => `${esc(k)} ${n}`).join(', ')}`);
  return `<h2>Objects</h2><table id=counts><tr><th>Kind<th>Total<th>Last pass${rows.join('') || '<tr><td colspan=3 class=m>No pass has finished yet.'}</table>`;
}

/**
 * Recent events, newest first. A row whose object has no id higher up the page takes it, so a
 * notification's link (anchors.ts) finds the event's object at least on the event's own row (an
 * update run, a completed rollout no longer on the board, an object that recovered).
 */
function events(s: AgentStatus, t: number, used: Set<string>): string {
  const rows = s.events
    .slice(0, PAGE_LIMITS.events)
    .map(
      (e) =>
        `<tr class=${e.severity === 'error' ? 'e' : ''}${e.object && objectAnchor(e.object) !== 'banner' ? anchorOnce(used, e.object) : ''}><td>${esc(age(e.lastTimestamp, t))}<td>${esc(e.reason)}<td><code>${esc(e.object ?? '')}</code>${e.wave !== undefined ? ` wave ${e.wave}` : ''}<td>${esc(e.message)}<td>${e.count}<td><code>${esc(short(e.revision))}</code>`,
    );
  return `<h2>Recent events</h2><table id=events><tr><th>Last seen<th>Reason<th>Object<th>Message<th>Count<th>Revision${rows.join('') || '<tr><td colspan=6 class=m>None yet.'}</table>`;
}

function history(s: AgentStatus, t: number): string {
  const rows = s.history
    .slice(0, PAGE_LIMITS.history)
    .map(
      (h) =>
        `<tr class=${h.result === 'Succeeded' ? '' : 'e'}><td>${esc(age(h.startedAt, t))}<td>${esc(h.trigger)}<td>${esc(h.result)}<td>${h.writes}<td>${(h.durationMs / 1000).toFixed(1)} s<td><code>${esc(short(h.revision))}</code><td>${esc(h.message)}`,
    );
  return `<h2>Pass history</h2><table id=history><tr><th>Started<th>Trigger<th>Result<th>Writes<th>Took<th>Revision<th>Message${rows.join('')}</table><p class=m>${s.noOpPasses} pass(es) that changed nothing are counted, not listed.</p>`;
}

function more(n: number, limit: number): string {
  return n > limit ? `<p class=m>… and ${n - limit} more in <a href=/status>/status</a>.</p>` : '';
}
