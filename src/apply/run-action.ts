/**
 * Executes one plan action against the API and records its result in the inventory the moment it
 * happens. Creates write an intent first; a create whose outcome is unknown (lost response) is
 * resolved at once by looking the object up live, so it is never repeated blindly.
 */
import { uploadContentDirectory } from '../api/upload.js';
import type { GateLogEntry, Intent, InventoryEntry, ServiceGate } from '../state/inventory-types.js';
import type { InventoryStore } from '../state/inventory-store.js';
import type { GateStateChange, IdRef, PlanAction } from '../plan/types.js';
import { scopeOfPackage } from '../live/identity.js';
import { PacksyncError } from '../util/errors.js';
import { countedChunks, createOnce, deleteOwned, writeOnce } from './write-calls.js';
import { ApplyError } from './errors.js';
import { waitForPackage, waitForUpload } from './wait.js';
import { OP } from '../plan/ops.js';
import type { ActionDeps } from './action-deps.js';

/** The plan actions whose op can be K (start, stop and update-content share one shape). */
type WithOp<A, K> = A extends { op: infer O } ? (K extends O ? A : never) : never;
type ActionOf<K extends PlanAction['op']> = WithOp<PlanAction, K>;

/** What every handler shares: the dependencies, the abort signal's options and the state helpers. */
interface ActionContext {
  d: ActionDeps;
  opts: { signal?: AbortSignal };
  at: () => string;
}

/**
 * One handler per op (docs/architecture.md, "The engine"). The mapped type makes the table
 * exhaustive over the op table (plan/ops.ts): an op without a handler here does not compile.
 */
const HANDLERS: { [K in PlanAction['op']]: (a: ActionOf<K>, c: ActionContext) => Promise<void> } = {
  [OP.importPackage]: importPackage,
  [OP.createPackage]: createPackage,
  [OP.uploadContent]: uploadContent,
  [OP.waitPackage]: (a, c) =>
    waitForPackage(
      c.d.api,
      resolveRef({ key: a.packageKey }, c.d.store),
      c.d.wait,
      (s, ms) => c.d.emit({ type: 'wait', key: a.key, what: `package ${s}`, elapsedMs: ms }),
      c.d.signal,
    ),
  [OP.createFlow]: createFlow,
  [OP.deleteFlow]: (a, c) => deleteOwned(c.d, a.key, a.flowId, () => c.d.api.deleteFlow(a.flowId, {}, c.opts), a.forget),
  [OP.addDeployment]: addDeployment,
  [OP.start]: startOrStop,
  [OP.stop]: startOrStop,
  [OP.skipWave]: skipWave,
  [OP.updateContent]: updateContent,
  [OP.deleteDeployment]: (a, c) => deleteOwned(c.d, a.key, a.deploymentId, () => c.d.api.deleteDeployment(a.deploymentId, {}, c.opts)),
  [OP.tenantUpload]: tenantUpload,
  [OP.waitUpload]: (a, c) => followUpload(c.d, a.key, a.taskId),
  [OP.record]: (a, c) => c.d.store.put({ ...a.entry, revision: c.d.revision, updatedAt: c.at() }, a.resolvesIntent),
  [OP.forget]: (a, c) => c.d.store.remove(a.key),
  [OP.gate]: gate,
};

export async function runAction(a: PlanAction, d: ActionDeps): Promise<void> {
  const handler = HANDLERS[a.op] as ((a: PlanAction, c: ActionContext) => Promise<void>) | undefined;
  // A saved plan is JSON: an op this version does not know is refused, never skipped.
  if (!handler) return unknownOp(a as never);
  await handler(a, { d, opts: d.signal ? { signal: d.signal } : {}, at: () => d.now().toISOString() });
}

/** The inventory entry of an object an action just created, under the action's key. */
function entryOf(
  a: PlanAction,
  c: ActionContext,
  o: {
    kind: InventoryEntry['kind'];
    id: string;
    record: { specHash: string; spec: unknown; annotations?: Record<string, string>; file?: string };
  },
): InventoryEntry {
  const { record } = o;
  return {
    kind: o.kind,
    name: a.key.slice(a.key.indexOf('/') + 1),
    id: o.id,
    specHash: record.specHash,
    spec: record.spec,
    revision: c.d.revision,
    ...(record.annotations ? { annotations: record.annotations } : {}),
    ...(record.file !== undefined ? { file: record.file } : {}),
    updatedAt: c.at(),
  };
}

