/**
 * Flows, deployments and waves. A flow created from a patch group copies its waves; an empty flow
 * gets one wave over every tenant (chosen: the interface says "empty", but a deployment needs at
 * least one wave to run). Deployment transitions (409 on an invalid one):
 *   NotStarted|Stopped|Failed --start--> Running --stop--> Stopped
 *   Running --skip-wave--> next wave (past the last: Completed)
 *   Running --wave delay elapses--> next wave ... --> Completed
 *   any --update-content--> contentUpdateStatus Running --60 s--> Completed (409 while Running)
 */
import { randomUUID } from 'node:crypto';
import type {
  V1DeploymentViewModel,
  V1FlowDetailsViewModel,
  V1WaveDetailsViewModel,
  V1WaveLiveDataViewModel,
  V1WaveViewModel,
} from '../../api/wire/index.js';
import type { Account, DeploymentRec, FlowRec } from '../account.js';
import { DURATIONS, newDeployment } from '../account.js';
import { deploymentView, flowView } from '../views.js';
import { dotnetTime } from '../clock.js';
import { paged, searchFilter } from '../paging.js';
import { badRequest, conflict, notFound } from '../problems.js';
import { enumInput, isUuid, jsonObject, optBool, optString, optUuid } from '../request.js';
import type { RouteContext, RouteResult, RouteSpec, Router } from '../router.js';
import { FLOW_FLAGS, INSTALLER_SCOPE, WAVE_FLAGS } from '../vocabulary.js';
import { tenantCounts } from '../wave-reports.js';
import { idResponse, templateId } from './catalog.js';

function findFlow(ctx: RouteContext, id: string | undefined, allowDeleted = false): FlowRec {
  const f = id && isUuid(id) ? ctx.account.flows.get(id.toLowerCase()) : undefined;
  if (!f || (f.deleted && !allowDeleted)) throw notFound('Flow', id ?? '');
  return f;
}

function findDeployment(ctx: RouteContext): DeploymentRec {
  const id = ctx.params.id;
  const d = id && isUuid(id) ? ctx.account.deployments.get(id.toLowerCase()) : undefined;
  if (!d) throw notFound('Deployment', id ?? '');
  return d;
}

function flowDetails(a: Account, f: FlowRec): V1FlowDetailsViewModel {
  const deps = deploymentsByAge(a, f);
  const current = currentOf(deps);
  return {
    ...flowView(f, deps.length),
    waves: f.waves,
    deployments: deps.map(deploymentView),
    currentDeployment: current
      ? { id: current.id, packageId: current.packageId, version: current.version, status: current.status, currentWave: current.currentWave }
      : null,
  };
}

function flagsInput(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (Array.isArray(value)) return value.reduce<number>((n, v, i) => n | (enumInput(`flags[${i}]`, v, FLOW_FLAGS) ?? 0), 0);
  throw badRequest('flags', 'flags must be a whole number (bitmask) or a list of flag names.');
}

function findWave(a: Account, id: string | undefined): { flow: FlowRec; wave: V1WaveViewModel } {
  if (id && isUuid(id)) {
    for (const flow of a.flows.values()) {
      const wave = flow.waves.find((w) => w.id === id.toLowerCase());
      if (wave) return { flow, wave };
    }
  }
  throw notFound('Wave', id ?? '');
}

function deploymentsByAge(a: Account, flow: FlowRec): DeploymentRec[] {
  return a.deploymentsOf(flow.id).sort((x, y) => x.created.localeCompare(y.created));
}

/** A flow's current deployment (flow details, wave status): the newest running one, else the newest. */
function currentOf(byAge: DeploymentRec[]): DeploymentRec | undefined {
  return [...byAge].reverse().find((d) => d.status === 'Running') ?? byAge[byAge.length - 1];
}

function waveDeployment(a: Account, flow: FlowRec): DeploymentRec | undefined {
  return currentOf(deploymentsByAge(a, flow));
}

