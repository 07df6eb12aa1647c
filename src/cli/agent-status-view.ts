/**
 * The terminal view of an agent's `/status` (`packsync status --agent URL`, docs/agent.md#terminal-view):
 * health, revision and signer, what needs attention, each rollout with its wave and per-tenant
 * success, the next pass and window. Like `flux get` / `argocd app get`: one screen, colour only on
 * a terminal. Reads the JSON tolerantly: an older agent's missing field is left out, never an error.
 */
import type { AgentStatus } from '../agent/http/status-types.js';
import type { Rollout } from '../agent/http/status-types.js';
import { expiredExceptionKey, expiredExceptionText } from '../agent/expired-exception.js';

type Paint = (code: string, s: string) => string;

export function statusView(raw: AgentStatus, color: boolean, now: Date = new Date()): string {
  const s = printable(raw) as AgentStatus;
  const paint: Paint = (code, text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const out: string[] = [];
  const cond = (t: string): AgentStatus['conditions'][number] | undefined => s.conditions?.find((c) => c.type === t);
  const ready = cond('Ready');
  const stalled = cond('Stalled');
  const health =
    stalled?.status === 'True'
      ? paint('31;1', 'Stalled')
      : ready?.status === 'True'
        ? paint('32;1', 'Ready')
        : cond('Reconciling')?.status === 'True'
          ? paint('33;1', 'Reconciling')
          : paint('33;1', 'Not ready');
  const why = (stalled?.status === 'True' ? stalled : ready)?.message;
  out.push(`${health}${why ? `  ${why}` : ''}`);
  const src = s.source ?? {};
  out.push(`Source    ${[src.source, src.ref ? `@${src.ref}` : '', src.path ? ` (${src.path})` : ''].join('')}`);
  out.push(`Revision  ${s.lastAppliedRevision ?? '(none applied)'}${s.lastAppliedAt ? `  applied ${ago(s.lastAppliedAt, now)}` : ''}`);
  if (s.lastAppliedSigner) out.push(`Signer    ${s.lastAppliedSigner}`);
  if (s.nextPassAt) out.push(`Next pass ${s.nextPassAt} (${ago(s.nextPassAt, now)})`);
  const attention = needsAttention(s);
  out.push('', paint('1', `Needs attention (${attention.length})`));
  out.push(...(attention.length > 0 ? attention.map((l) => `  ${paint('31', '!')} ${l}`) : ['  nothing']));
  const rollouts = s.rollouts ?? [];
  out.push('', paint('1', `Rollouts (${rollouts.length})`));
  if (rollouts.length === 0) out.push('  none');
  for (const r of rollouts) out.push(...rolloutLines(r, paint));
  const started = s.serviceStarted ?? [];
  if (started.length > 0) {
    out.push('', paint('1', `Started by the service (${started.length})`));
    for (const d of started) out.push(`  ${d.flow}@${d.version}  ${d.status}, wave ${d.wave}`);
  }
  return out.join('\n');
}

function needsAttention(s: AgentStatus): string[] {
  const lines: string[] = [];
  for (const p of s.problems ?? []) lines.push(`${p.file}:${p.line}:${p.column}: ${p.message}`);
  for (const o of s.objects ?? []) {
    if (o.outcome === 'failed' || o.error) {
      const at = o.source ? ` (${o.source.file}:${o.source.line}:${o.source.column})` : '';
      lines.push(`${o.key} failed${at}: ${o.error ? `${o.error.code}: ${o.error.message}` : o.outcome}`);
    } else if (o.drift && o.driftHandling !== 'healed') lines.push(`${o.key} drifted (${o.driftHandling ?? 'reported'})`);
  }
  for (const g of s.gates ?? []) if (g.held) lines.push(`${g.deployment} held at wave ${g.held.wave}: ${g.held.reason}`);
  // What the status page lists too: a failed rollout, one whose manifest left git, an expired exception.
  for (const r of s.rollouts ?? []) {
    if (r.status === 'Failed') lines.push(`${r.deployment} rollout failed at wave ${r.currentWave}/${r.waveCount}`);
    else if (r.orphaned) lines.push(`${r.deployment} requires pruning: its manifest left git, yet it is ${r.status}`);
  }
  for (const e of s.expiredExceptions ?? []) lines.push(`${expiredExceptionKey(e)} (${e.at}): ${expiredExceptionText(e)}`);
  for (const c of s.conditions ?? [])
    if ((['SourceVerified', 'RolloutsHealthy'].includes(c.type) && c.status === 'False') || (c.type === 'Stalled' && c.status === 'True'))
      lines.push(`${c.type}: ${c.message}`);
  const ready = s.conditions?.find((c) => c.type === 'Ready');
  if (lines.length === 0 && ready?.status === 'False' && ready.reason !== 'Progressing') lines.push(`Ready: ${ready.message}`);
  return lines;
}

const TENANT_MARK: Record<string, [string, string]> = {
  Completed: ['✓', '32'],
  InProgress: ['…', '33'],
  Pending: ['·', '2'],
  Failed: ['✗', '31'],
  Skipped: ['-', '2'],
};

function rolloutLines(r: Rollout, paint: Paint): string[] {
  // Clamped to the bar: a wave below 0 made a negative repeat count (a RangeError, not a view).
  const filled = r.waveCount > 0 ? Math.max(0, Math.min(10, Math.round((Math.min(r.currentWave, r.waveCount) / r.waveCount) * 10))) : 0;
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(10 - filled)}]`;
  const rate = r.successRate !== undefined ? `  success ${r.successRate} %` : '';
  const verdict = r.promotion ? `  gate ${r.promotion.verdict}` : r.gate ? `  gate wave ${r.gate.wave} ${r.gate.verdict}` : '';
  const windowText = nextWindow(r);
  const lines = [
    `  ${r.app} ${r.version}  ${paint('2', r.flow)}  ${r.status}  wave ${r.currentWave}/${r.waveCount} ${bar}${rate}${verdict}${windowText}`,
  ];
  const tenants = (r.tenants ?? []).map((t) => {
    const [mark, code] = TENANT_MARK[t.status] ?? ['?', '0'];
    const counts = t.installed !== undefined ? ` ${t.installed}/${(t.installed ?? 0) + (t.failed ?? 0)}` : '';
    return `${paint(code, mark)} ${t.tenant} (w${t.wave}${counts})`;
  });
  if (tenants.length > 0) lines.push(`    ${tenants.join('  ')}`);
  return lines;
}

function ago(iso: string, now: Date): string {
  const ms = now.getTime() - Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const abs = Math.abs(ms);
  const text =
    abs < 60_000
      ? `${Math.round(abs / 1000)} s`
      : abs < 3_600_000
        ? `${Math.round(abs / 60_000)} min`
        : abs < 172_800_000
          ? `${Math.round(abs / 3_600_000)} h`
          : `${Math.round(abs / 86_400_000)} d`;
  return ms >= 0 ? `${text} ago` : `in ${text}`;
}

/**
 * The rollout's change window when the agent reports one (`window` of docs/policy.md: open, or what
 * waits and until when); an agent without windows sends none and nothing is printed.
 */
function nextWindow(r: Rollout): string {
  const w = (r as Rollout & { window?: { open?: boolean; until?: string | null; reason?: string } }).window;
  if (!w || w.open !== false) return '';
  return `  ${w.reason ?? 'waits for its window'}${w.until ? ` (opens ${w.until})` : ''}`;
}

/**
 * Control characters in what the agent sent (a message quoting a file, a name) are shown as `?`:
 * an escape sequence from a manifest must not drive the operator's terminal.
 */
function printable(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?');
  if (Array.isArray(v)) return v.map(printable);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, printable(x)]));
  return v;
}
