/**
 * Faults: the simulator answers 10 % of calls with 500/502/503, 5 % with 429, destroys 2 % of the
 * connections (half before the call takes effect, half after: a lost response), and adds latency,
 * while packsync converges the large fleet. The end state must equal a run without faults, with no
 * duplicate, and no request may be tried more often than the client's retry limit allows.
 * Full run (`npm run test:reliability`): 500 flows, 1,000 deployments, 500 packages; default run:
 * 60 flows, 120 deployments, 60 packages.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient, RequestEvent } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { RetryPolicy } from '../../src/api/retry.js';
import { INSTALLER_SCOPE } from '../../src/api/wire/index.js';
import { reconcile } from '../../src/engine/reconcile.js';
import { DEFAULT_PLAN_OPTIONS } from '../../src/plan/types.js';
import { writeFleet } from '../support/fleet.js';
import type { DeploymentState, FleetShape } from '../support/fleet.js';
import { PILOT_FIRST } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { countBy, normalisePath, startTestSimulator } from '../support/sim.js';
import type { JournalEntry, TestSim } from '../support/sim.js';
import { converge } from './support/converge.js';
import type { ConvergeResult } from './support/converge.js';
import { count, FULL, report } from './support/env.js';
import { duplicates, normalise } from './support/state.js';

const FAULTS = '5xx=0.1,429=0.05,reset=0.02,latency=5ms';
const APPS = count(250, 30, 'PACKSYNC_FAULT_APPS');
const FLOWS_PER_APP = 2;
/** Virtual seconds per real second: imports finish in about half a second, while a wave (24 h) never elapses during the test. */
const TIME_SCALE = 60;
const CREATES = new Set([
  'POST /v1/app/import/{id}',
  'POST /v1/flow/create',
  'POST /v1/flow/{id}/add-deployment',
  'POST /v1/package/create',
  'POST /v1/tenant/{id}/upload',
]);

const SECOND_STATES: DeploymentState[] = ['running', 'pending', 'stopped'];

/**
 * `apps` catalog apps, two packages each (its two versions), `flowsPerApp` flows per app deploying
 * both. The first flow of an app inherits the three-wave "Pilot first" patch group and gates its
 * first deployment at wave 2 (one skip-wave, a call that is NOT safe to repeat); the second
 * deployment of the f-th flow of app i is running, pending or stopped by (i + f) mod 3.
 */
function faultFleet(apps: number, flowsPerApp: number): FleetShape {
  const first = (flow: number): boolean => flow < apps;
  return {
    flows: apps * flowsPerApp,
    deploymentsPerFlow: 2,
    packages: apps * 2,
    patchGroup: (flow) => (first(flow) ? PILOT_FIRST : undefined),
    wave: (flow, k) => (first(flow) && k === 0 ? 2 : undefined),
    state: (flow, k) => (k === 0 ? 'running' : SECOND_STATES[((flow % apps) + Math.floor(flow / apps)) % SECOND_STATES.length]!),
  };
}

interface Run {
  sim: TestSim;
  result: ConvergeResult;
  journal: JournalEntry[];
}

async function runOnce(repo: string, faults: string | undefined): Promise<Run> {
  const sim = await startTestSimulator({ fleet: 'large', timeScale: TIME_SCALE, latencyMs: 5, ...(faults ? { faults } : {}) });
  const result = await converge(sim.url, sim.key, repo);
  return { sim, result, journal: await sim.journal() };
}

function attemptsSummary(events: readonly RequestEvent[]): {
  requests: number;
  attempts: number;
  retries: number;
  maxAttempt: number;
  byStatus: Record<string, number>;
} {
  return {
    requests: events.filter((e) => e.attempt === 1).length,
    attempts: events.length,
    retries: events.filter((e) => e.attempt > 1).length,
    maxAttempt: Math.max(0, ...events.map((e) => e.attempt)),
    byStatus: countBy(events.filter((e) => e.status === null || e.status >= 300).map((e) => String(e.status ?? e.error ?? 'none'))),
  };
}