function waveStatus(d: DeploymentRec | undefined, wave: V1WaveViewModel): V1WaveDetailsViewModel['tenants'][number]['status'] {
  if (!d || d.currentWave === 0) return 'Pending';
  if (d.skippedWaves?.includes(wave.index)) return 'Skipped';
  if (d.status === 'Completed' || wave.index < d.currentWave) return 'Completed';
  if (wave.index === d.currentWave) return d.status === 'Failed' ? 'Failed' : d.status === 'Stopped' ? 'Pending' : 'InProgress';
  return 'Pending';
}

/** The wave's flags for the deployment: `requireApproval` as stored, then skipped, else completed, else current (docs/api-model.md). */
function waveFlags(d: DeploymentRec | undefined, wave: V1WaveViewModel): number {
  const stored = wave.flags & WAVE_FLAGS.requireApproval;
  if (!d || d.currentWave === 0) return stored;
  if (d.skippedWaves?.includes(wave.index)) return stored | WAVE_FLAGS.skipped;
  if (d.status === 'Completed' || wave.index < d.currentWave) return stored | WAVE_FLAGS.completed;
  return wave.index === d.currentWave ? stored | WAVE_FLAGS.current : stored;
}

/** Flows, deployments and waves: one handler per operation (method, route, operation name, handler). */
export const FLOW_ROUTES: readonly RouteSpec[] = [
  ['GET', '/v1/flow', 'listFlows', listFlows],
  ['GET', '/v1/flow/:id', 'getFlow', getFlow],
  ['POST', '/v1/flow/create', 'createFlow', createFlow],
  ['POST', '/v1/flow/:id/add-deployment', 'addDeployment', addDeployment],
  ['DELETE', '/v1/flow/:id', 'deleteFlow', deleteFlow],
  ['GET', '/v1/flow/deployment/:id', 'getDeployment', getDeployment],
  ['DELETE', '/v1/flow/deployment/:id', 'deleteDeployment', deleteDeployment],
  ['POST', '/v1/flow/deployment/:id/start', 'startDeployment', startDeployment],
  ['POST', '/v1/flow/deployment/:id/stop', 'stopDeployment', stopDeployment],
  ['POST', '/v1/flow/deployment/:id/refresh', 'refreshDeployment', refreshDeployment],
  ['POST', '/v1/flow/deployment/:id/skip-wave', 'skipWave', skipWave],
  ['POST', '/v1/flow/deployment/:id/update-content', 'updateContent', updateContent],
  ['GET', '/v1/flow/wave/:id', 'getWave', getWave],
  ['GET', '/v1/flow/wave/:id/live', 'getWaveLive', getWaveLive],
];

export function registerFlowRoutes(r: Router): void {
  r.addAll(FLOW_ROUTES);
}

function listFlows(ctx: RouteContext): RouteResult {
  const q = ctx.query;
  const showDeleted = q.bool('showDeleted') ?? false;
  const appId = q.uuid('appId');
  const tenants = new Set(q.uuidList('tenants'));
  let flows = [...ctx.account.flows.values()].filter((f) => showDeleted || !f.deleted);
  if (appId) flows = flows.filter((f) => f.appId === appId);
  if (tenants.size > 0) flows = flows.filter((f) => f.tenantIds.some((t) => tenants.has(t)));
  flows = searchFilter(flows, q, (f) => f.name);
  const counts = new Map<string, number>();
  for (const d of ctx.account.deployments.values()) counts.set(d.flowId, (counts.get(d.flowId) ?? 0) + 1);
  return paged(
    flows.map((f) => flowView(f, counts.get(f.id) ?? 0)),
    q,
  );
}

function getFlow(ctx: RouteContext): RouteResult {
  return { json: flowDetails(ctx.account, findFlow(ctx, ctx.params.id, true)) };
}

