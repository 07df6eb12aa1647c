/**
 * Renders apply events. On a TTY: one status line rewritten in place (upload bytes and rate, waits
 * with elapsed time) above a log of finished actions. Otherwise: plain lines, one per event that
 * matters, so CI logs stay readable, and while something waits a line at least every 10 s (a
 * heartbeat), so a CI log never sits silent for a minute and looks hung.
 */
import { visible } from '../util/visible.js';
import type { ApplyEvent } from '../apply/events.js';
import { isWaitOp, OP } from '../plan/ops.js';

/** Human byte counts: KiB under a MiB, so small uploads do not read "0.0 MiB". */
const mib = (n: number): string => (n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);

/** Longest silence without a terminal while something waits. */
export const PLAIN_HEARTBEAT_MS = 10_000;

export function createProgressRenderer(
  out: (s: string) => void,
  tty: boolean,
  write: (s: string) => void = out,
  heartbeatMs = PLAIN_HEARTBEAT_MS,
): (e: ApplyEvent) => void {
  // Without a terminal: what each waiting object waits for, and when a line last said so.
  const waiting = new Map<string, { what: string; elapsedMs: number; at: number; printed: number }>();
  let beat: NodeJS.Timeout | null = null;
  const waitLine = (key: string, w: { what: string; elapsedMs: number; at: number }): string =>
    `    … ${key}: waiting, ${w.what} (${((w.elapsedMs + Date.now() - w.at) / 1000).toFixed(0)} s)`;
  const heartbeat = (): void => {
    const now = Date.now();
    for (const [key, w] of waiting) {
      if (now - w.printed < heartbeatMs - 5) continue;
      w.printed = now;
      out(visible(waitLine(key, w), true));
    }
  };
  const settle = (key: string): void => {
    waiting.delete(key);
    if (waiting.size === 0 && beat) {
      clearInterval(beat);
      beat = null;
    }
  };
  const uploadStart = new Map<string, number>();
  let statusShown = false;
  const clearStatus = (): void => {
    if (tty && statusShown) {
      write('\r\x1b[2K');
      statusShown = false;
    }
  };
  const status = (s: string): void => {
    if (!tty) return;
    write(`\r\x1b[2K${visible(s, true).slice(0, (process.stdout.columns || 100) - 1)}`);
    statusShown = true;
  };
  // Keys, descriptions and API messages may carry control characters: shown, never obeyed.
  const line = (s: string): void => {
    clearStatus();
    out(visible(s, true));
  };
  let lastPlainUploadLog = 0;
  return (e) => {
    if (!tty && (e.type === 'action-done' || e.type === 'action-failed' || e.type === 'action-skipped')) settle(e.key);
    switch (e.type) {
      // Bookkeeping (state records, a gate's verdict kept in the state) writes nothing to the service:
      // no line, so an unchanged deployment never looks acted on (regression: "✓ Deployment/x: ready").
      case 'action-start':
        if (e.op !== OP.record && e.op !== OP.gate) status(`${e.key}: ${e.description} …`);
        return;
      case 'action-done':
        if (e.op === OP.record || e.op === OP.gate) return;
        if (!isWaitOp(e.op)) line(`  ✓ ${e.key}: ${e.description} (${(e.durationMs / 1000).toFixed(1)} s)`);
        else line(`  ✓ ${e.key}: ready (${(e.durationMs / 1000).toFixed(1)} s)`);
        return;
      case 'action-failed':
        line(`  ✗ ${e.key}: ${e.description} failed: ${e.code}: ${e.message}`);
        return;
      case 'action-skipped':
        line(`  - ${e.key}: ${e.description} skipped (${e.reason})`);
        return;
      case 'upload-progress': {
        const start = uploadStart.get(e.key) ?? Date.now();
        uploadStart.set(e.key, start);
        const secs = Math.max(0.001, (Date.now() - start) / 1000);
        const text = `${e.key}: uploading ${mib(e.bytesDone)} / ${mib(e.bytesTotal)} (${e.filesDone}/${e.filesTotal} files, ${mib(e.bytesDone / secs)}/s)`;
        if (tty) status(text);
        else if (e.bytesDone === e.bytesTotal || Date.now() - lastPlainUploadLog > 5000) {
          lastPlainUploadLog = Date.now();
          line(`    ${text}`);
        }
        return;
      }
      case 'wait':
        if (tty) {
          status(`${e.key}: waiting, ${e.what} (${(e.elapsedMs / 1000).toFixed(0)} s)`);
          return;
        }
        {
          const prev = waiting.get(e.key);
          const w = { what: e.what, elapsedMs: e.elapsedMs, at: Date.now(), printed: prev?.printed ?? 0 };
          waiting.set(e.key, w);
          // The first wait of an object, and a change of what it waits for, are said at once.
          if (!prev || prev.what !== e.what) {
            w.printed = Date.now();
            out(visible(waitLine(e.key, w), true));
          }
          beat ??= setInterval(heartbeat, Math.max(10, Math.floor(heartbeatMs / 2)));
          beat.unref();
        }
        return;
      case 'object':
        return;
    }
  };
}
