/**
 * Polling for the service's background work (package processing, tenant upload tasks): waiting is
 * its own failure class, so a slow package becomes a timeout with a clear message, not a hang.
 * A wait can also be *deferred* (docs/reconcile.md, "a pass never blocks for long on waiting work"): after
 * a budget, or at once when the caller signals that newer work arrived, it ends with
 * `WAIT_DEFERRED` and the object is left to a later pass, which finds it still processing live.
 */
import type { PacksyncApi } from '../api/operations.js';
import { ApplyError } from './errors.js';

export interface WaitOptions {
  timeoutMs: number;
  /** First poll delay; grows by half each time up to `maxIntervalMs`. */
  intervalMs: number;
  maxIntervalMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  clock: () => number;
  /**
   * How long one wait may hold its pass before the object is left to a later pass; `Infinity`
   * (the CLI, where a person is watching) waits until done or `timeoutMs`; 0 looks once.
   */
  deferAfterMs: number;
  /** Aborted when newer work is queued (a push, a manual trigger): every wait defers at its next look. */
  deferSignal?: AbortSignal;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ApplyError('ABORTED', 'aborted'));
      return;
    }
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(new ApplyError('ABORTED', 'aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const DEFAULT_WAIT: WaitOptions = {
  timeoutMs: 15 * 60_000,
  intervalMs: 200,
  maxIntervalMs: 5_000,
  sleep,
  clock: () => Date.now(),
  deferAfterMs: Infinity,
};

/** What one wait looks at: how to read it, when it is done (or failed), its state's label, its name. */
interface Probe<T> {
  read: () => Promise<T>;
  done: (v: T) => boolean | Error;
  label: (v: T) => string;
  what: string;
}

async function poll<T>(
  probe: Probe<T>,
  w: WaitOptions,
  tick: (state: string, elapsedMs: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  const { read, done, label, what } = probe;
  const start = w.clock();
  let interval = w.intervalMs;
  for (;;) {
    const v = await read();
    const r = done(v);
    if (r instanceof Error) throw r;
    if (r) return;
    const elapsed = w.clock() - start;
    tick(label(v), elapsed);
    if (elapsed >= w.timeoutMs) {
      throw new ApplyError('WAIT_TIMEOUT', `${what} still ${label(v)} after ${Math.round(elapsed / 1000)} s`);
    }
    // No elapsed time in the message: an unchanged wait must read the same on every pass.
    if (elapsed >= w.deferAfterMs || w.deferSignal?.aborted)
      throw new ApplyError('WAIT_DEFERRED', `${what} is still ${label(v)}; a later pass continues`);
    // The last look lands on the budget's end, so a wait never holds its pass longer than asked.
    await sleepUnlessDeferred(w, Math.max(0, Math.min(interval, w.deferAfterMs - elapsed)), signal);
    interval = Math.min(w.maxIntervalMs, Math.round(interval * 1.5));
  }
}

/**
 * Sleeps until the next look, or less when the defer signal fires (then the caller takes one last
 * look and defers). A hard abort still rejects. Listeners are removed each time: the defer signal
 * lives for a whole pass and must not collect one listener per poll.
 */
async function sleepUnlessDeferred(w: WaitOptions, ms: number, signal?: AbortSignal): Promise<void> {
  const defer = w.deferSignal;
  if (!defer) return w.sleep(ms, signal);
  if (defer.aborted) return;
  const wake = new AbortController();
  const onAbort = (): void => wake.abort();
  defer.addEventListener('abort', onAbort, { once: true });
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await w.sleep(ms, wake.signal);
  } catch (e) {
    if (signal?.aborted || !defer.aborted) throw e;
  } finally {
    defer.removeEventListener('abort', onAbort);
    signal?.removeEventListener('abort', onAbort);
  }
}

export function waitForPackage(
  api: PacksyncApi,
  id: string,
  w: WaitOptions,
  tick: (state: string, elapsedMs: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  const probe: Probe<Awaited<ReturnType<PacksyncApi['getPackage']>>> = {
    read: () => api.getPackage(id, signal ? { signal } : {}),
    done: (p) =>
      p.state === 'Completed' ||
      (p.state === 'Error'
        ? new ApplyError('PACKAGE_FAILED', `package ${id} failed processing: ${p.errorDetails ?? 'no details'}`)
        : false),
    label: (p) => p.state,
    what: `package ${id}`,
  };
  return poll(probe, w, tick, signal);
}

export function waitForUpload(
  api: PacksyncApi,
  taskId: string,
  w: WaitOptions,
  tick: (state: string, elapsedMs: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  const probe: Probe<Awaited<ReturnType<PacksyncApi['getUploadTask']>>> = {
    read: () => api.getUploadTask(taskId, signal ? { signal } : {}),
    done: (t) =>
      t.state === 'Completed' ||
      (t.state === 'Error' || t.state === 'Canceled'
        ? // No task id in the text: each retry makes a new task, and an unchanged failure must read the same (design §4a).
          new ApplyError('UPLOAD_FAILED', `the upload task ended ${t.state}: ${t.errorDetails ?? 'no details'}`)
        : false),
    label: (t) => t.state,
    what: `upload task ${taskId}`,
  };
  return poll(probe, w, tick, signal);
}
