/** The report as markdown (docs/reports.md#markdown): for a ticket, a wiki page or a monthly mail. */
import { markdownText } from '../plan/render/markdown.js';
import type { ReportException } from './report-model.js';
import type { DriftRecord } from '../state/history.js';
import type { Report, ReportTenant } from './report-model.js';
import { gateText, hours, periodText, ROLLOUT_COLUMNS, rolloutLabel, sharedDrift, when } from './report-text.js';

/**
 * Every value of a cell or heading (an app name, a tenant, a reason, an owner: from manifests, the
 * API or people) is prose, escaped as the plan's markdown escapes it: HTML, links, emphasis and
 * @mentions show as text (a resume reason of `<img src=…>` was markup in a ticket), and a pipe or a
 * line break cannot end the table row.
 */
function cell(v: unknown): string {
  return markdownText(String(v).replace(/[\r\n]+/g, ' '));
}

function row(values: readonly unknown[]): string {
  return `| ${values.map(cell).join(' | ')} |`;
}

function table(head: readonly string[], rows: unknown[][]): string[] {
  return [row(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(row)];
}

export function renderReportMarkdown(r: Report): string {
  const t = r.totals;
  const out = [
    `# Patch report ${periodText(r)}`,
    '',
    `Generated ${when(r.generatedAt)}. ${r.tenants.length} tenant(s), ${t.rollouts} rollout(s), ${t.completed} completed, ` +
      `${t.installed} installed, ${t.failed} failed, ${t.holds} hold(s), ${t.radarApps} unmanaged app(s).`,
    '',
  ];
  if (r.missingTenants.length > 0)
    out.push(
      `> **Radar could not be read for:** ${r.missingTenants.map((m) => `${cell(m.tenant)} (${cell(m.error)})`).join('; ')}. Their unmanaged apps are missing.`,
      '',
    );
  if (r.missingFlows.length > 0)
    out.push(
      `> **Flows could not be read:** ${r.missingFlows.map((m) => `${cell(m.flow)} (${cell(m.error)})`).join('; ')}. ` +
        `Their rollouts' status is Unknown, and a rollout of theirs the history never recorded is missing.`,
      '',
    );
  if (r.missingReads.length > 0)
    out.push(
      `> **Could not be read:** ${r.missingReads.map((m) => `${cell(m.what)} (${cell(m.error)})`).join('; ')}. ` +
        `Recorded counts (or none) and no release time are shown for them.`,
      '',
    );
  if (r.empty) out.push('_Nothing was rolled out and no drift was found in this period._', '');
  const shared = sharedDrift(r);
  if (shared.length > 0)
    out.push('## Drift of shared objects', '', ...table(['When', 'Object', 'Found', 'Done'], shared.map(driftRow)), '');
  if (r.exceptions && r.exceptions.length > 0)
    out.push(
      '## Baseline exceptions',
      '',
      ...table(['Baseline', 'App', 'Ring', 'Action', 'Owner', 'Reason', 'Expires', 'State'], r.exceptions.map(exceptionRow)),
      '',
    );
  for (const tenant of r.tenants) out.push(...tenantLines(tenant));
  return `${out.join('\n').trimEnd()}\n`;
}

function tenantLines(t: ReportTenant): string[] {
  const s = t.summary;
  const out = [
    `## ${cell(t.name)} (${cell(t.domain)})`,
    '',
    `${s.rollouts} rollout(s), ${s.completed} completed; ${s.installed} installed, ${s.failed} failed; ${s.holds} hold(s); median patch latency ${hours(s.medianLatencyHours)}.`,
    '',
  ];
  if (t.rollouts.length === 0) out.push('No rollout reached this tenant in the period.', '');
  else {
    out.push(
      ...table(
        ROLLOUT_COLUMNS,
        t.rollouts.map((r) => [
          r.app,
          r.version,
          r.flow,
          when(r.releasedAt),
          when(r.startedAt),
          r.waves.map((w) => `${w.wave}/${r.waveCount} ${when(w.reachedAt)}`).join('; ') || '–',
          `wave ${r.tenantWave}${r.tenantReachedAt ? ` ${when(r.tenantReachedAt)}` : ' (not reached)'}`,
          r.completedAt ? when(r.completedAt) : r.stoppedAt ? `stopped ${when(r.stoppedAt)}` : (r.status ?? '–'),
          hours(r.patchLatencyHours),
          r.installs?.installed ?? '–',
          r.installs?.failed ?? '–',
          r.installs?.pending ?? '–',
        ]),
      ),
      '',
    );
    const gates = t.rollouts.flatMap((r) => r.gates.map((g) => [rolloutLabel(r), when(g.at), gateText(g), g.reason]));
    if (gates.length > 0) out.push('### Gate verdicts and holds', '', ...table(['Rollout', 'When', 'Verdict', 'Reason'], gates), '');
  }
  if (t.drift.length > 0) out.push('### Drift', '', ...table(['When', 'Object', 'Found', 'Done'], t.drift.map(driftRow)), '');
  out.push('### Unmanaged apps found by radar', '');
  if (t.radar.length === 0) out.push('None.', '');
  else
    out.push(
      ...table(
        ['App', 'Publisher', 'Devices', 'Versions', 'Catalog match'],
        t.radar.map((a) => [
          a.name,
          a.publisher,
          a.deviceCount,
          a.versions.map((v) => `${v.version} (${v.deviceCount})`).join(', '),
          a.catalog ? `${a.catalog.name} ${a.catalog.latestVersion}` : 'none',
        ]),
      ),
      '',
    );
  return out;
}

function exceptionRow(e: ReportException): unknown[] {
  return [
    e.baseline,
    e.app,
    e.ring ?? 'all',
    e.action,
    e.owner,
    e.reason,
    e.expires ?? 'never',
    e.state === 'expired' ? 'expired: the baseline applies again' : 'in force',
  ];
}

function driftRow(d: DriftRecord): unknown[] {
  return [when(d.at), d.key, d.what, d.action === 'healed' ? 'healed' : 'reported only'];
}
