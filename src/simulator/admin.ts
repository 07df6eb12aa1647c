/**
 * The admin surface outside `/v1`, guarded by the same key and scoped to that key's account:
 * journal, virtual clock, faults, reset, a state dump for assertions, and hooks that play the part
 * of a human in the web console (stop a deployment, fail a package).
 */
import type { DeploymentStatus, PackageState } from '../api/wire/index.js';
import type { Account } from './account.js';
import { deploymentView, taskView } from './views.js';
import type { VirtualClock } from './clock.js';
import { dotnetTime } from './clock.js';
import type { FaultInjector, FaultSpec } from './faults.js';
import { FaultSpecError, formatFaultSpec, parseFaultSpec } from './faults.js';
import { badRequest, HttpProblem, notFound } from './problems.js';
import type { Query } from './request.js';
import { jsonObject } from './request.js';
import type { RouteResult } from './router.js';
import { DEPLOYMENT_STATUSES, PACKAGE_STATES } from './vocabulary.js';
import { DEFAULT_OUTCOMES, OutcomeSpecError, parseOutcomes } from './wave-reports.js';
import { settleAccount, withLatest } from './releases.js';
import { releaseRoute } from './release-routes.js';

export interface JournalEntry {
  seq: number;
  /** The real clock when the call arrived (ISO). */
  time: string;
  /** The virtual clock at that moment (ISO): what the call's `Date` header says, to the millisecond. */
  serviceTime: string;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  status: number;
  /** Set when a fault was injected: `5xx`, `429`, `reset-before`, `reset-after`, `rate-limit`. */
  fault?: string;
}

export interface AdminDeps {
  account: Account;
  journal: JournalEntry[];
  clock: VirtualClock;
  faults: FaultInjector;
  reset: () => void;
}

/** One admin request: the path's parts after `_sim`, its query and body. */
export interface AdminRequest {
  method: string;
  path: string;
  query: Query;
  body: Buffer;
  contentType: string | undefined;
}

type AdminHandler = (req: AdminRequest & { parts: string[] }, d: AdminDeps) => RouteResult;

/** The admin routes, `METHOD /route` (under `/_sim`) to handler; `:id` matches one path segment. */
const ADMIN_ROUTES: Record<string, AdminHandler> = {
  'GET /journal': journal,
  'GET /clock': (_req, d) => ({ json: clockView(d.clock) }),
  'POST /clock': advanceClock,
  'GET /faults': (_req, d) => ({ json: faultsView(d.faults.spec) }),
  'PUT /faults': setFaults,
  'GET /outcomes': (_req, d) => ({ json: d.account.outcomes[d.account.outcomes.length - 1]?.given ?? DEFAULT_OUTCOMES }),
  'PUT /outcomes': setOutcomes,
  'POST /reset': (_req, d) => {
    d.reset();
    return {};
  },
  'GET /state': stateDump,
  'GET /fixtures': fixturesView,
  'GET /releases': (req, d) => releaseRoute('GET /releases', d.account, { bytes: req.body, contentType: req.contentType }, d.clock.now())!,
  'POST /releases': (req, d) =>
    releaseRoute('POST /releases', d.account, { bytes: req.body, contentType: req.contentType }, d.clock.now())!,
  'POST /deployments/:id/status': setDeploymentStatus,
  'POST /packages/:id/state': setPackageState,
  'POST /sink': (req) => ({ json: { bytes: req.body.length } }),
};

export function handleAdmin(req: AdminRequest, d: AdminDeps): RouteResult {
  const parts = req.path.split('/').filter(Boolean).slice(1); // after '_sim'
  const handler = ADMIN_ROUTES[`${req.method} /${parts.join('/')}`] ?? ADMIN_ROUTES[withIdParam(req.method, parts)];
  if (handler) return handler({ ...req, parts }, d);
  const known = Object.keys(ADMIN_ROUTES).map((r) => r.replace(' /', ' /_sim/').replace(':id', '{id}'));
  throw new HttpProblem(404, `No admin route ${req.method} ${req.path}. Known: ${known.join(', ')}.`);
}

/** `POST /deployments/:id/status` for `POST /deployments/<id>/status`: the second part is the id. */
function withIdParam(method: string, parts: string[]): string {
  return parts.length === 3 ? `${method} /${parts[0]}/:id/${parts[2]}` : '';
}

/** The mutating methods `?writes=true` keeps: HEAD and OPTIONS read like GET. */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function journal(req: AdminRequest, d: AdminDeps): RouteResult {
  const writes = req.query.bool('writes') ?? false;
  const entries = writes ? d.journal.filter((e) => WRITE_METHODS.has(e.method)) : d.journal;
  // `?count=true`: just the length, so a benchmark counting 20,000 calls does not have to
  // download and parse them (that would count in the RSS it measures).
  return { json: req.query.bool('count') ? { count: entries.length } : entries };
}

