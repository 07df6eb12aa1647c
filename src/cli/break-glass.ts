/**
 * Break glass (docs/policy.md): `--ignore-windows --reason T [--actor NAME]` on `apply` and
 * `promote` moves a rollout through a closed change window now. Who ran it is `--actor`, else the
 * git identity (`user.name <user.email>`) where the command runs; with neither it is refused, so a
 * break-glass move is never anonymous.
 */
import type { Command } from 'commander';
import { execFile } from 'node:child_process';
import { UsageError } from './io.js';

export interface BreakGlassFlags {
  ignoreWindows?: boolean;
  reason?: string;
  actor?: string;
}

export function addBreakGlassFlags(cmd: Command, withReason: boolean): Command {
  cmd
    .option(
      '--ignore-windows',
      'break glass: move rollouts forward now even outside their change windows or in a freeze (needs --reason; recorded)',
    )
    .option('--actor <name>', 'who breaks glass, recorded with --ignore-windows (default: git config user.name <user.email>)');
  return withReason
    ? cmd.option('--reason <text>', 'why (needed with --ignore-windows; recorded in the state, events and notifications)')
    : cmd;
}

/** The break-glass record, or undefined without `--ignore-windows`; usage errors for a missing reason or actor. */
export async function breakGlassFrom(f: BreakGlassFlags, cwd: string): Promise<{ actor: string; reason: string } | undefined> {
  if (!f.ignoreWindows) {
    if (f.actor !== undefined) throw new UsageError('--actor only applies with --ignore-windows');
    return undefined;
  }
  const reason = f.reason?.trim() ?? '';
  if (reason === '') throw new UsageError('--ignore-windows needs --reason TEXT: why the change cannot wait for its window is recorded');
  const actor = f.actor?.trim() || (await gitIdentity(cwd));
  if (!actor)
    throw new UsageError('--ignore-windows needs to know who runs it: set git config user.name (and user.email), or pass --actor NAME');
  return { actor, reason };
}

async function gitIdentity(cwd: string): Promise<string | null> {
  const get = (key: string): Promise<string> =>
    new Promise((resolve) =>
      execFile('git', ['-C', cwd, 'config', '--get', key], { timeout: 5000 }, (err, out) => resolve(err ? '' : out.trim())),
    );
  const [name, email] = await Promise.all([get('user.name'), get('user.email')]);
  if (!name && !email) return null;
  return name && email ? `${name} <${email}>` : name || email;
}
