/**
 * `packsync promote Deployment/NAME [--reason T]` and `packsync resume Deployment/NAME --reason T`
 * (docs/promotion.md): the two ways a person overrides a promotion gate. `promote` skips one wave now and
 * is refused while the deployment is held; `resume` makes no API write: it releases the hold, and,
 * when the gate had stopped the deployment, the next pass starts it if git says running
 * (`engine/gate-actions.ts`).
 *
 * Both edit the state, which has one writer (docs/reconcile.md). When the lock is free the command takes it
 * and does the work itself. When an apply or the agent holds it (the usual case: the agent runs all
 * the time), the command queues a request for that process, which carries it out at the start of
 * its next pass; the command waits for the outcome (`--wait`, default 120 s) and exits 0 only once
 * it was carried out. A request no pass took in time is withdrawn: nothing happened, exit 1.
 */
import type { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { GateCommandError, SERVICE_KEY, checkGateCommand, runGateCommand } from '../engine/gate-actions.js';
import type { GateCommand, GateCommandInput } from '../engine/gate-actions.js';
import type { Inventory } from '../state/inventory-types.js';
import type { RequestOutcome } from '../state/request-queue.js';
import { PacksyncError, errorCode, isErrorCode } from '../util/errors.js';
import type { ErrorCode } from '../util/errors.js';
import { addCommonOptions, buildRuntime } from './common.js';
import { intFlag } from './flag-values.js';
import type { CommonOptions, Runtime } from './common.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { parseStateKey, requireKnown } from './state-keys.js';
import { breakGlassFrom } from './break-glass.js';
import type { BreakGlassFlags } from './break-glass.js';

interface GateCommandOptions extends CommonOptions, BreakGlassFlags {
  reason?: string;
  wait: string;
}

/** A queued request the lock's holder refused, failed or did not take in time. */
class GateRequestError extends PacksyncError<'GATE_REQUEST_TIMEOUT'> {}

export function registerGateCommands(program: Command, io: CliIo): void {
  const waitOption = (c: Command): Command =>
    c.option('--wait <seconds>', 'while an apply or the agent holds the state: how long to wait for it to carry this out', '120');
  waitOption(
    addCommonOptions(
      program
        .command('promote')
        .description('skip a deployment to its next wave now (recorded; refused while a promotion gate holds it)')
        .argument('<deployment>', 'Deployment/NAME')
        .option('--reason <text>', 'why, recorded in the state, status and events')
        .option('--ignore-windows', 'break glass: promote now even outside the change window or in a freeze (needs --reason; recorded)')
        .option('--actor <name>', 'who breaks glass, recorded with --ignore-windows (default: git config user.name <user.email>)'),
    ),
  ).action((arg: string, opts: GateCommandOptions) => gateCommand('promote', arg, opts, io));

  waitOption(
    addCommonOptions(
      program
        .command('resume')
        .description(
          'release a deployment held by a failed promotion gate (no API write; if the gate stopped it, the next pass starts it if git says running)',
        )
        .argument('<deployment>', 'Deployment/NAME')
        .requiredOption('--reason <text>', 'why it is safe to go on, recorded in the state, status and events'),
    ),
  ).action((arg: string, opts: GateCommandOptions) => gateCommand('resume', arg, opts, io));
}

async function gateCommand(command: GateCommand, arg: string, opts: GateCommandOptions, io: CliIo): Promise<void> {
  // `Flow/NAME@VERSION`: a deployment the service started in an owned flow with `promotion` (docs/reconcile.md).
  const service = SERVICE_KEY.test(arg);
  const k = service ? { key: arg } : parseStateKey(arg, 'DEPLOYMENT');
  if (!service && (('kind' in k && k.kind !== 'Deployment') || ('superseded' in k && k.superseded)))
    throw new UsageError(`"${arg}" is not a deployment: write Deployment/NAME (or Flow/NAME@VERSION for one the service started)`);
  if (opts.reason !== undefined && opts.reason.trim() === '') throw new UsageError('--reason must not be empty');
  const waitMs = intFlag(opts.wait, '--wait') * 1000;
  const glass = command === 'promote' ? await breakGlassFrom(opts, io.cwd) : undefined;
  const input: GateCommandInput = { command, key: k.key, reason: opts.reason, ...(glass ? { ignoreWindowsActor: glass.actor } : {}) };
  const rt = await buildRuntime(opts, io, [], { existingState: true });
  try {
    const locked = await rt.state.lock().then(
      () => true,
      (e: unknown) => {
        // Held by a running apply or agent: ask it; anything else is an error.
        if (errorCode(e) === 'STATE_LOCKED') return false;
        throw e;
      },
    );
    if (locked) await runLocked(input, rt, io);
    else await runQueued(input, rt, io, waitMs);
  } finally {
    await rt.close();
  }
}

/** A key the state does not know is a deployment packsync does not own: `GATE_NO_DEPLOYMENT` (docs/errors.md), not `STATE_KEY`. */
function requireDeployment(inv: Inventory, key: string, location: string): void {
  if (SERVICE_KEY.test(key)) {
    const flow = `Flow/${SERVICE_KEY.exec(key)![1]!}`;
    if (!inv.objects[flow]) throw new GateCommandError('GATE_NO_DEPLOYMENT', `${flow} is not in the state in ${location}`);
    return;
  }
  requireKnown(inv, parseStateKey(key, 'DEPLOYMENT'), location, (m) => new GateCommandError('GATE_NO_DEPLOYMENT', m));
}

async function runLocked(input: GateCommandInput, rt: Runtime, io: CliIo): Promise<void> {
  const store = await rt.state.openStore();
  try {
    requireDeployment(store.inventory, input.key, rt.state.location);
    for (const line of await runGateCommand(input, store, rt.api)) io.stdout(line);
    await store.rewrite();
  } finally {
    await store.close();
  }
}

async function runQueued(input: GateCommandInput, rt: Runtime, io: CliIo, waitMs: number): Promise<void> {
  const queue = rt.state.requests;
  // The refusals the state alone decides come at once, without queueing anything.
  const inv = await rt.state.read();
  requireDeployment(inv, input.key, rt.state.location);
  if (!SERVICE_KEY.test(input.key)) checkGateCommand(input, inv.objects[input.key]);
  const id = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${randomBytes(4).toString('hex')}`;
  await queue.put({
    id,
    command: input.command,
    key: input.key,
    ...(input.reason ? { reason: input.reason } : {}),
    ...(input.ignoreWindowsActor !== undefined ? { ignoreWindowsActor: input.ignoreWindowsActor } : {}),
    at: new Date().toISOString(),
    pid: process.pid,
  });
  io.stderr(
    `The state is locked by a running apply or agent: queued this ${input.command} for it (carried out at the start of its next pass).`,
  );
  let deadline = Date.now() + waitMs;
  let taken = false;
  let outcome: RequestOutcome | null = null;
  for (;;) {
    outcome = await queue.outcome(id);
    if (outcome) break;
    if (Date.now() >= deadline) {
      if (!taken && (await queue.withdraw(id)))
        throw new GateRequestError(
          'GATE_REQUEST_TIMEOUT',
          `no pass of the process holding the state took this ${input.command} within ${waitMs / 1000} s; withdrawn, nothing changed (try again, or a longer --wait)`,
        );
      // A pass has it: give it as long again to answer, never forever (its process may have died).
      if (taken)
        throw new GateRequestError(
          'GATE_REQUEST_TIMEOUT',
          `the process holding the state took this ${input.command} but gave no answer within ${(2 * waitMs) / 1000} s; it may have been carried out: \`packsync state show ${input.key}\` shows the gate log`,
        );
      taken = true;
      deadline = Date.now() + waitMs;
    }
    await new Promise((r) => setTimeout(r, queue.pollMs.outcome));
  }
  // The holder's refusal or failure, with the code it reported.
  if (!outcome.ok)
    throw new PacksyncError(isErrorCode(outcome.code ?? '') ? (outcome.code as ErrorCode) : 'INTERNAL', outcome.lines.join('\n'));
  for (const line of outcome.lines) io.stdout(line);
}
