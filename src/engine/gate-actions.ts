/**
 * The two manual overrides of a promotion gate (docs/manifests.md), shared by the `promote`/`resume`
 * commands (when they hold the state lock themselves) and by a locked pass that runs them for a
 * queued request (when an apply or agent holds the lock: `gate-requests.ts`). Both read live state
 * and record what they did in the deployment's state entry; `promote` also calls skip-wave.
 */
import type { PacksyncApi } from '../api/operations.js';
import type { InventoryStore } from '../state/inventory-store.js';
import type { GateLogEntry, InventoryEntry, PromotionRecord, ServiceGate } from '../state/inventory-types.js';
import { PacksyncError } from '../util/errors.js';
import { writeOnce } from '../apply/write-calls.js';
import { windowVerdict } from '../plan/windows/windows.js';
import { formatCount } from '../util/count-format.js';

/** Why promote or resume refused (exit 1); callers match on `code`. */
export class GateCommandError extends PacksyncError<
  'GATE_HELD' | 'GATE_NOT_RUNNING' | 'GATE_NOT_HELD' | 'GATE_NO_DEPLOYMENT' | 'WINDOW_CLOSED'
> {}

export type GateCommand = 'promote' | 'resume';

export interface GateCommandInput {
  command: GateCommand;
  key: string;
  reason?: string | undefined;
  /** A queued request's id, recorded in the gate log so a request is never carried out twice. */
  request?: string;
  /** `promote --ignore-windows`: who breaks glass through a closed change window (docs/policy.md); the reason is `reason`. */
  ignoreWindowsActor?: string | undefined;
}

/** Refusals that need only the state (no API call): checked before a request is queued, too. */
export function checkGateCommand(input: GateCommandInput, entry: InventoryEntry | undefined): InventoryEntry {
  const { key, command } = input;
  if (!entry) throw new GateCommandError('GATE_NO_DEPLOYMENT', `${key} has no live deployment yet (only a pending create); apply it first`);
  if (command === 'promote' && entry.hold)
    throw new GateCommandError(
      'GATE_HELD',
      `${key} is held by its promotion gate (wave ${entry.hold.wave}): ${entry.hold.reason}; release it with \`packsync resume ${key} --reason ...\` first`,
    );
  if (command === 'resume' && !entry.hold)
    throw new GateCommandError('GATE_NOT_HELD', `${key} is not held by a promotion gate; nothing to resume`);
  return entry;
}

/** Runs the command against the store's entry; returns the lines that say what it did. */
export async function runGateCommand(input: GateCommandInput, store: InventoryStore, api: PacksyncApi): Promise<string[]> {
  const service = SERVICE_KEY.exec(input.key);
  if (service) return runServiceGateCommand(input, store, api, { flow: `Flow/${service[1]!}`, version: service[2]! });
  const entry = checkGateCommand(input, store.inventory.objects[input.key]);
  return input.command === 'promote' ? promote(input, entry, store, api) : resume(input, entry, store, api);
}

/** `Flow/NAME@VERSION`: a deployment the service started in an owned flow with `promotion` (docs/reconcile.md). */
export const SERVICE_KEY = /^Flow\/([^@/]+)@(.+)$/;

/**
 * The gate of a service-started deployment: its state is on the flow's entry (`serviceGates`, by
 * deployment id), so the command runs on a view of it as a deployment entry and writes it back there.
 */