/** Creates write an intent first, so a create whose result is lost is found, never repeated. */
async function intent(a: PlanAction, c: ActionContext, match: Record<string, string>, knownIds: string[]): Promise<void> {
  // The manifest file goes with it: a create whose key then leaves git is pruned within its path only.
  const file = 'record' in a ? a.record.file : undefined;
  const i: Intent = { key: a.key, op: a.op, at: c.at(), knownIds, match, ...(file !== undefined ? { file } : {}) };
  await c.d.store.setIntent(i);
}

async function importPackage(a: ActionOf<typeof OP.importPackage>, c: ActionContext): Promise<void> {
  const { api } = c.d;
  await intent(a, c, a.match, a.knownIds);
  const id = await createOnce(
    c.d,
    () => api.importApp(a.appId, a.query, c.opts),
    async () => {
      const pkgs = (await api.listPackages({ disablePaging: true, appId: a.appId }, c.opts)).items;
      return pkgs.find(
        (p) =>
          !p.isCustom &&
          p.appId === a.appId &&
          p.productVersion === a.match.version &&
          String(scopeOfPackage(p)) === a.match.scope &&
          !a.knownIds.includes(p.id),
      )?.id;
    },
  );
  await c.d.store.put(entryOf(a, c, { kind: 'Package', id, record: a.record }));
}

async function createPackage(a: ActionOf<typeof OP.createPackage>, c: ActionContext): Promise<void> {
  const { api } = c.d;
  await intent(a, c, a.match, a.knownIds);
  const id = await createOnce(
    c.d,
    async () => (await api.createPackage(a.body, c.opts)).id,
    async () => {
      const pkgs = (await api.listPackages({ disablePaging: true, search: a.match.name }, c.opts)).items;
      return pkgs.find(
        (p) => p.isCustom && p.productName === a.match.name && p.productVersion === a.match.version && !a.knownIds.includes(p.id),
      )?.id;
    },
  );
  await c.d.store.put({
    ...entryOf(a, c, { kind: 'Package', id, record: a.record }),
    phase: 'created',
    ...(a.record.contentDigest ? { contentDigest: a.record.contentDigest } : {}),
  });
}

async function uploadContent(a: ActionOf<typeof OP.uploadContent>, c: ActionContext): Promise<void> {
  const { d } = c;
  const id = resolveRef({ key: a.packageKey }, d.store);
  await uploadContentDirectory(countedChunks(d.api, d.countWrite), id, a.dir, {
    ...c.opts,
    expectDigest: a.digest,
    onProgress: (p) => d.emit({ type: 'upload-progress', key: a.key, ...p }),
  });
  // The digest of the bytes the upload sent and checked, never only the planned one.
  const files = a.files && a.files.length <= MAX_RECORDED_FILES ? { contentFiles: a.files } : {};
  await d.store.patch(a.key, { phase: 'uploaded', contentDigest: a.digest, ...files, updatedAt: c.at() });
}

async function createFlow(a: ActionOf<typeof OP.createFlow>, c: ActionContext): Promise<void> {
  const { api, store } = c.d;
  const body = { ...a.body };
  if (a.packageRef) body.packageId = resolveRef(a.packageRef, store);
  await intent(a, c, a.match, a.knownIds);
  const id = await createOnce(
    c.d,
    () => api.createFlow(body, c.opts),
    async () => {
      const flows = (await api.listFlows({ disablePaging: true, search: a.match.name }, c.opts)).items;
      return flows.find((f) => !f.deleted && f.name === a.match.name && !a.knownIds.includes(f.id))?.id;
    },
  );
  await store.put(entryOf(a, c, { kind: 'Flow', id, record: a.record }));
}