function createFlow(ctx: RouteContext): RouteResult {
  const b = jsonObject(ctx.body, ctx.contentType);
  const fx = ctx.account.fixtures;
  const appId = optUuid(b, 'appId');
  const packageId = optUuid(b, 'packageId');
  if (appId && packageId) throw badRequest('packageId', 'Give either appId or packageId, not both.');
  const app = appId ? fx.appsById.get(appId) : undefined;
  if (appId && !app) throw badRequest('appId', `App ${appId} was not found.`);
  const pkg = packageId ? ctx.account.packages.get(packageId) : undefined;
  if (packageId && !pkg) throw badRequest('packageId', `Package ${packageId} was not found.`);
  const patchGroupId = optUuid(b, 'patchGroupId');
  const group = patchGroupId ? fx.patchGroups.find((g) => g.id === patchGroupId) : undefined;
  if (patchGroupId && !group) throw badRequest('patchGroupId', `Patch group ${patchGroupId} was not found.`);
  // Package-based flows normalise scope to machine, as RobopackPS's help says the service does.
  const scope = pkg ? INSTALLER_SCOPE.machine : (enumInput('scope', b.scope, INSTALLER_SCOPE) ?? INSTALLER_SCOPE.machine);
  const shc = b.supersedenceHistoryCount ?? 0;
  if (typeof shc !== 'number' || !Number.isInteger(shc) || shc < 0 || shc > 8)
    throw badRequest('supersedenceHistoryCount', 'supersedenceHistoryCount must be between 0 and 8.');
  const name = (optString(b, 'name') ?? '').trim() || app?.name || pkg?.productName;
  if (!name) throw badRequest('name', 'The name field is required when neither appId nor packageId is given.');
  const id = randomUUID();
  const waveSpecs = group?.waves ?? [{ name: 'All tenants', delayHours: 24, tenantIds: fx.tenants.map((t) => t.id) }];
  const waves: V1WaveViewModel[] = waveSpecs.map((w, i) => ({
    id: randomUUID(),
    flowId: id,
    index: i + 1,
    name: w.name,
    delayHours: w.delayHours,
    flags: 0,
    tenantIds: [...w.tenantIds],
  }));
  const flow: FlowRec = {
    id,
    name,
    created: dotnetTime(ctx.now),
    appId: app?.id ?? pkg?.appId ?? null,
    packageId: pkg?.id ?? null,
    patchGroupId: group?.id ?? null,
    scope,
    flags: flagsInput(b.flags),
    supersedenceHistoryCount: shc,
    templateId: templateId(ctx, 'templateId', optUuid(b, 'templateId')) ?? null,
    deleted: false,
    tenantIds: [...new Set(waves.flatMap((w) => w.tenantIds))],
    deploymentCount: 0,
    waves,
  };
  ctx.account.addFlow(flow);
  return idResponse(ctx, id);
}

function addDeployment(ctx: RouteContext): RouteResult {
  const flow = findFlow(ctx, ctx.params.id);
  const b = jsonObject(ctx.body, ctx.contentType);
  const packageId = optUuid(b, 'packageId');
  if (!packageId) throw badRequest('packageId', 'The packageId field is required.');
  const pkg = ctx.account.packages.get(packageId);
  if (!pkg) throw badRequest('packageId', `Package ${packageId} was not found.`);
  if (flow.appId && pkg.appId !== flow.appId) throw badRequest('packageId', `Package ${packageId} is not a version of this flow's app.`);
  if (pkg.state !== 'Completed') throw conflict(`Package ${packageId} is ${pkg.state}; only a Completed package can be deployed.`);
  const startNow = optBool(b, 'startNow') ?? false;
  const d = newDeployment(flow, packageId, optString(b, 'version', 64) ?? pkg.productVersion, ctx.now);
  ctx.account.addDeployment(d);
  if (startNow) start(ctx.account, d, ctx.now, flow);
  return idResponse(ctx, d.id);
}

function deleteFlow(ctx: RouteContext): RouteResult {
  const flow = findFlow(ctx, ctx.params.id);
  ctx.query.bool('deleteFromIntune');
  flow.deleted = true;
  for (const d of ctx.account.deploymentsOf(flow.id)) ctx.account.removeDeployment(d);
  ctx.account.touch();
  return {};
}

function getDeployment(ctx: RouteContext): RouteResult {
  return {
    json: deploymentView(findDeployment(ctx)) satisfies V1DeploymentViewModel,
  };
}

