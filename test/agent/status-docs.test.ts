/**
 * docs/agent.md documents the `/status` gate fields the agent serves and the gate events it raises
 * (black-box review: it documented only the `spec.wave` fields of `rollouts` and said `GateFailed`
 * was never emitted, against docs/promotion.md and the code).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { severityOf } from '../../src/agent/events.js';
import type { EventReason } from '../../src/agent/events.js';
import { rolloutStatus } from '../../src/agent/gate-tracker.js';
import type { GateReport } from '../../src/plan/gates/promotion.js';

const DOC = join(import.meta.dirname, '..', '..', 'docs', 'agent.md');

/** Every field of a gate report with all its optional parts. */
const REPORT: GateReport = {
  key: 'Deployment/zip',
  deploymentId: 'd1',
  wave: 2,
  waveCount: 3,
  verdict: 'Fail',
  held: { at: '2026-11-22T10:00:00.000Z', deploymentId: 'd1', wave: 2, reason: 'r', stopped: true },
  action: 'none',
  soakMs: 1,
  soakElapsedMs: 1,
  since: '2026-11-22T09:00:00.000Z',
  at: '2026-11-22T12:00:00.000Z',
  devices: 1,
  successRate: 1,
  tenants: [{ tenantId: 't', name: 'Contoso', installed: 1, failed: 0, reports: 1, successRate: 1, verdict: 'Pass', why: 'x' }],
  reason: 'r',
  line: 'l',
  nextCheckAt: '2026-11-23T00:00:00.000Z',
  lastCommand: { at: '2026-11-22T11:00:00.000Z', action: 'resume', wave: 2, by: 'command', reason: 'r', request: 'q' },
};

function keysOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(keysOf);
  if (v === null || typeof v !== 'object') return [];
  return Object.entries(v).flatMap(([k, x]) => [k, ...keysOf(x)]);
}

describe('docs/agent.md and the promotion gates', () => {
  it('the /status table documents every field of a gates entry and the promotion object on rollouts', async () => {
    const doc = await readFile(DOC, 'utf8');
    const row = (field: string): string => doc.split('\n').find((l) => l.startsWith(`| \`${field}\` |`)) ?? '';
    const gates = row('gates');
    const missing = [...new Set(keysOf(rolloutStatus(REPORT)))].filter((k) => !gates.includes(`\`${k}\``) && !gates.includes(`\`${k}[]\``));
    expect(missing).toEqual([]);
    expect(row('rollouts')).toContain('`promotion`');
  });

  it('the events section says the agent raises GateFailed and GateHeld for promotion gates, with the severity the code gives them', async () => {
    const doc = await readFile(DOC, 'utf8');
    const events = doc.slice(doc.indexOf('## Events'), doc.indexOf('## Notifications'));
    expect(events).not.toMatch(/does not emit/);
    const rows = [...events.matchAll(/^\| `(\w+)` \| `(\w+)` \|/gm)].map((m) => [m[1]!, m[2]!] as const);
    expect(rows.map(([reason]) => reason)).toEqual(expect.arrayContaining(['GateFailed', 'GateHeld']));
    for (const [reason, severity] of rows) expect(severityOf(reason as EventReason), reason).toBe(severity);
  });
});