async function addDeployment(a: ActionOf<typeof OP.addDeployment>, c: ActionContext): Promise<void> {
  const { api, store } = c.d;
  const flowId = resolveRef(a.flowRef, store);
  const packageId = resolveRef(a.packageRef, store);
  await intent(a, c, { flowId, packageId }, []);
  const body = { packageId, startNow: a.startNow, ...(a.version !== undefined ? { version: a.version } : {}) };
  const id = await createOnce(
    c.d,
    () => api.addDeployment(flowId, body, c.opts),
    async () => (await api.getFlow(flowId, c.opts)).deployments.find((x) => x.packageId === packageId)?.id,
  );
  const { appliedState, contentRevision, windows, ...record } = a.record;
  await store.put({
    ...entryOf(a, c, { kind: 'Deployment', id, record }),
    flowId,
    packageId,
    appliedState,
    ...(contentRevision !== undefined ? { contentRevision } : {}),
    ...(windows ? { windows } : {}),
  });
}

function startOrStop(a: ActionOf<typeof OP.start | typeof OP.stop>, c: ActionContext): Promise<void> {
  const { api } = c.d;
  const id = resolveRef(a.deploymentRef, c.d.store);
  c.d.countWrite();
  // A retried call whose first attempt took effect answers 409: the live status says whether it did.
  return writeOnce({
    call: () => (a.op === OP.start ? api.startDeployment(id, c.opts) : api.stopDeployment(id, c.opts)),
    codes: ['API_CONFLICT', 'API_OUTCOME_UNKNOWN'],
    landed: async () => {
      const live = await api.getDeployment(id, c.opts);
      return a.op === OP.start ? live.status === 'Running' || live.status === 'Completed' : live.status === 'Stopped';
    },
  });
}

async function skipWave(a: ActionOf<typeof OP.skipWave>, c: ActionContext): Promise<void> {
  const { api } = c.d;
  const id = resolveRef(a.deploymentRef, c.d.store);
  const live = await api.getDeployment(id, c.opts);
  if (live.status !== 'Running' || live.currentWave >= a.untilWave) return;
  // skip-wave is not idempotent: after a lost answer it is sent again only if the first did not land.
  await writeOnce({
    call: () => (c.d.countWrite(), api.skipWave(id, c.opts)),
    codes: ['API_OUTCOME_UNKNOWN'],
    landed: async () => {
      const after = await api.getDeployment(id, c.opts);
      return after.currentWave >= a.untilWave || after.status !== 'Running';
    },
    again: true,
  });
  // The report's history (docs/reports.md#history): packsync moved the rollout into this wave now,
  // on the service's clock (the skip's answer). Without it a skip by a manifest's `spec.wave` was
  // taken for the service's own move, dated at the next pass. A promotion gate's skip records the
  // same wave again with its verdict (recordGate), which the history keeps once.
  if (a.untilWave <= live.waveCount) {
    const at = (api.serviceTime?.() ?? c.d.now()).toISOString();
    await c.d.store.history({ type: 'wave', deploymentId: id, wave: a.untilWave, at, by: 'gate' });
  }
}

function updateContent(a: ActionOf<typeof OP.updateContent>, c: ActionContext): Promise<void> {
  const { api } = c.d;
  const id = resolveRef(a.deploymentRef, c.d.store);
  c.d.countWrite();
  return writeOnce({
    call: () => api.updateContent(id, c.opts),
    codes: ['API_CONFLICT', 'API_OUTCOME_UNKNOWN'],
    landed: async () => {
      const live = await api.getDeployment(id, c.opts);
      return live.contentUpdateStatus === 'Running' || live.contentUpdateStatus === 'Completed';
    },
  });
}

async function tenantUpload(a: ActionOf<typeof OP.tenantUpload>, c: ActionContext): Promise<void> {
  const { api, store } = c.d;
  const packageId = resolveRef(a.packageRef, store);
  const before = (await api.listTenantUploads(a.tenantId, { disablePaging: true }, c.opts)).items;
  const knownIds = before.filter((t) => t.packageId === packageId).map((t) => t.id);
  await intent(a, c, { tenantId: a.tenantId, packageId }, knownIds);
  const taskId = await createOnce(
    c.d,
    async () => (await api.uploadToTenant(a.tenantId, { packageId, uploadMsixAsWin32: a.uploadMsixAsWin32, wait: false }, c.opts)).id,
    async () => {
      const after = (await api.listTenantUploads(a.tenantId, { disablePaging: true }, c.opts)).items;
      return after.find((t) => t.packageId === packageId && !knownIds.includes(t.id))?.id;
    },
  );
  await store.put({ ...entryOf(a, c, { kind: 'TenantUpload', id: taskId, record: a.record }), tenantId: a.tenantId, packageId });
  return followUpload(c.d, a.key, taskId);
}

