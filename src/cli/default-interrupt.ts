/**
 * Ctrl-C for a command that does not answer it itself (`plan`, `export`, `run --once`, `report`, …):
 * one line on standard error saying what stopped and what the next run does, then exit 130, the one
 * code for an interruption (docs/errors.md). `apply`, the agent's loop and the simulator have their
 * own handlers and this stands aside; a held state lock is released first (state/release-on-exit.ts).
 */
import { releasesPending } from '../state/release-on-exit.js';
import { handlersOf, onSignalFallback } from '../util/signal-fallbacks.js';

/** Commands that change nothing: stopping them leaves nothing to resume. */
const READ_ONLY = new Set(['validate', 'render', 'plan', 'report', 'radar', 'status']);

/** The line for `packsync <argv…>` (argv without node and the script). */
export function interruptLine(argv: readonly string[]): string {
  const command = argv.find((a) => !a.startsWith('-')) ?? 'packsync';
  if (command === 'run') return 'Interrupted: the pass stopped; the next run resumes it from the state.';
  if (READ_ONLY.has(command))
    return `Interrupted: packsync ${command} stopped before it finished; it had changed nothing, so run it again.`;
  return `Interrupted: packsync ${command} stopped before it finished; run it again to finish (what it recorded is kept).`;
}

/**
 * Installs the fallbacks for SIGINT, SIGTERM (a cancelled CI job, `kill`) and SIGHUP (a closed
 * terminal); `say` writes the line. The other two say which signal it was and exit 143 or 129, as
 * their defaults would have, but not silently.
 */
export function installDefaultInterrupt(argv: readonly string[], say: (line: string) => void): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    onSignalFallback(signal, () => {
      if (handlersOf(signal) > 0) return;
      const line = interruptLine(argv);
      say(signal === 'SIGINT' ? line : line.replace(/^Interrupted/, `Stopped by ${signal}`));
      // With a lock held, its release ends the process with the signal's code once released.
      if (!releasesPending()) process.exit(code);
    });
  }
}
