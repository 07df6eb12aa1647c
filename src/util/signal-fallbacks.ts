/**
 * Signal listeners that act only when nothing else answers a signal: the CLI's Ctrl-C line for a
 * command without its own handler (cli/io.ts) and the release of held state locks
 * (state/release-on-exit.ts). A command's own handler (apply's first Ctrl-C, the agent's graceful
 * stop, the simulator's close) makes both stand aside; `handlersOf` counts only such handlers.
 */
const fallbacks = new WeakSet<(...args: never[]) => unknown>();

/** Registers `listener` for `signal` as a fallback; returns its removal. */
export function onSignalFallback(signal: NodeJS.Signals, listener: () => void): () => void {
  fallbacks.add(listener);
  process.on(signal, listener);
  return () => process.off(signal, listener);
}

/** Listeners of `signal` that answer it themselves (fallbacks not counted). */
export function handlersOf(signal: NodeJS.Signals): number {
  return process.listeners(signal).filter((l) => !fallbacks.has(l as () => void)).length;
}
