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
import type { FaultInjector } from './faults.js';
import { FaultSpecError, formatFaultSpec, parseFaultSpec } from './faults.js';
import { badRequest, HttpProblem, notFound } from './problems.js';
import type { Query } from './request.js';
import { jsonObject } from './request.js';
import type { RouteResult } from './router.js';
import { DEPLOYMENT_STATUSES, PACKAGE_STATES } from './vocabulary.js';
import { DEFAULT_OUTCOMES, OutcomeSpecError, parseOutcomes } from './wave-reports.js';
import { settleAccount } from './releases.js';
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

export function handleAdmin(
  method: string,
  path: string,
  query: Query,
  body: Buffer,
  contentType: string | undefined,
  d: AdminDeps,
): RouteResult {
  const parts = path.split('/').filter(Boolean); // ['_sim', ...]
  const route = `${method} /${parts.slice(1).join('/')}`;
  const a = d.account;
  const release = releaseRoute(route, a, { bytes: body, contentType }, d.clock.now());
  if (release) return release;
  switch (route) {
    case 'GET /journal': {
      const writes = query.bool('writes') ?? false;
      const entries = writes ? d.journal.filter((e) => e.method !== 'GET') : d.journal;
      // `?count=true`: just the length, so a benchmark counting 20,000 calls does not have to
      // download and parse them (that would count in the RSS it measures).
      return { json: query.bool('count') ? { count: entries.length } : entries };
    }
    case 'GET /clock':
      return { json: clockView(d.clock) };
    case 'POST /clock': {
      const b = jsonObject(body, contentType);
      const s = b.advanceSeconds;
      if (typeof s !== 'number' || !Number.isFinite(s) || s < 0)
        throw badRequest('advanceSeconds', 'advanceSeconds must be a number >= 0.');
      d.clock.advance(s);
      settleAccount(a, d.clock.now());
      return { json: clockView(d.clock) };
    }
    case 'GET /faults':
      return { json: { spec: formatFaultSpec(d.faults.spec), ...d.faults.spec } };
    case 'PUT /faults': {
      try {
        d.faults.set(parseFaultSpec(body.toString('utf8')));
      } catch (e) {
        if (e instanceof FaultSpecError) throw badRequest('faults', e.message);
        throw e;
      }
      return { json: { spec: formatFaultSpec(d.faults.spec), ...d.faults.spec } };
    }
    case 'POST /reset':
      d.reset();
      return {};
    case 'GET /state':
      settleAccount(a, d.clock.now());
      return {
        json: {
          packages: [...a.packages.values()].map(({ uploads: _u, dueMs: _d, createdMs: _c, failure: _f, ...p }) => p),
          flows: [...a.flows.values()],
          deployments: [...a.deployments.values()].map(deploymentView),
          uploads: [...a.tasks.values()].map(taskView),
        },
      };
    case 'GET /fixtures': {
      const fx = a.fixtures;
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
    case 'GET /outcomes': {
      const last = a.outcomes[a.outcomes.length - 1];
      return { json: last ? last.given : DEFAULT_OUTCOMES };
    }
    case 'PUT /outcomes': {
      const given = jsonObject(body, contentType);
      let spec;
      try {
        spec = parseOutcomes(given);
      } catch (e) {
        if (e instanceof OutcomeSpecError) throw badRequest('outcomes', e.message);
        throw e;
      }
      // Devices that reported keep their outcome: the rules decide only reports from now on.
      settleAccount(a, d.clock.now());
      a.setOutcomes({ at: d.clock.now(), spec, given });
      return { json: given };
    }
    case 'POST /sink':
      return { json: { bytes: body.length } };
    default:
      break;
  }
  if (method === 'POST' && parts[1] === 'deployments' && parts[3] === 'status' && parts.length === 4) {
    const dep = a.deployments.get(parts[2]!.toLowerCase());
    if (!dep) throw notFound('Deployment', parts[2]!);
    const b = jsonObject(body, contentType);
    const status = b.status as DeploymentStatus;
    if (!DEPLOYMENT_STATUSES.includes(status)) throw badRequest('status', `status must be one of ${DEPLOYMENT_STATUSES.join(', ')}.`);
    a.setStatus(dep, status, d.clock.now());
    if (typeof b.currentWave === 'number') dep.currentWave = b.currentWave;
    return { json: deploymentView(dep) };
  }
  if (method === 'POST' && parts[1] === 'packages' && parts[3] === 'state' && parts.length === 4) {
    const p = a.packages.get(parts[2]!.toLowerCase());
    if (!p) throw notFound('Package', parts[2]!);
    const b = jsonObject(body, contentType);
    const state = b.state as PackageState;
    if (!PACKAGE_STATES.includes(state)) throw badRequest('state', `state must be one of ${PACKAGE_STATES.join(', ')}.`);
    p.state = state;
    p.dueMs = null;
    p.errorDetails =
      typeof b.errorDetails === 'string' ? b.errorDetails : state === 'Error' ? 'Processing failed (set by the simulator admin).' : null;
    a.touch();
    return { json: { id: p.id, state: p.state } };
  }
  throw new HttpProblem(
    404,
    `No admin route ${method} ${path}. Known: GET /_sim/journal, GET|POST /_sim/clock, GET|PUT /_sim/faults, GET|PUT /_sim/outcomes, POST /_sim/reset, GET /_sim/state, GET /_sim/fixtures, POST /_sim/deployments/{id}/status, POST /_sim/packages/{id}/state, POST /_sim/sink.`,
  );
}

function clockView(c: VirtualClock): { now: string; epochMs: number; timeScale: number } {
  const now = c.now();
  return { now: dotnetTime(now), epochMs: Math.round(now), timeScale: c.scale };
}
