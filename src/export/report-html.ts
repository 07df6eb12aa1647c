/**
 * The report as one self-contained printable HTML page (docs/reports.md#html): no script, no
 * external asset (styles inline, no images, no fonts), every value escaped, print CSS that keeps a
 * tenant's tables together and starts each tenant on a new page.
 */
import type { ReportException } from './report-model.js';
import type { DriftRecord } from '../state/history.js';
import type { Report, ReportTenant, TenantRollout } from './report-model.js';
import { gateText, hours, periodText, ROLLOUT_COLUMNS, rolloutLabel, sharedDrift, when } from './report-text.js';
import { formatCount } from '../util/count-format.js';

export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;margin:24px auto;max-width:1100px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 6px;border-bottom:2px solid #1b1f24;padding-bottom:2px}
h3{font-size:15px;margin:16px 0 4px}.muted{color:#57606a}.empty{padding:12px;border:1px dashed #8c959f;margin:12px 0}
table{border-collapse:collapse;width:100%;margin:4px 0 8px;font-size:13px}th,td{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}.kpi{display:flex;gap:10px;flex-wrap:wrap;margin:8px 0}
.kpi div{border:1px solid #d0d7de;padding:6px 10px;min-width:110px}.kpi b{display:block;font-size:18px}
.bad{color:#a40e26;font-weight:600}.ok{color:#1a7f37}.warn{background:#fff8c5;border:1px solid #d4a72c;padding:8px;margin:8px 0}
@media print{body{margin:0;max-width:none;font-size:11px}section.tenant{break-before:page}table,tr{break-inside:avoid}a{color:inherit;text-decoration:none}}
@page{size:A4 landscape;margin:12mm}
`;

export function renderReportHtml(r: Report): string {
  const parts = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Patch report ${esc(periodText(r))}</title><style>${CSS}</style></head><body>`,
    `<h1>Patch report</h1><p class="muted">Period ${esc(periodText(r))} · generated ${esc(when(r.generatedAt))} · ${r.tenants.length} tenant(s)</p>`,
    kpis(r),
  ];
  if (r.missingTenants.length > 0)
    parts.push(
      `<div class="warn" id="missing-tenants"><b>Radar could not be read for ${r.missingTenants.length} tenant(s):</b> ${r.missingTenants
        .map((m) => `${esc(m.tenant)} (${esc(m.error)})`)
        .join('; ')}. Their unmanaged apps are missing from this report.</div>`,
    );
  if (r.missingFlows.length > 0)
    parts.push(
      `<div class="warn" id="missing-flows"><b>Flows could not be read:</b> ${r.missingFlows
        .map((m) => `${esc(m.flow)} (${esc(m.error)})`)
        .join('; ')}. Their rollouts' status is Unknown, and a rollout of theirs the history never recorded is missing.</div>`,
    );
  if (r.missingReads.length > 0)
    parts.push(
      `<div class="warn" id="missing-reads"><b>Could not be read:</b> ${r.missingReads
        .map((m) => `${esc(m.what)} (${esc(m.error)})`)
        .join('; ')}. Recorded counts (or none) and no release time are shown for them.</div>`,
    );
  if (r.empty) parts.push('<p class="empty" id="no-data">Nothing was rolled out and no drift was found in this period.</p>');
  const shared = sharedDrift(r);
  if (shared.length > 0)
    parts.push(`<section id="shared-drift">${driftTable(shared).replace('<h3>Drift</h3>', '<h3>Drift of shared objects</h3>')}</section>`);
  if (r.exceptions && r.exceptions.length > 0) parts.push(exceptionsSection(r.exceptions));
  for (const t of r.tenants) parts.push(tenantSection(t));
  parts.push('</body></html>\n');
  return parts.join('\n');
}

function kpis(r: Report): string {
  const t = r.totals;
  const rate = t.installed + t.failed > 0 ? `${((t.installed / (t.installed + t.failed)) * 100).toFixed(1)} %` : '–';
  const cells: [string, string][] = [
    ['Rollouts', String(t.rollouts)],
    ['Completed', String(t.completed)],
    ['Installed', formatCount(t.installed)],
    ['Failed', formatCount(t.failed)],
    ['Success', rate],
    ['Holds', String(t.holds)],
    ['Unmanaged apps', String(t.radarApps)],
  ];
  return `<div class="kpi">${cells.map(([k, v]) => `<div><b>${esc(v)}</b>${esc(k)}</div>`).join('')}</div>`;
}

function tenantSection(t: ReportTenant): string {
  const s = t.summary;
  const out = [
    `<section class="tenant" id="tenant-${esc(t.id)}"><h2>${esc(t.name)} <span class="muted">${esc(t.domain)}</span></h2>`,
    `<p>${s.rollouts} rollout(s), ${s.completed} completed · ${formatCount(s.installed)} installed, <span class="${s.failed > 0 ? 'bad' : 'ok'}">${formatCount(s.failed)} failed</span> · ${s.holds} hold(s) · median patch latency ${esc(hours(s.medianLatencyHours))}</p>`,
  ];
  out.push('<h3>Rollouts</h3>');
  if (t.rollouts.length === 0) out.push('<p class="muted">No rollout reached this tenant in the period.</p>');
  else out.push(rolloutTable(t.rollouts), gatesTable(t.rollouts));
  out.push(driftTable(t.drift));
  out.push('<h3>Unmanaged apps found by radar</h3>');
  if (t.radar.length === 0) out.push('<p class="muted">None.</p>');
  else
    out.push(
      table(
        ['App', 'Publisher', 'Devices', 'Versions', 'Catalog match'],
        t.radar.map((a) => [
          esc(a.name),
          esc(a.publisher),
          num(a.deviceCount),
          esc(a.versions.map((v) => `${v.version} (${v.deviceCount})`).join(', ')),
          a.catalog ? `${esc(a.catalog.name)} ${esc(a.catalog.latestVersion)}` : '<span class="muted">none</span>',
        ]),
        [2],
      ),
    );
  out.push('</section>');
  return out.join('\n');
}

function rolloutTable(rs: TenantRollout[]): string {
  return table(
    ROLLOUT_COLUMNS,
    rs.map((r) => [
      esc(r.app),
      esc(r.version),
      // The flow tells rings apart: one app and version rolls out in each ring's flow.
      esc(r.flow),
      esc(when(r.releasedAt)),
      esc(when(r.startedAt)),
      esc(r.waves.map((w) => `${w.wave}/${r.waveCount} ${when(w.reachedAt)}`).join('; ') || '–'),
      esc(`wave ${r.tenantWave}${r.tenantReachedAt ? ` · ${when(r.tenantReachedAt)}` : ' · not reached'}`),
      esc(r.completedAt ? when(r.completedAt) : r.stoppedAt ? `stopped ${when(r.stoppedAt)}` : (r.status ?? '–')),
      esc(hours(r.patchLatencyHours)),
      num(r.installs?.installed),
      r.installs && r.installs.failed > 0 ? `<span class="bad">${num(r.installs.failed)}</span>` : num(r.installs?.failed),
      num(r.installs?.pending),
    ]),
    [9, 10, 11],
  );
}

function gatesTable(rs: TenantRollout[]): string {
  const rows = rs.flatMap((r) => r.gates.map((g) => [esc(rolloutLabel(r)), esc(when(g.at)), esc(gateText(g)), esc(g.reason)]));
  if (rows.length === 0) return '<p class="muted">No gate verdicts or holds.</p>';
  return `<h3>Gate verdicts and holds</h3>${table(['Rollout', 'When', 'Verdict', 'Reason'], rows)}`;
}

/** Deviations from the standard a customer agreed to, with owner, reason and end; expired ones say the baseline applies again. */
function exceptionsSection(list: readonly ReportException[]): string {
  const rows = list.map((e) => [
    esc(e.baseline),
    esc(e.app),
    esc(e.ring ?? 'all'),
    esc(e.action),
    esc(e.owner),
    esc(e.reason),
    esc(e.expires ?? 'never'),
    e.state === 'expired' ? '<b>expired</b>: the baseline applies again' : 'in force',
  ]);
  return `<section id="exceptions"><h2>Baseline exceptions</h2>${table(['Baseline', 'App', 'Ring', 'Action', 'Owner', 'Reason', 'Expires', 'State'], rows)}</section>`;
}

function driftTable(ds: DriftRecord[]): string {
  if (ds.length === 0) return '<h3>Drift</h3><p class="muted">No drift found.</p>';
  return `<h3>Drift</h3>${table(
    ['When', 'Object', 'Found', 'Done'],
    ds.map((d) => [esc(when(d.at)), esc(d.key), esc(d.what), esc(d.action === 'healed' ? 'healed (set back to git)' : 'reported only')]),
  )}`;
}

function num(n: number | undefined): string {
  return n === undefined ? '–' : esc(formatCount(n));
}

function table(head: readonly string[], rows: string[][], numeric: number[] = []): string {
  const cell = (v: string, i: number): string => (numeric.includes(i) ? `<td class="n">${v}</td>` : `<td>${v}</td>`);
  return `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map(cell).join('')}</tr>`)
    .join('')}</tbody></table>`;
}
