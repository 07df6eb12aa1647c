/** What a command may touch of the process; injected so commands run in-process in tests. */
export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  setExitCode: (code: number) => void;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function processIo(): CliIo {
  return {
    stdout: (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
    stderr: (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
    setExitCode: (code) => {
      process.exitCode = code;
    },
    isTTY: process.stdout.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** A usage error: names the flag or argument, exits 2 like commander's own usage errors. */
export class UsageError extends Error {
  readonly code = 'USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
