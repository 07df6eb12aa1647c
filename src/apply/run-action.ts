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

export async function runAction(a: PlanAction, d: ActionDeps): Promise<void> {
  const { api, store } = d;
  const opts = d.signal ? { signal: d.signal } : {};
  const at = (): string => d.now().toISOString();
  const entryBase = (
    kind: InventoryEntry['kind'],
    id: string,
    record: { specHash: string; spec: unknown; annotations?: Record<string, string>; file?: string },
  ): InventoryEntry => ({
    kind,
    name: a.key.slice(a.key.indexOf('/') + 1),
    id,
    specHash: record.specHash,
    spec: record.spec,
    revision: d.revision,
    ...(record.annotations ? { annotations: record.annotations } : {}),
    ...(record.file !== undefined ? { file: record.file } : {}),
    updatedAt: at(),
  });
  const intent = async (match: Record<string, string>, knownIds: string[]): Promise<void> => {
    const i: Intent = { key: a.key, op: a.op, at: at(), knownIds, match };
    await store.setIntent(i);
  };

  switch (a.op) {
    case OP.importPackage: {
      await intent(a.match, a.knownIds);
      const id = await createOnce(
        d,
        () => api.importApp(a.appId, a.query, opts),
        async () => {
          const pkgs = (await api.listPackages({ disablePaging: true, appId: a.appId }, opts)).items;
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
      await store.put(entryBase('Package', id, a.record));
      return;
    }
    case OP.createPackage: {
      await intent(a.match, a.knownIds);
      const id = await createOnce(
        d,
        async () => (await api.createPackage(a.body, opts)).id,
        async () => {
          const pkgs = (await api.listPackages({ disablePaging: true, search: a.match.name }, opts)).items;
          return pkgs.find(
            (p) => p.isCustom && p.productName === a.match.name && p.productVersion === a.match.version && !a.knownIds.includes(p.id),
          )?.id;
        },
      );
      await store.put({
        ...entryBase('Package', id, a.record),
        phase: 'created',
        ...(a.record.contentDigest ? { contentDigest: a.record.contentDigest } : {}),
      });
      return;
    }
    case OP.uploadContent: {
      const id = resolveRef({ key: a.packageKey }, store);
      await uploadContentDirectory(countedChunks(api, d.countWrite), id, a.dir, {
        ...opts,
        expectDigest: a.digest,
        onProgress: (p) => d.emit({ type: 'upload-progress', key: a.key, ...p }),
      });
      // The digest of the bytes the upload sent and checked, never only the planned one.
      const files = a.files && a.files.length <= MAX_RECORDED_FILES ? { contentFiles: a.files } : {};
      await store.patch(a.key, { phase: 'uploaded', contentDigest: a.digest, ...files, updatedAt: at() });
      return;
    }
    case OP.waitPackage:
      await waitForPackage(
        api,
        resolveRef({ key: a.packageKey }, store),
        d.wait,
        (s, ms) => d.emit({ type: 'wait', key: a.key, what: `package ${s}`, elapsedMs: ms }),
        d.signal,
      );
      return;
    case OP.createFlow: {
      const body = { ...a.body };
      if (a.packageRef) body.packageId = resolveRef(a.packageRef, store);
      await intent(a.match, a.knownIds);
      const id = await createOnce(
        d,
        () => api.createFlow(body, opts),
        async () => {
          const flows = (await api.listFlows({ disablePaging: true, search: a.match.name }, opts)).items;
          return flows.find((f) => !f.deleted && f.name === a.match.name && !a.knownIds.includes(f.id))?.id;
        },
      );
      await store.put(entryBase('Flow', id, a.record));
      return;
    }
    case OP.deleteFlow:
      return deleteOwned(d, a.key, a.flowId, () => api.deleteFlow(a.flowId, {}, opts), a.forget);
    case OP.addDeployment: {
      const flowId = resolveRef(a.flowRef, store);
      const packageId = resolveRef(a.packageRef, store);
      await intent({ flowId, packageId }, []);
      const body = { packageId, startNow: a.startNow, ...(a.version !== undefined ? { version: a.version } : {}) };
      const id = await createOnce(
        d,
        () => api.addDeployment(flowId, body, opts),
        async () => {
          const flow = await api.getFlow(flowId, opts);
          return flow.deployments.find((x) => x.packageId === packageId)?.id;
        },
      );
      const { appliedState, contentRevision, windows, ...record } = a.record;
      await store.put({
        ...entryBase('Deployment', id, record),
        flowId,
        packageId,
        appliedState,
        ...(contentRevision !== undefined ? { contentRevision } : {}),
        ...(windows ? { windows } : {}),
      });
      return;
    }
    case OP.start:
    case OP.stop: {
      const id = resolveRef(a.deploymentRef, store);
      d.countWrite();
      // A retried call whose first attempt took effect answers 409: the live status says whether it did.
      return writeOnce({
        call: () => (a.op === OP.start ? api.startDeployment(id, opts) : api.stopDeployment(id, opts)),
        codes: ['API_CONFLICT', 'API_OUTCOME_UNKNOWN'],
        landed: async () => {
          const live = await api.getDeployment(id, opts);
          return a.op === OP.start ? live.status === 'Running' || live.status === 'Completed' : live.status === 'Stopped';
        },
      });
    }
    case OP.skipWave: {
      const id = resolveRef(a.deploymentRef, store);
      const live = await api.getDeployment(id, opts);
      if (live.status !== 'Running' || live.currentWave >= a.untilWave) return;
      // skip-wave is not idempotent: after a lost answer it is sent again only if the first did not land.
      return writeOnce({
        call: () => (d.countWrite(), api.skipWave(id, opts)),
        codes: ['API_OUTCOME_UNKNOWN'],
        landed: async () => {
          const after = await api.getDeployment(id, opts);
          return after.currentWave >= a.untilWave || after.status !== 'Running';
        },
        again: true,
      });
    }
    case OP.updateContent: {
      const id = resolveRef(a.deploymentRef, store);
      d.countWrite();
      return writeOnce({
        call: () => api.updateContent(id, opts),
        codes: ['API_CONFLICT', 'API_OUTCOME_UNKNOWN'],
        landed: async () => {
          const live = await api.getDeployment(id, opts);
          return live.contentUpdateStatus === 'Running' || live.contentUpdateStatus === 'Completed';
        },
      });
    }
    case OP.deleteDeployment:
      return deleteOwned(d, a.key, a.deploymentId, () => api.deleteDeployment(a.deploymentId, {}, opts));
    case OP.tenantUpload: {
      const packageId = resolveRef(a.packageRef, store);
      const before = (await api.listTenantUploads(a.tenantId, { disablePaging: true }, opts)).items;
      const knownIds = before.filter((t) => t.packageId === packageId).map((t) => t.id);
      await intent({ tenantId: a.tenantId, packageId }, knownIds);
      const taskId = await createOnce(
        d,
        async () => (await api.uploadToTenant(a.tenantId, { packageId, uploadMsixAsWin32: a.uploadMsixAsWin32, wait: false }, opts)).id,
        async () => {
          const after = (await api.listTenantUploads(a.tenantId, { disablePaging: true }, opts)).items;
          return after.find((t) => t.packageId === packageId && !knownIds.includes(t.id))?.id;
        },
      );
      await store.put({ ...entryBase('TenantUpload', taskId, a.record), tenantId: a.tenantId, packageId });
      return followUpload(d, a.key, taskId);
    }
    case OP.waitUpload:
      return followUpload(d, a.key, a.taskId);
    case OP.record:
      await store.put({ ...a.entry, revision: d.revision, updatedAt: at() }, a.resolvesIntent);
      return;
    case OP.forget:
      await store.remove(a.key);
      return;
    case OP.gate: {
      if (a.service) return recordServiceGate(store, a.service, a.set, at());
      // Merged into the entry as it is now (after this object's record), never from the plan's copy.
      const e = store.inventory.objects[a.key];
      if (!e) return;
      const next: InventoryEntry = { ...e, updatedAt: at() };
      if (a.set.promotion) next.promotion = a.set.promotion;
      if (a.set.hold === null) delete next.hold;
      else if (a.set.hold) next.hold = a.set.hold;
      if (a.set.appliedState !== undefined) next.appliedState = a.set.appliedState;
      if (a.set.log) next.gateLog = [...(e.gateLog ?? []), a.set.log].slice(-20);
      await store.put(next, false);
      if (a.set.log) await recordGate(store, e.id, a.set.log);
      return;
    }
    default:
      // Exhaustive over the op table (plan/ops.ts): an op without a case here does not compile.
      return unknownOp(a);
  }
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