async function gate(a: ActionOf<typeof OP.gate>, c: ActionContext): Promise<void> {
  const { store } = c.d;
  if (a.service) return recordServiceGate(store, a.service, a.set, c.at());
  // Merged into the entry as it is now (after this object's record), never from the plan's copy.
  const e = store.inventory.objects[a.key];
  if (!e) return;
  const next: InventoryEntry = { ...e, updatedAt: c.at() };
  if (a.set.promotion) next.promotion = a.set.promotion;
  if (a.set.hold === null) delete next.hold;
  else if (a.set.hold) next.hold = a.set.hold;
  if (a.set.appliedState !== undefined) next.appliedState = a.set.appliedState;
  if (a.set.annotations === null) delete next.annotations;
  else if (a.set.annotations) next.annotations = a.set.annotations;
  if (a.set.log) next.gateLog = [...(e.gateLog ?? []), a.set.log].slice(-20);
  if (a.set.leftGit === null) delete next.leftGit;
  else if (a.set.leftGit) next.leftGit = a.set.leftGit;
  await store.put(next, false);
  if (a.set.log) await recordGate(store, e.id, a.set.log);
}

/**
 * A service-started deployment's gate state lives on its flow's entry, by deployment id
 * (docs/reconcile.md, "Service-driven flows"): merged there as the entry is now.
 */
async function recordServiceGate(
  store: InventoryStore,
  service: { flow: string; deploymentId: string; version: string },
  set: GateStateChange,
  now: string,
): Promise<void> {
  const flow = store.inventory.objects[service.flow];
  if (!flow) return;
  const { hold, ...before } = flow.serviceGates?.[service.deploymentId] ?? { version: service.version };
  const next: ServiceGate = { ...before, ...(set.hold === null ? {} : set.hold ? { hold: set.hold } : hold ? { hold } : {}) };
  if (set.promotion) next.promotion = set.promotion;
  if (set.log) next.gateLog = [...(next.gateLog ?? []), set.log].slice(-20);
  await store.put({ ...flow, serviceGates: { ...flow.serviceGates, [service.deploymentId]: next }, updatedAt: now }, false);
  if (set.log) await recordGate(store, service.deploymentId, set.log);
}

/** The report's history (docs/reports.md#history): the verdict, and the wave a skip-wave reached. */
async function recordGate(store: InventoryStore, deploymentId: string, log: GateLogEntry): Promise<void> {
  const { at, action, wave, by, reason } = log;
  await store.history({ type: 'gate', deploymentId, entry: { at, action, wave, by, reason } });
  if (action === 'skip-wave') await store.history({ type: 'wave', deploymentId, wave: wave + 1, at, by });
}

/** Content file lists longer than this are not kept in the state (the digest still is). */
const MAX_RECORDED_FILES = 2000;

function unknownOp(a: never): never {
  throw new PacksyncError('INTERNAL', `unknown plan action op ${String((a as { op?: unknown }).op)}`);
}

function resolveRef(ref: IdRef, store: InventoryStore): string {
  if ('id' in ref) return ref.id;
  const e = store.inventory.objects[ref.key];
  if (!e) throw new ApplyError('APPLY_MISSING_DEPENDENCY', `${ref.key} has no live id yet`);
  return e.id;
}

/** Waits for an upload task to end, reporting its state while it runs. */
function followUpload(d: ActionDeps, key: string, taskId: string): Promise<void> {
  return waitForUpload(d.api, taskId, d.wait, (s, ms) => d.emit({ type: 'wait', key, what: `upload ${s}`, elapsedMs: ms }), d.signal);
}
