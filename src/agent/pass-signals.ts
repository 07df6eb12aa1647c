/**
 * The abort signals of one pass: `hard` cancels calls in flight (shutdown grace over, or the pass
 * timed out), `soft` asks the applier to start nothing new (a stop request, or the timeout).
 * Linked by hand to the loop's long-lived controllers: `AbortSignal.any()` over signals that live
 * as long as the loop is retained by Node 20 for as long as those live (nodejs/node#55351), a leak
 * per pass.
 */
import { setMaxListeners } from 'node:events';
export interface PassSignals {
  hard: AbortSignal;
  soft: AbortSignal;
  /** Unlinks from the loop's signals and clears the timeout; call once the pass is over. */
  dispose: () => void;
}

export function passSignals(loop: { hard: AbortSignal; stop: AbortSignal }, timeoutMs: number): PassSignals {
  const hard = new AbortController();
  const soft = new AbortController();
  // Each signal is shared by every action of the pass in flight and their requests: not a leak.
  setMaxListeners(0, hard.signal, soft.signal);
  const onHard = (): void => hard.abort();
  const onStop = (): void => soft.abort();
  loop.hard.addEventListener('abort', onHard, { once: true });
  loop.stop.addEventListener('abort', onStop, { once: true });
  const timer = setTimeout(() => {
    soft.abort();
    hard.abort();
  }, timeoutMs);
  return {
    hard: hard.signal,
    soft: soft.signal,
    dispose: () => {
      clearTimeout(timer);
      loop.hard.removeEventListener('abort', onHard);
      loop.stop.removeEventListener('abort', onStop);
    },
  };
}
