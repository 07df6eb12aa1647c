/**
 * `packsync promote Deployment/NAME [--reason T]` and `packsync resume Deployment/NAME --reason T`
 * (design §3, §5): the two ways a person overrides a promotion gate. Both read live state (the
 * deployment, its current wave's counts, the service's clock) and record what they did in the
 * state, where plan, the agent's status and its events pick it up. `promote` skips one wave now and
 * is refused while the deployment is held; `resume` makes no API write: it releases the hold, and
 * the next pass starts the deployment if git says running, with a new soak and the counts seen now
 * as the baseline the gate judges from.
 */
import type { Command } from 'commander';
import type { PacksyncApi } from '../api/operations.js';
import { errorCode } from '../util/errors.js';
import { InventoryStore } from '../state/inventory-store.js';
import type { InventoryEntry, PromotionRecord } from '../state/inventory-types.js';
import { addCommonOptions, buildRuntime } from './common.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { parseStateKey, requireKnown } from './state-keys.js';
import { PacksyncError } from '../util/errors.js';

/** Why promote or resume refused (exit 1); callers match on `code`. */
export class GateCommandError extends PacksyncError<'GATE_HELD' | 'GATE_NOT_RUNNING' | 'GATE_NOT_HELD' | 'GATE_NO_DEPLOYMENT'> {}

interface GateCommandOptions extends CommonOptions {
  reason?: string;
}

export function registerGateCommands(program: Command, io: CliIo): void {
  addCommonOptions(
    program
      .command('promote')
      .description('skip a deployment to its next wave now (recorded; refused while a promotion gate holds it)')
      .argument('<deployment>', 'Deployment/NAME')
      .option('--reason <text>', 'why, recorded in the state, status and events'),
  ).action(async (arg: string, opts: GateCommandOptions) => {
    await withEntry(arg, opts, io, async (key, entry, store, api) => {
      if (entry.hold) {
        throw new GateCommandError(
          'GATE_HELD',
          `${key} is held by its promotion gate (wave ${entry.hold.wave}): ${entry.hold.reason}; release it with \`packsync resume ${key} --reason ...\` first`,
        );
      }
      const live = await api.getDeployment(entry.id);
      if (live.status !== 'Running')
        throw new GateCommandError(
          'GATE_NOT_RUNNING',
          `${key} is ${live.status} (wave ${live.currentWave}/${live.waveCount}): only a running deployment can skip a wave`,
        );
      const from = live.currentWave;
      try {
        await api.skipWave(entry.id);
      } catch (e) {
        // skip-wave is not idempotent: after a lost answer, skip only if the first one did not land.
        if (errorCode(e) !== 'API_OUTCOME_UNKNOWN') throw e;
        const after = await api.getDeployment(entry.id);
        if (after.status === 'Running' && after.currentWave <= from) await api.skipWave(entry.id);
      }
      const at = serviceNow(api);
      const reason = opts.reason ?? 'promoted by hand';
      const promotion: PromotionRecord = { deploymentId: entry.id, wave: from + 1, since: at };
      await store.put(
        { ...entry, promotion, gateLog: log(entry, { at, action: 'promote', wave: from, by: 'command', reason }), updatedAt: at },
        false,
      );
      const to = from >= live.waveCount ? 'completed the rollout' : `wave ${from + 1}/${live.waveCount}`;
      io.stdout(
        `Promoted ${key}: wave ${from}/${live.waveCount} → ${to} (skip-wave called; reason: ${reason}). The soak of the new wave starts now.`,
      );
    });
  });

  addCommonOptions(
    program
      .command('resume')
      .description('release a deployment held by a failed promotion gate (no API write; the next pass starts it if git says running)')
      .argument('<deployment>', 'Deployment/NAME')
      .requiredOption('--reason <text>', 'why it is safe to go on, recorded in the state, status and events'),
  ).action(async (arg: string, opts: GateCommandOptions) => {
    await withEntry(arg, opts, io, async (key, entry, store, api) => {
      const hold = entry.hold;
      if (!hold) throw new GateCommandError('GATE_NOT_HELD', `${key} is not held by a promotion gate; nothing to resume`);
      const live = await api.getDeployment(entry.id);
      // The counts seen now are the baseline: the gate judges only installs that report after it.
      const baseline: NonNullable<PromotionRecord['baseline']> = {};
      if (live.currentWaveId) {
        const data = await api.getWaveLive(live.currentWaveId);
        if (data.deploymentId === live.id)
          for (const t of data.tenants) baseline[t.tenantId] = { installed: t.installed, failed: t.failed };
      }
      const at = serviceNow(api);
      const reason = opts.reason ?? '';
      const { hold: _released, ...rest } = entry;
      const promotion: PromotionRecord = { deploymentId: live.id, wave: live.currentWave, since: at, baseline };
      await store.put(
        { ...rest, promotion, gateLog: log(entry, { at, action: 'resume', wave: live.currentWave, by: 'command', reason }), updatedAt: at },
        false,
      );
      const reports = Object.values(baseline).reduce((n, c) => n + c.installed + c.failed, 0);
      io.stdout(
        [
          `Released ${key} (held since ${hold.at} on wave ${hold.wave}: ${hold.reason}). No API call was made.`,
          `It is ${live.status} on wave ${live.currentWave}/${live.waveCount}; the next apply or agent pass starts it if git says running.`,
          `The soak of wave ${live.currentWave} restarts now, and the gate judges only reports after the ${reports.toLocaleString('en-US')} seen at this resume.`,
        ].join('\n'),
      );
    });
  });
}

async function withEntry(
  arg: string,
  opts: GateCommandOptions,
  io: CliIo,
  run: (key: string, entry: InventoryEntry, store: InventoryStore, api: PacksyncApi) => Promise<void>,
): Promise<void> {
  const k = parseStateKey(arg, 'DEPLOYMENT');
  if (k.kind !== 'Deployment' || k.superseded) throw new UsageError(`"${arg}" is not a deployment: write Deployment/NAME`);
  if (opts.reason !== undefined && opts.reason.trim() === '') throw new UsageError('--reason must not be empty');
  const rt = await buildRuntime(opts, io);
  try {
    const store = await InventoryStore.open(rt.stateDir);
    requireKnown(store.inventory, k, 'DEPLOYMENT', rt.stateDir);
    const entry = store.inventory.objects[k.key];
    if (!entry)
      throw new GateCommandError('GATE_NO_DEPLOYMENT', `${k.key} has no live deployment yet (only a pending create); apply it first`);
    await run(k.key, entry, store, rt.api);
    await store.rewrite();
  } finally {
    await rt.close();
  }
}

function serviceNow(api: PacksyncApi): string {
  return (api.serviceTime?.() ?? new Date()).toISOString();
}

function log(entry: InventoryEntry, e: NonNullable<InventoryEntry['gateLog']>[number]): NonNullable<InventoryEntry['gateLog']> {
  return [...(entry.gateLog ?? []), e].slice(-20);
}
