/** The built CLI as a real process, for tests that must kill it. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Run from test/support (vitest), the build is dist/ at the root; compiled into dist/test/support
// (bench/ imports these helpers), it is the dist/ this file is in.
const IN_DIST = /[/\\]dist[/\\]test[/\\]support[/\\][^/\\]+$/.test(fileURLToPath(import.meta.url));
export const CLI_BIN = fileURLToPath(new URL(IN_DIST ? '../../src/cli/main.js' : '../../dist/src/cli/main.js', import.meta.url));

/**
 * How the `packsync` bin starts: its shebang's environment and Node flags (the CLI's own memory
 * policy, docs/performance.md "fleet-cli") with this Node, as the kernel runs an npm-linked bin.
 * Benchmarks measure it this way (spawn with `env` added to the child's environment).
 */
export function binCommand(nodeFlags: readonly string[] = []): { command: string; args: string[]; env: Record<string, string> } {
  const first = readFileSync(CLI_BIN, 'utf8').split('\n', 1)[0] ?? '';
  const m = /^#!\S*env -S ((?:\w+=\S*\s+)*)node(.*)$/.exec(first);
  const env = Object.fromEntries(
    (m?.[1] ?? '')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((a) => a.split('=', 2) as [string, string]),
  );
  const flags = m?.[2]?.trim().split(/\s+/).filter(Boolean) ?? [];
  return { command: process.execPath, args: [...flags, ...nodeFlags, CLI_BIN], env };
}

export interface Spawned {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** `output: 'inherit'` passes the child's output through (benchmarks); `done` then holds none of it. */
export function spawnCli(
  args: string[],
  env: Record<string, string | undefined>,
  output: 'pipe' | 'inherit' = 'pipe',
  cwd: string = process.cwd(),
  nodeFlags: readonly string[] = [],
): Spawned {
  const child = spawn(process.execPath, [...nodeFlags, CLI_BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', output, output],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Waits for `p`, moving the simulator's clock on (10 virtual minutes every 200 ms) so package processing ends in moments. */
export async function finishAdvancing(p: Spawned, sim: { advance: (seconds: number) => Promise<void> }): Promise<Awaited<Spawned['done']>> {
  let done = false;
  const end = p.done.finally(() => (done = true));
  while (!done) {
    await sim.advance(600);
    await Promise.race([end, new Promise((r) => setTimeout(r, 200))]);
  }
  return end;
}
