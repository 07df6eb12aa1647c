/**
 * One notification sent from a command that has no agent behind it (`apply --ignore-windows
 * --notifications FILE`, docs/policy.md): every chat and webhook provider whose alerts match gets
 * it once. Commit-status providers are for passes, not single events, and are skipped. A failed
 * delivery is reported back, never thrown: the change was already made.
 */
import { severityOf } from '../events.js';
import type { EventInput } from '../events.js';
import { loadNotificationConfig } from './config.js';
import { COMMIT_STATUS_TYPES } from './providers/index.js';
import { alertMatches, deliver } from './notifier.js';
import { chatRequest, toNotification } from './payloads.js';

export async function notifyOnce(file: string, e: EventInput, now: Date = new Date()): Promise<string[]> {
  const config = await loadNotificationConfig(file);
  const severity = severityOf(e.reason);
  const event = { ...e, severity, count: 1, ...(e.object !== undefined ? { object: e.object } : {}) };
  const names = new Set(config.alerts.filter((a) => alertMatches(a, event)).map((a) => a.provider));
  const lines: string[] = [];
  for (const p of config.providers) {
    if (!names.has(p.name) || COMMIT_STATUS_TYPES.has(p.type)) continue;
    const r = await deliver(chatRequest(p, toNotification(event, now.toISOString())));
    lines.push(r.ok ? `notified ${p.name} (${p.type})` : `notification to ${p.name} (${p.type}) failed: ${r.error ?? `HTTP ${r.status}`}`);
  }
  return lines;
}
