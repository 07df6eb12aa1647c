import { PacksyncError } from '../util/errors.js';
import { knownSecrets, longestFirst, redactSecrets } from '../util/secrets.js';
import { connectionSecrets } from '../state/connection-secrets.js';

/** What a command may touch of the process; injected so commands run in-process in tests. */
export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  setExitCode: (code: number) => void;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Asks a question on the terminal and returns the answer (empty at end of input, Ctrl-D), or null
   * when the person pressed Ctrl-C; absent when standard input is not a terminal (CI, pipes), where
   * nothing can be approved interactively. `plain` (no colour, TERM=dumb): no terminal control codes.
   */
  prompt?: (question: string, opts?: { plain?: boolean }) => Promise<string | null>;
  /** Colour in human output: a terminal, unless NO_COLOR is set or TERM is dumb. */
  color?: boolean;
  /** Registers a Ctrl-C handler for the duration of a command; returns its release. */
  onInterrupt?: (handler: () => void) => () => void;
}

export function processIo(): CliIo {
  const line = (s: string): string => (s.endsWith('\n') ? s : `${s}\n`);
  const out = process.stdout.isTTY === true ? undefined : gatheredStdout();
  if (out) process.once('exit', out.flush);
  // No secret the process was given is ever shown, whatever text carried it (util/secrets.ts): the
  // ones it resolved for use, so the simulator and the demo, which print keys of their own, and help
  // are left alone; only values long enough never to be an ordinary word of the output.
  const fixed = connectionSecrets(process.env.AZURE_STORAGE_CONNECTION_STRING);
  // The list is made again only when the process learns a secret, not for each of an apply's many lines.
  let known: readonly string[] | undefined;
  let secrets: string[] = [];
  const shown = (s: string): string => {
    if (knownSecrets() !== known) {
      known = knownSecrets();
      secrets = longestFirst([...fixed, ...known].filter((x) => x.length >= OUTPUT_SECRET_MIN));
    }
    return line(redactSecrets(s, secrets));
  };
  const io: CliIo = {
    stdout: out ? (s) => out.write(shown(s)) : (s) => process.stdout.write(shown(s)),
    stderr: (s) => {
      // What stdout said before stays before it in a log that holds both.
      out?.flush();
      process.stderr.write(shown(s));
    },
    setExitCode: (code) => {
      process.exitCode = code;
    },
    isTTY: process.stdout.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
    color: process.stdout.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== 'dumb',
    onInterrupt: (handler) => {
      // The first Ctrl-C cancels in-flight work and lets the command say what it was; a second
      // one exits at once.
      const first = (): void => {
        // A plain prompt answers Ctrl-C itself (an interruption before anything ran).
        if (plainPromptOpen) return;
        process.off('SIGINT', first);
        process.once('SIGINT', () => process.exit(130));
        handler();
      };
      process.on('SIGINT', first);
      return () => process.off('SIGINT', first);
    },
  };
  if (process.stdin.isTTY)
    io.prompt = (question, opts) => {
      out?.flush();
      return askOnTerminal(question, opts);
    };
  return io;
}

/** The shortest secret the output net takes out of every line (a shorter one is still redacted from errors and API answers). */
const OUTPUT_SECRET_MIN = 8;

/** At most this much text waits for the end of the event loop's turn. */
const GATHER_MAX_CHARS = 64 * 1024;

/**
 * Standard output to a pipe or a file, gathered into one write per turn of the event loop: a write
 * to a pipe is a blocking system call in Node, and an apply of 21,000 actions wrote one line
 * each (~0.5 s of its CPU, docs/performance.md, fleet-cli). Written at the latest when the loop
 * comes round (setImmediate), before anything goes to stderr or a prompt, and when the process exits.
 * A terminal is written to directly (its status line is rewritten in place around these lines).
 */
export function gatheredStdout(write: (s: string) => void = (s) => void process.stdout.write(s)): {
  write: (s: string) => void;
  flush: () => void;
} {
  let parts: string[] = [];
  let chars = 0;
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (parts.length === 0) return;
    const text = parts.join('');
    parts = [];
    chars = 0;
    write(text);
  };
  return {
    write: (s) => {
      parts.push(s);
      chars += s.length;
      if (chars >= GATHER_MAX_CHARS) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

/** True while a plain prompt waits: Ctrl-C is then its answer, not the command's interruption. */
let plainPromptOpen = false;

async function askOnTerminal(question: string, opts: { plain?: boolean } = {}): Promise<string | null> {
  const { createInterface } = await import('node:readline');
  // Readline's terminal mode redraws the line with cursor codes (ESC[1G ESC[0J … ESC[18G) that a
  // dumb terminal or a log of the session shows as garbage. Plain, the terminal stays in its own
  // line mode: it echoes and edits the answer, and Ctrl-C arrives as a signal.
  const plain = opts.plain === true;
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: !plain });
  // In terminal mode the terminal is raw while readline reads, so Ctrl-C arrives as the interface's
  // SIGINT: either way it is an interruption (exit 130), not an abort error.
  return new Promise((resolve) => {
    let settled = false;
    const interrupted = (): void => {
      process.stdout.write('\n');
      done(null);
    };
    const done = (answer: string | null): void => {
      if (settled) return;
      settled = true;
      if (plain) {
        plainPromptOpen = false;
        process.off('SIGINT', interrupted);
      }
      rl.close();
      resolve(answer);
    };
    if (plain) {
      plainPromptOpen = true;
      process.on('SIGINT', interrupted);
    } else rl.on('SIGINT', interrupted);
    rl.on('close', () => done(''));
    rl.question(question, done);
  });
}

/** A usage error: names the flag or argument; exits 1 like every other error (docs/reconcile.md). */
export class UsageError extends PacksyncError<'USAGE'> {
  constructor(message: string) {
    super('USAGE', message);
  }
}
