/**
 * Releases held state locks when the process ends without reaching its own cleanup: `process.exit`
 * (a second Ctrl-C), or a SIGTERM/SIGINT/SIGHUP that no command handles (e.g. SIGTERM to `apply`).
 * Commands with their own handler (the agent's graceful stop, apply's first Ctrl-C) release through
 * their normal path, so this handler then stays out of the way. Signal listeners exist only while
 * a lock is held: a listener would otherwise cancel the signal's default (exit).
 */
import { handlersOf, onSignalFallback } from '../util/signal-fallbacks.js';

type Release = () => void | Promise<void>;

const releases = new Set<Release>();
const SIGNALS: [NodeJS.Signals, number][] = [
  ['SIGTERM', 143],
  ['SIGINT', 130],
  ['SIGHUP', 129],
];
const listeners = new Map<NodeJS.Signals, () => void>();

/** Whether a held lock will be released (and the process ended) by this module's signal listener. */
export function releasesPending(): boolean {
  return releases.size > 0;
}
let exitHooked = false;

export function onProcessEnd(release: Release): () => void {
  releases.add(release);
  if (!exitHooked) {
    exitHooked = true;
    // Only synchronous work runs at 'exit': a local lock is removed, a remote lease just expires.
    process.on('exit', () => {
      for (const r of releases) {
        try {
          void Promise.resolve(r()).catch(() => undefined);
        } catch {
          // best effort
        }
      }
    });
  }
  for (const [signal, code] of SIGNALS) {
    if (listeners.has(signal)) continue;
    const listener = (): void => {
      if (handlersOf(signal) > 0) return;
      const all = [...releases].map((r) =>
        Promise.resolve()
          .then(r)
          .catch(() => undefined),
      );
      const timeout = new Promise((resolve) => setTimeout(resolve, 5000).unref());
      void Promise.race([Promise.all(all), timeout]).finally(() => process.exit(code));
    };
    listeners.set(signal, listener);
    onSignalFallback(signal, listener);
  }
  return () => {
    releases.delete(release);
    if (releases.size > 0) return;
    for (const [signal, listener] of listeners) process.off(signal, listener);
    listeners.clear();
  };
}