function deleteDeployment(ctx: RouteContext): RouteResult {
  const d = findDeployment(ctx);
  ctx.query.bool('deleteFromIntune');
  ctx.account.removeDeployment(d);
  return {};
}

function startDeployment(ctx: RouteContext): RouteResult {
  const d = findDeployment(ctx);
  if (d.status === 'Running' || d.status === 'Completed') throw conflict(`Deployment ${d.id} is ${d.status}; it cannot be started.`);
  start(ctx.account, d, ctx.now, ctx.account.flows.get(d.flowId));
  return {};
}

function stopDeployment(ctx: RouteContext): RouteResult {
  const d = findDeployment(ctx);
  if (d.status !== 'Running') throw conflict(`Deployment ${d.id} is ${d.status}; only a Running deployment can be stopped.`);
  ctx.account.setStatus(d, 'Stopped', ctx.now);
  return {};
}

function refreshDeployment(ctx: RouteContext): RouteResult {
  const d = findDeployment(ctx);
  d.refreshedAt = dotnetTime(ctx.now);
  ctx.account.touch();
  return {};
}

function skipWave(ctx: RouteContext): RouteResult {
  const d = findDeployment(ctx);
  if (d.status !== 'Running') throw conflict(`Deployment ${d.id} is ${d.status}; only a Running deployment can skip a wave.`);
  (d.skippedWaves ??= []).push(d.currentWave);
  ctx.account.enterWave(d, d.currentWave + 1, ctx.now, ctx.account.flows.get(d.flowId)?.waves ?? []);
  return {};
}

function updateContent(ctx: RouteContext): RouteResult {
  const d = findDeployment(ctx);
  if (d.contentUpdateStatus === 'Running') throw conflict(`Deployment ${d.id} is already updating its content.`);
  d.contentUpdateStatus = 'Running';
  d.contentDueMs = ctx.now + DURATIONS.contentUpdate * 1000;
  ctx.account.watchDeployment(d);
  return {};
}

function getWave(ctx: RouteContext): RouteResult {
  const { flow, wave } = findWave(ctx.account, ctx.params.id);
  const d = waveDeployment(ctx.account, flow);
  const status = waveStatus(d, wave);
  const fx = ctx.account.fixtures;
  const body: V1WaveDetailsViewModel = {
    ...wave,
    flags: waveFlags(d, wave),
    tenants: wave.tenantIds.map((tenantId) => ({
      tenantId,
      flags: 0,
      status,
      displayName: fx.tenants.find((t) => t.id === tenantId)?.displayName ?? tenantId,
      deviceCount: fx.devices.get(tenantId) ?? 0,
    })),
  };
  return { json: body };
}

function getWaveLive(ctx: RouteContext): RouteResult {
  const { flow, wave } = findWave(ctx.account, ctx.params.id);
  // Counts of the flow's current deployment only (docs/api-model.md): a reader must check deploymentId.
  const d = waveDeployment(ctx.account, flow);
  const entered = d?.waveEnteredMs?.[wave.index - 1];
  const pkg = d ? ctx.account.packages.get(d.packageId) : undefined;
  const subject =
    d && entered !== undefined
      ? { deploymentId: d.id, packageId: d.packageId, appId: pkg?.appId ?? flow.appId, enteredMs: entered, runs: d.runs ?? [] }
      : undefined;
  const body: V1WaveLiveDataViewModel = {
    waveId: wave.id,
    deploymentId: d?.id ?? null,
    updated: dotnetTime(ctx.now),
    tenants: wave.tenantIds.map((tenantId) =>
      subject
        ? tenantCounts(ctx.account.fixtures, ctx.account.outcomes, subject, tenantId, ctx.now)
        : { tenantId, installed: 0, failed: 0, pending: 0, notApplicable: 0 },
    ),
  };
  return { json: body };
}

function start(a: Account, d: DeploymentRec, now: number, flow: FlowRec | undefined): void {
  a.setStatus(d, 'Running', now);
  if (d.currentWave === 0) a.enterWave(d, 1, now, flow?.waves ?? []);
}
