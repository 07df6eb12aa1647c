/**
 * Polling for the service's background work (package processing, tenant upload tasks): waiting is
 * its own failure class, so a slow package becomes a timeout with a clear message, not a hang.
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
};

async function poll<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean | Error,
  label: (v: T) => string,
  what: string,
  w: WaitOptions,
  tick: (state: string, elapsedMs: number) => void,
  signal?: AbortSignal,
): Promise<void> {
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
    await w.sleep(interval, signal);
    interval = Math.min(w.maxIntervalMs, Math.round(interval * 1.5));
  }
}

export function waitForPackage(
  api: PacksyncApi,
  id: string,
  w: WaitOptions,
  tick: (state: string, elapsedMs: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  return poll(
    () => api.getPackage(id, signal ? { signal } : {}),
    (p) =>
      p.state === 'Completed' ||
      (p.state === 'Error' ? new ApplyError('PACKAGE_FAILED', `package ${id} failed processing: ${p.errorDetails ?? 'no details'}`) : false),
    (p) => p.state,
    `package ${id}`,
    w,
    tick,
    signal,
  );
}

export function waitForUpload(
  api: PacksyncApi,
  taskId: string,
  w: WaitOptions,
  tick: (state: string, elapsedMs: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  return poll(
    () => api.getUploadTask(taskId, signal ? { signal } : {}),
    (t) =>
      t.state === 'Completed' ||
      (t.state === 'Error' || t.state === 'Canceled'
        ? new ApplyError('UPLOAD_FAILED', `upload task ${taskId} ended ${t.state}: ${t.errorDetails ?? 'no details'}`)
        : false),
    (t) => t.state,
    `upload task ${taskId}`,
    w,
    tick,
    signal,
  );
}