async function runServiceGateCommand(
  input: GateCommandInput,
  store: InventoryStore,
  api: PacksyncApi,
  at: { flow: string; version: string },
): Promise<string[]> {
  const flow = store.inventory.objects[at.flow];
  if (!flow) throw new GateCommandError('GATE_NO_DEPLOYMENT', `${at.flow} is not in the state; ${input.key} names a deployment of it`);
  const known = Object.entries(flow.serviceGates ?? {}).find(([, g]) => g.version === at.version);
  const id =
    known?.[0] ??
    (await api.getFlow(flow.id)).deployments.find(
      (d) => d.version === at.version && !Object.values(store.inventory.objects).some((e) => e.id === d.id),
    )?.id;
  if (!id) throw new GateCommandError('GATE_NO_DEPLOYMENT', `${at.flow} has no deployment of ${at.version} that the service started`);
  const gate = flow.serviceGates?.[id];
  const { serviceGates: _s, promotion: _p, hold: _h, gateLog: _l, ...base } = flow;
  const view: InventoryEntry = {
    ...base,
    kind: 'Deployment',
    name: input.key.slice('Flow/'.length),
    id,
    ...(gate?.promotion ? { promotion: gate.promotion } : {}),
    ...(gate?.hold ? { hold: gate.hold } : {}),
    ...(gate?.gateLog ? { gateLog: gate.gateLog } : {}),
  };
  const entry = checkGateCommand(input, view);
  // Writes of the view go back to the flow's entry; history goes to the store as for any deployment.
  const back = {
    put: async (e: InventoryEntry): Promise<void> => {
      const now = store.inventory.objects[at.flow] ?? flow;
      const next: ServiceGate = {
        version: at.version,
        ...(e.promotion ? { promotion: e.promotion } : {}),
        ...(e.hold ? { hold: e.hold } : {}),
        ...(e.gateLog ? { gateLog: e.gateLog } : {}),
      };
      await store.put({ ...now, serviceGates: { ...now.serviceGates, [id]: next }, updatedAt: e.updatedAt }, false);
    },
    history: (ev: Parameters<InventoryStore['history']>[0]): Promise<void> => store.history(ev),
  };
  return input.command === 'promote' ? promote(input, entry, back, api) : resume(input, entry, back, api);
}

/** What the commands write through: the store itself, or a service-started deployment's view of its flow's entry. */
type GateWrites = Pick<InventoryStore, 'history'> & { put: (e: InventoryEntry, resolveIntent?: boolean) => Promise<void> };

async function promote(input: GateCommandInput, entry: InventoryEntry, store: GateWrites, api: PacksyncApi): Promise<string[]> {
  const { key } = input;
  const live = await api.getDeployment(entry.id);
  if (live.status !== 'Running')
    throw new GateCommandError(
      'GATE_NOT_RUNNING',
      `${key} is ${live.status} (wave ${live.currentWave}/${live.waveCount}): only a running deployment can skip a wave`,
    );
  const from = live.currentWave;
  const glass = windowCheck(input, entry, api);
  // skip-wave is not idempotent: after a lost answer, skip again only if the first one did not land.
  await writeOnce({
    call: () => api.skipWave(entry.id),
    codes: ['API_OUTCOME_UNKNOWN'],
    landed: async () => {
      const after = await api.getDeployment(entry.id);
      return !(after.status === 'Running' && after.currentWave <= from);
    },
    again: true,
  });
  const at = serviceNow(api);
  const reason = input.reason ?? 'promoted by hand';
  const promotion: PromotionRecord = { deploymentId: entry.id, wave: from + 1, since: at };
  let logged = log(entry, { at, action: 'promote', wave: from, waveCount: live.waveCount, by: 'command', reason, ...requestOf(input) });
  if (glass)
    logged = [
      ...logged,
      { at, action: 'ignore-windows' as const, wave: from, by: 'command' as const, reason: glass, ...requestOf(input) },
    ].slice(-20);
  await store.put({ ...entry, promotion, gateLog: logged, updatedAt: at }, false);
  // The promote, and the break glass that let it through a closed window (both in the report's history).
  for (const e of logged.slice(glass ? -2 : -1)) await recordHistory(store, entry.id, e);
  if (from < live.waveCount) await store.history({ type: 'wave', deploymentId: entry.id, wave: from + 1, at, by: 'command' });
  const to = from >= live.waveCount ? 'completed the rollout' : `wave ${from + 1}/${live.waveCount}`;
  return [
    `Promoted ${key}: wave ${from}/${live.waveCount} → ${to} (skip-wave called; reason: ${reason}). The soak of the new wave starts now.`,
  ];
}

