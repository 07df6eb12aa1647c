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
  const r = new ProgressRenderer(out, tty, write, heartbeatMs);
  return (e) => r.render(e);
}

interface Waiting {
  what: string;
  elapsedMs: number;
  at: number;
  printed: number;
}

class ProgressRenderer {
  /** Without a terminal: what each waiting object waits for, and when a line last said so. */
  private readonly waiting = new Map<string, Waiting>();
  private beat: NodeJS.Timeout | null = null;
  private readonly uploadStart = new Map<string, number>();
  private statusShown = false;
  private lastPlainUploadLog = 0;

  constructor(
    private readonly out: (s: string) => void,
    private readonly tty: boolean,
    private readonly write: (s: string) => void,
    private readonly heartbeatMs: number,
  ) {}

  render(e: ApplyEvent): void {
    if (!this.tty && (e.type === 'action-done' || e.type === 'action-failed' || e.type === 'action-skipped')) this.settle(e.key);
    switch (e.type) {
      // Bookkeeping (state records, a gate's verdict kept in the state) writes nothing to the service:
      // no line, so an unchanged deployment never looks acted on (regression: "✓ Deployment/x: ready").
      case 'action-start':
        if (e.op !== OP.record && e.op !== OP.gate) this.status(`${e.key}: ${e.description} …`);
        return;
      case 'action-done':
        if (e.op === OP.record || e.op === OP.gate) return;
        if (!isWaitOp(e.op)) this.line(`  ✓ ${e.key}: ${e.description} (${(e.durationMs / 1000).toFixed(1)} s)`);
        else this.line(`  ✓ ${e.key}: ready (${(e.durationMs / 1000).toFixed(1)} s)`);
        return;
      case 'action-failed':
        this.line(`  ✗ ${e.key}: ${e.description} failed: ${e.code}: ${e.message}`);
        return;
      case 'action-skipped':
        this.line(`  - ${e.key}: ${e.description} skipped (${e.reason})`);
        return;
      case 'upload-progress':
        return this.upload(e);
      case 'wait':
        return this.wait(e);
      case 'object':
        return;
    }
  }

  private upload(e: Extract<ApplyEvent, { type: 'upload-progress' }>): void {
    const start = this.uploadStart.get(e.key) ?? Date.now();
    this.uploadStart.set(e.key, start);
    const secs = Math.max(0.001, (Date.now() - start) / 1000);
    const text = `${e.key}: uploading ${mib(e.bytesDone)} / ${mib(e.bytesTotal)} (${e.filesDone}/${e.filesTotal} files, ${mib(e.bytesDone / secs)}/s)`;
    if (this.tty) this.status(text);
    else if (e.bytesDone === e.bytesTotal || Date.now() - this.lastPlainUploadLog > 5000) {
      this.lastPlainUploadLog = Date.now();
      this.line(`    ${text}`);
    }
  }

  private wait(e: Extract<ApplyEvent, { type: 'wait' }>): void {
    if (this.tty) {
      this.status(`${e.key}: waiting, ${e.what} (${(e.elapsedMs / 1000).toFixed(0)} s)`);
      return;
    }
    const prev = this.waiting.get(e.key);
    const w = { what: e.what, elapsedMs: e.elapsedMs, at: Date.now(), printed: prev?.printed ?? 0 };
    this.waiting.set(e.key, w);
    // The first wait of an object, and a change of what it waits for, are said at once.
    if (!prev || prev.what !== e.what) {
      w.printed = Date.now();
      this.out(visible(waitLine(e.key, w), true));
    }
    this.beat ??= setInterval(() => this.heartbeat(), this.tickMs());
    this.beat.unref();
  }

  /**
   * The heartbeat looks often (a tenth of the bound) and speaks a tick early, so no silence exceeds
   * the bound whenever the last line came (regression: checked every half bound from a fixed start, a
   * line after a status change could be followed by 15 s of silence).
   */
  private tickMs(): number {
    return Math.max(10, Math.floor(this.heartbeatMs / 10));
  }

  private heartbeat(): void {
    const now = Date.now();
    for (const [key, w] of this.waiting) {
      if (now - w.printed < this.heartbeatMs - this.tickMs()) continue;
      w.printed = now;
      this.out(visible(waitLine(key, w), true));
    }
  }

  private settle(key: string): void {
    this.waiting.delete(key);
    if (this.waiting.size === 0 && this.beat) {
      clearInterval(this.beat);
      this.beat = null;
    }
  }

  private clearStatus(): void {
    if (this.tty && this.statusShown) {
      this.write('\r\x1b[2K');
      this.statusShown = false;
    }
  }

  private status(s: string): void {
    if (!this.tty) return;
    this.write(`\r\x1b[2K${visible(s, true).slice(0, (process.stdout.columns || 100) - 1)}`);
    this.statusShown = true;
  }

  /** Keys, descriptions and API messages may carry control characters: shown, never obeyed. */
  private line(s: string): void {
    this.clearStatus();
    this.out(visible(s, true));
  }
}

function waitLine(key: string, w: { what: string; elapsedMs: number; at: number }): string {
  return `    … ${key}: waiting, ${w.what} (${((w.elapsedMs + Date.now() - w.at) / 1000).toFixed(0)} s)`;
}
