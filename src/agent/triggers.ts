/**
 * Triggers: a cron schedule (node-cron), an interval with jitter, and a debounced chokidar watch of
 * a directory source. Each only calls `fire(reason)`; the loop decides what a trigger means.
 */
import { watch } from 'chokidar';
import { schedule, validate } from 'node-cron';
import type { RequestQueue } from '../state/request-queue.js';
import { PacksyncError } from '../util/errors.js';

export interface Trigger {
  stop: () => Promise<void>;
  /** When it fires next (ms since the epoch), for a trigger that fires on its own: the next pass on /status. */
  nextAt?: () => number | null;
}

export class TriggerError extends PacksyncError<'USAGE'> {
  constructor(message: string) {
    super('USAGE', message);
  }
}

/** Refuses a `--schedule` that is not a cron expression (also with `--once`, where it never fires). */
export function checkSchedule(expr: string): void {
  if (!validate(expr)) throw new TriggerError(`--schedule "${expr}" is not a valid cron expression (e.g. "*/5 * * * *")`);
}

export function scheduleTrigger(expr: string, fire: (reason: string) => void): Trigger {
  checkSchedule(expr);
  const task = schedule(expr, () => fire('schedule'), { noOverlap: true });
  return {
    stop: async () => {
      await task.destroy();
    },
    nextAt: () => task.getNextRun()?.getTime() ?? null,
  };
}

const MAX_TIMER_MS = 2_147_483_647;

/** `5m`, `30s`, `1h`, `1500ms` or a number of seconds; from 1s to 596h. */
export function parseDuration(s: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(s.trim());
  if (!m) throw new TriggerError(`${flag} "${s}" is not a duration (write 30s, 5m or 1h)`);
  const n = Number(m[1]);
  const ms = n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's'] ?? 1000);
  // Below a second a pass could not even start (--pass-timeout 0s aborted every pass at once); above
  // 2^31-1 ms Node's timers fire at once instead of late.
  if (ms < 1000) throw new TriggerError(`${flag} must be at least 1s`);
  if (ms > MAX_TIMER_MS) throw new TriggerError(`${flag} must be at most 596h (24 days)`);
  return ms;
}

/** Fires every `ms` with up to 10% jitter, so a fleet of agents does not hit the API in step. */
export function intervalTrigger(ms: number, fire: (reason: string) => void, random: () => number = Math.random): Trigger {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let dueAt: number | null = null;
  const next = (): void => {
    if (stopped) return;
    const delay = ms + Math.round(random() * ms * 0.1);
    dueAt = Date.now() + delay;
    timer = setTimeout(() => {
      fire('interval');
      next();
    }, delay);
  };
  next();
  return {
    stop: () => {
      stopped = true;
      dueAt = null;
      if (timer) clearTimeout(timer);
      return Promise.resolve();
    },
    nextAt: () => dueAt,
  };
}

/** Watches YAML and content changes below `dir`; a burst of events becomes one trigger. */
export async function watchTrigger(dir: string, fire: (reason: string) => void, debounceMs = 500): Promise<Trigger> {
  let timer: NodeJS.Timeout | null = null;
  const watcher = watch(dir, {
    ignoreInitial: true,
    // git-sync swaps a symlink; dot-folders (.git, .packsync) are never manifests.
    ignored: (p: string) => /(^|[\\/])\.(?!\.?$)[^\\/]*$/.test(p) && p !== dir,
    followSymlinks: true,
    awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 50 },
  });
  watcher.on('all', () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => fire('watch'), debounceMs);
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    stop: async () => {
      if (timer) clearTimeout(timer);
      await watcher.close();
    },
  };
}

/**
 * Fires when `promote` or `resume` queued a request for this agent (it holds the state lock), so the
 * waiting command gets its answer within one poll (`everyMs`) instead of at the next interval. Fires once
 * per new set of queued requests: a request that a pass cannot take (an invalid revision is never
 * planned) does not turn into a pass a second.
 */
export function requestTrigger(queue: Pick<RequestQueue, 'pending'>, fire: (reason: string) => void, everyMs = 1000): Trigger {
  let seen = '';
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void queue
      .pending()
      .then((ids) => {
        const now = ids.join(',');
        if (ids.length > 0 && now !== seen) fire('request');
        seen = now;
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, everyMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      return Promise.resolve();
    },
  };
}