async function resume(input: GateCommandInput, entry: InventoryEntry, store: GateWrites, api: PacksyncApi): Promise<string[]> {
  const { key } = input;
  const hold = entry.hold!;
  const live = await api.getDeployment(entry.id);
  // The counts seen now are the baseline: the gate judges only installs that report after it.
  const baseline: NonNullable<PromotionRecord['baseline']> = {};
  if (live.currentWaveId) {
    const data = await api.getWaveLive(live.currentWaveId);
    if (data.deploymentId === live.id) for (const t of data.tenants) baseline[t.tenantId] = { installed: t.installed, failed: t.failed };
  }
  const at = serviceNow(api);
  const reason = input.reason ?? '';
  const { hold: _released, ...rest } = entry;
  const promotion: PromotionRecord = { deploymentId: live.id, wave: live.currentWave, since: at, baseline };
  const logged = log(entry, {
    at,
    action: 'resume',
    wave: live.currentWave,
    waveCount: live.waveCount,
    by: 'command',
    reason,
    ...requestOf(input),
  });
  await store.put({ ...rest, promotion, gateLog: logged, updatedAt: at }, false);
  await recordHistory(store, entry.id, logged.at(-1)!);
  const reports = Object.values(baseline).reduce((n, c) => n + c.installed + c.failed, 0);
  // A hold of `onFailure: hold` made no call: the deployment never stopped, and there is nothing to start.
  const next =
    hold.stopped || live.status !== 'Running'
      ? `It is ${live.status} on wave ${live.currentWave}/${live.waveCount}; the next apply or agent pass starts it if git says running.`
      : `It is still Running on wave ${live.currentWave}/${live.waveCount} (the hold made no call, so there is nothing to start); the next apply or agent pass judges its gate again.`;
  return [
    `Released ${key} (held since ${hold.at} on wave ${hold.wave}: ${hold.reason}). No API call was made.`,
    next,
    `The soak of wave ${live.currentWave} restarts now, and the gate judges only reports after the ${formatCount(reports)} seen at this resume.`,
  ];
}

/** The report's history (docs/reports.md#history) keeps the command with its reason beyond the gate log's 20 entries. */
function recordHistory(store: GateWrites, deploymentId: string, e: GateLogEntry): Promise<void> {
  return store.history({ type: 'gate', deploymentId, entry: { at: e.at, action: e.action, wave: e.wave, by: e.by, reason: e.reason } });
}

/**
 * Promote is a forward move: outside the windows recorded for the deployment at its last apply, or
 * in a freeze, it is refused unless glass is broken (`--ignore-windows --reason`), on the service's
 * clock (the `Date` of the deployment read just made). Returns the break-glass log text, if any.
 */
function windowCheck(input: GateCommandInput, entry: InventoryEntry, api: PacksyncApi): string | undefined {
  if (!entry.windows) return undefined;
  const now = api.serviceTime?.();
  if (!now)
    throw new PacksyncError(
      'API_INVALID_RESPONSE',
      "the service's clock could not be read (no Date header): the change window cannot be judged; nothing was done",
    );
  const verdict = windowVerdict(entry.windows, now);
  if (verdict.open) return undefined;
  if (input.ignoreWindowsActor === undefined)
    throw new GateCommandError(
      'WINDOW_CLOSED',
      `${input.key} is outside its change window: ${verdict.reason}; nothing was done (\`--ignore-windows --reason ...\` breaks glass)`,
    );
  return `${input.ignoreWindowsActor}: ${input.reason ?? ''} (${verdict.reason})`;
}

function requestOf(input: GateCommandInput): { request?: string } {
  return input.request ? { request: input.request } : {};
}

function serviceNow(api: PacksyncApi): string {
  return (api.serviceTime?.() ?? new Date()).toISOString();
}

function log(entry: InventoryEntry, e: GateLogEntry): GateLogEntry[] {
  return [...(entry.gateLog ?? []), e].slice(-20);
}
