/** Wording shared by the report's HTML and markdown forms (docs/reports.md). */
import type { DriftRecord, HistoryGateEntry } from '../state/history.js';
import type { Report } from './report-model.js';

/** `2026-11-20 14:05 UTC`; `–` when unknown. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function periodText(r: Report): string {
  return `${when(r.period.from)} – ${when(r.period.to)}`;
}

/** `52.5 h (2.2 d)`; `–` when unknown. */
export function hours(h: number | null): string {
  if (h === null) return '–';
  return h >= 48 ? `${h} h (${(h / 24).toFixed(1)} d)` : `${h} h`;
}

export function gateText(g: HistoryGateEntry): string {
  const who = g.by === 'gate' ? 'gate' : 'by hand';
  switch (g.action) {
    case 'skip-wave':
      return `passed wave ${g.wave} (${who})`;
    case 'promote':
      return `promoted from wave ${g.wave} (${who})`;
    case 'hold':
      return `held at wave ${g.wave} (${who})`;
    case 'stop':
      return `stopped at wave ${g.wave} (${who})`;
    case 'resume':
      return `resumed at wave ${g.wave} (${who})`;
    case 'ignore-windows':
      return `moved outside its change window at wave ${g.wave} (break glass: ${g.reason})`;
  }
}

/** Drift of objects no tenant's rollouts name (a package, a flow without a rollout in the period): shown once, for all tenants. */
export function sharedDrift(r: Report): DriftRecord[] {
  const shown = new Set(r.tenants.flatMap((t) => t.drift));
  return r.drift.filter((d) => !shown.has(d));
}

/** A rollout in the gate tables: app, version and its flow (one per ring, so rings are told apart). */
export function rolloutLabel(r: { app: string; version: string; flow: string }): string {
  return `${r.app} ${r.version} (${r.flow})`;
}

/** The rollout table's columns, the same in the HTML and the markdown report. */
export const ROLLOUT_COLUMNS: readonly string[] = [
  'App',
  'Version',
  'Flow',
  'Released',
  'Started',
  'Waves reached',
  'This tenant',
  'Completed',
  'Latency',
  'Installed',
  'Failed',
  'Pending',
];
