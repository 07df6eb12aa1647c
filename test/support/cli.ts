/** Runs the CLI in-process with captured output: the same code path as the binary, minus spawn. */
import { runCli } from '../../src/cli/run-cli.js';
import type { CliIo } from '../../src/cli/io.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(args: string[], env: Record<string, string>, cwd = process.cwd()): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  let code = 0;
  const io: CliIo = {
    stdout: (s) => {
      stdout += s.endsWith('\n') ? s : `${s}\n`;
    },
    stderr: (s) => {
      stderr += s.endsWith('\n') ? s : `${s}\n`;
    },
    setExitCode: (c) => {
      code = c;
    },
    isTTY: false,
    env: { ...env },
    cwd,
  };
  await runCli(['node', 'packsync', ...args], io, '0.0.0-test');
  return { code, stdout, stderr };
}