function faultsIn(journal: readonly JournalEntry[]): Record<string, number> {
  return countBy(journal.flatMap((e) => ((e as { fault?: string }).fault ? [(e as { fault?: string }).fault!] : [])));
}

function lostCreates(journal: readonly JournalEntry[]): string[] {
  return journal
    .filter((e) => (e as { fault?: string }).fault === 'reset-after' && e.status >= 200 && e.status < 300)
    .map((e) => `${e.method} ${normalisePath(e.path)}`)
    .filter((k) => CREATES.has(k));
}

describe('faults', () => {
  it(`converges the large fleet (${APPS * FLOWS_PER_APP} flows, ${APPS * FLOWS_PER_APP * 2} deployments) under ${FAULTS} to the same state as without faults`, async () => {
    const fleet = await writeFleet(faultFleet(APPS, FLOWS_PER_APP));
    const clean = await runOnce(fleet.dir, undefined);
    const faulty = await runOnce(fleet.dir, FAULTS);
    try {
      expect(clean.result.failures, 'no failure without faults').toEqual([]);
      expect(clean.result.converged).toBe(true);
      expect(faulty.result.converged, `converged under faults; failures seen: ${faulty.result.failures.slice(0, 5).join(' | ')}`).toBe(
        true,
      );

      const cleanState = await clean.sim.state();
      const faultyState = await faulty.sim.state();
      expect(duplicates(cleanState)).toEqual([]);
      expect(duplicates(faultyState)).toEqual([]);
      const a = normalise(cleanState);
      const b = normalise(faultyState);
      expect(a.flows).toHaveLength(fleet.flows);
      expect(a.deployments).toHaveLength(fleet.deployments);
      expect(a.packages).toHaveLength(fleet.packages);
      expect(b).toEqual(a);

      // Every retry is bounded: no request was tried more often than the client's limit.
      const limit = new RetryPolicy().maxAttempts;
      const att = attemptsSummary(faulty.result.events);
      expect(att.maxAttempt).toBeLessThanOrEqual(limit);
      expect(att.retries).toBeGreaterThan(0);

      const faults = faultsIn(faulty.journal);
      expect(faults['5xx'] ?? 0).toBeGreaterThan(0);
      expect(faults['429'] ?? 0).toBeGreaterThan(0);
      const lost = lostCreates(faulty.journal);
      // A thousand creates at 1 % lost answers make a lost create certain in the full run; the
      // reduced run has too few creates for that, and the next test forces them.
      if (FULL) expect(lost.length).toBeGreaterThan(0);

      const cleanAtt = attemptsSummary(clean.result.events);
      await report('faults', {
        faults: FAULTS,
        fleet: { flows: fleet.flows, deployments: fleet.deployments, packages: fleet.packages },
        clean: { ms: Math.round(clean.result.ms), passes: clean.result.passes, requests: cleanAtt.requests, journal: clean.journal.length },
        faulty: {
          ms: Math.round(faulty.result.ms),
          passes: faulty.result.passes,
          requests: att.requests,
          attempts: att.attempts,
          retries: att.retries,
          maxAttemptsPerRequest: att.maxAttempt,
          clientLimit: limit,
          failedAttemptsByStatus: att.byStatus,
          journal: faulty.journal.length,
          injected: faults,
          lostCreateResponses: countBy(lost),
          passFailures: faulty.result.failures.length,
        },
        extraMs: Math.round(faulty.result.ms - clean.result.ms),
        slowdown: Math.round((faulty.result.ms / clean.result.ms) * 100) / 100,
      });
    } finally {
      await clean.sim.close();
      await faulty.sim.close();
    }
  });

  it('never duplicates a create whose response was lost after it took effect (reset=0.25)', async () => {
    // About fifty creates at 12.5 % lost answers each: a lost create is all but certain.
    const fleet = await writeFleet(faultFleet(6, 2));
    const clean = await runOnce(fleet.dir, undefined);
    const lossy = await runOnce(fleet.dir, 'reset=0.25,latency=2ms');
    try {
      expect(lossy.result.converged, lossy.result.failures.join(' | ')).toBe(true);
      const lost = lostCreates(lossy.journal);
      expect(lost.length, 'the simulator destroyed the connection after at least one create took effect').toBeGreaterThan(0);
      const state = await lossy.sim.state();
      expect(duplicates(state)).toEqual([]);
      expect(normalise(state)).toEqual(normalise(await clean.sim.state()));
      expect(attemptsSummary(lossy.result.events).maxAttempt).toBeLessThanOrEqual(new RetryPolicy().maxAttempts);
      await report('faults-lost-responses', {
        faults: 'reset=0.25',
        lostCreateResponses: countBy(lost),
        passes: lossy.result.passes,
        injected: faultsIn(lossy.journal),
      });
    } finally {
      await clean.sim.close();
      await lossy.sim.close();
    }
  });

  /**
   * Regression: a catalog package used to be identified by app and version only, so two Package
   * manifests of one app version that differ in installer scope were not told apart. When the
   * answer to one import was lost and the sibling's import had taken effect first, the lookup
   * adopted the sibling: both manifests pointed at one live package and the flow got it twice.
   * The natural key now includes the scope (src/live/identity.ts `packageNaturalKey`). Reproduced
   * deterministically here (the lost answer is staged by wrapping the client).
   */
  it('keeps machine- and user-scope packages of one version apart after a lost import answer (regression)', async () => {
    const sim = await startTestSimulator({ timeScale: 600 });
    const real = createApiClient({ baseUrl: sim.url, apiKey: sim.key, concurrency: 4 });
    try {
      const repo = await tempDir('packsync-scope-');
      const pkg = (name: string, scope: string): string =>
        `apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: ${name}\nspec:\n  catalog:\n    app: 7-Zip\n    version: "24.08"\n    scope: ${scope}\n`;
      const dep = (name: string, p: string): string =>
        `apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  flow: seven-zip\n  package: ${p}\n  state: pending\n`;
      await writeFile(
        join(repo, 'all.yaml'),
        [
          pkg('zip-machine', 'machine'),
          pkg('zip-user', 'user'),
          'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: seven-zip\nspec:\n  app: 7-Zip\n',
          dep('d-machine', 'zip-machine'),
          dep('d-user', 'zip-user'),
        ].join('---\n'),
      );
      let userImported = (): void => undefined;
      const userDone = new Promise<void>((r) => (userImported = r));
      let staged = false;
      const importApp: ApiClient['importApp'] = async (appId, query, opts) => {
        if (query?.scope === INSTALLER_SCOPE.user) {
          const id = await real.importApp(appId, query, opts);
          userImported();
          return id;
        }
        if (staged) return real.importApp(appId, query, opts);
        staged = true;
        // The sibling's import lands first; then this import takes effect and its answer is lost.
        await userDone;
        await real.importApp(appId, query, opts);
        throw new ApiError('API_OUTCOME_UNKNOWN', 'importApp: connection lost (ECONNRESET); the request may have taken effect', {
          operation: 'importApp',
        });
      };
      const api = new Proxy(real, {
        get: (target, prop, receiver): unknown => {
          if (prop === 'importApp') return importApp;
          const v: unknown = Reflect.get(target, prop, receiver);
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      const stateDir = await tempDir('packsync-scope-state-');
      for (let pass = 0; pass < 3; pass++) {
        await reconcile({
          path: repo,
          api,
          stateDir,
          planOptions: DEFAULT_PLAN_OPTIONS,
          apply: true,
          applyOptions: { concurrency: 4, wait: { intervalMs: 50, maxIntervalMs: 200 } },
        });
      }
      expect(staged).toBe(true);
      const state = await sim.state();
      expect(duplicates(state)).toEqual([]);
      expect(normalise(state).deployments.map((d) => d.replace(/ catalog \S+ /, ' '))).toEqual([
        'seven-zip 24.08 machine NotStarted wave 0',
        'seven-zip 24.08 user NotStarted wave 0',
      ]);
    } finally {
      await real.close();
      await sim.close();
    }
  });
});