function advanceClock(req: AdminRequest, d: AdminDeps): RouteResult {
  const b = jsonObject(req.body, req.contentType);
  const s = b.advanceSeconds ?? 0;
  if (typeof s !== 'number' || !Number.isFinite(s) || s < 0) throw badRequest('advanceSeconds', 'advanceSeconds must be a number >= 0.');
  const scale = b.timeScale;
  if (scale !== undefined && (typeof scale !== 'number' || !Number.isFinite(scale) || scale < 1))
    throw badRequest('timeScale', 'timeScale must be a number >= 1 (virtual seconds per real second).');
  if (b.advanceSeconds === undefined && scale === undefined) throw badRequest('advanceSeconds', 'advanceSeconds or timeScale is required.');
  if (scale !== undefined) d.clock.setScale(scale);
  d.clock.advance(s);
  settleAccount(d.account, d.clock.now());
  return { json: clockView(d.clock) };
}

function setFaults(req: AdminRequest, d: AdminDeps): RouteResult {
  try {
    d.faults.set(parseFaultSpec(req.body.toString('utf8')));
  } catch (e) {
    if (e instanceof FaultSpecError) throw badRequest('faults', e.message);
    throw e;
  }
  return { json: faultsView(d.faults.spec) };
}

function setOutcomes(req: AdminRequest, d: AdminDeps): RouteResult {
  const given = jsonObject(req.body, req.contentType);
  let spec;
  try {
    spec = parseOutcomes(given);
  } catch (e) {
    if (e instanceof OutcomeSpecError) throw badRequest('outcomes', e.message);
    throw e;
  }
  // Devices that reported keep their outcome: the rules decide only reports from now on.
  settleAccount(d.account, d.clock.now());
  d.account.setOutcomes({ at: d.clock.now(), spec, given });
  return { json: given };
}

function stateDump(_req: AdminRequest, d: AdminDeps): RouteResult {
  const a = d.account;
  settleAccount(a, d.clock.now());
  return {
    json: {
      packages: [...a.packages.values()].map(({ uploads: _u, dueMs: _d, createdMs: _c, failure: _f, ...p }) => withLatest(a, p)),
      flows: [...a.flows.values()],
      deployments: [...a.deployments.values()].map(deploymentView),
      uploads: [...a.tasks.values()].map(taskView),
    },
  };
}

function fixturesView(_req: AdminRequest, d: AdminDeps): RouteResult {
  const fx = d.account.fixtures;
  return {
    json: {
      seed: fx.seed,
      fleet: fx.fleet,
      tenants: fx.tenants.map((t) => ({
        id: t.id,
        displayName: t.displayName,
        defaultDomain: t.defaultDomain,
        devices: fx.devices.get(t.id) ?? 0,
      })),
      patchGroups: fx.patchGroups,
      templates: fx.templates.map((t) => ({ id: t.id, name: t.name })),
      apps: fx.apps.length,
    },
  };
}

/** Plays the console's part: a person stopped, completed or failed a deployment. */
function setDeploymentStatus(req: AdminRequest & { parts: string[] }, d: AdminDeps): RouteResult {
  const dep = d.account.deployments.get(req.parts[1]!.toLowerCase());
  if (!dep) throw notFound('Deployment', req.parts[1]!);
  const b = jsonObject(req.body, req.contentType);
  const status = b.status as DeploymentStatus;
  if (!DEPLOYMENT_STATUSES.includes(status)) throw badRequest('status', `status must be one of ${DEPLOYMENT_STATUSES.join(', ')}.`);
  d.account.setStatus(dep, status, d.clock.now());
  if (typeof b.currentWave === 'number') dep.currentWave = b.currentWave;
  return { json: deploymentView(dep) };
}

/** Plays the service's part: a package's processing ended (or failed) now. */
function setPackageState(req: AdminRequest & { parts: string[] }, d: AdminDeps): RouteResult {
  const p = d.account.packages.get(req.parts[1]!.toLowerCase());
  if (!p) throw notFound('Package', req.parts[1]!);
  const b = jsonObject(req.body, req.contentType);
  const state = b.state as PackageState;
  if (!PACKAGE_STATES.includes(state)) throw badRequest('state', `state must be one of ${PACKAGE_STATES.join(', ')}.`);
  p.state = state;
  p.dueMs = null;
  p.errorDetails =
    typeof b.errorDetails === 'string' ? b.errorDetails : state === 'Error' ? 'Processing failed (set by the simulator admin).' : null;
  d.account.touch();
  return { json: { id: p.id, state: p.state } };
}

function clockView(c: VirtualClock): { now: string; epochMs: number; timeScale: number } {
  const now = c.now();
  return { now: dotnetTime(now), epochMs: Math.round(now), timeScale: c.scale };
}

/**
 * The faults as JSON: the flag string, each key of the spec as design §6 names it (`latency` as a
 * duration, like the flag's), and `latencyMs` as a number for scripts that want one.
 */
function faultsView(spec: FaultSpec): Record<string, unknown> {
  return { spec: formatFaultSpec(spec), ...spec, latency: `${spec.latencyMs}ms` };
}
