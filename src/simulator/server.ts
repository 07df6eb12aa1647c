/**
 * The API simulator's HTTP server: all 38 operations of the v1 interface, one isolated account per
 * API key, a virtual clock, fault injection, a client-visible rate limit, a journal of every call,
 * and an admin surface under `/_sim`. It imports only wire types from `src/api/`, never packsync's
 * planner or client, so a bug in our logic is not mirrored by the fake it is tested against.
 *
 * This file builds the runtime, listens and closes; `dispatch.ts` serves one request (key, body,
 * faults, rate limit, journal, route); the account slots, the body reader, the answer writers and
 * the save loop sit beside it.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { VirtualClock } from './clock.js';
import { FaultInjector, NO_FAULTS, parseFaultSpec } from './faults.js';
import type { FaultSpec } from './faults.js';
import { buildFixtures } from './fixtures.js';
import type { FleetSize } from './fixtures.js';
import { loadState, startSaveLoop } from './persistence.js';
import type { PersistedState } from './persistence.js';
import { Router } from './router.js';
import type { ResponseStyle } from './router.js';
import { createSlots } from './slots.js';
import { handleRequest } from './dispatch.js';
import type { SimRuntime } from './dispatch.js';
import { registerCatalogRoutes } from './routes/catalog.js';
import { registerFlowRoutes } from './routes/flows.js';
import { registerPackageRoutes } from './routes/packages.js';
import { registerTenantRoutes } from './routes/tenants.js';

export interface SimulatorOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** One isolated account per key. Default: `sim-key`. */
  apiKeys?: string[];
  fleet?: FleetSize;
  seed?: number;
  /** Added to every `/v1` request. */
  latencyMs?: number;
  faults?: string | FaultSpec;
  /** Requests per second per account; over it the answer is 429 with `Retry-After`. */
  rateLimit?: number;
  /** Virtual seconds per real second. */
  timeScale?: number;
  /** Virtual time at start (ms since the epoch); default now. Tests of change windows start at a chosen date (docs/policy.md). */
  clockStart?: number;
  dataDir?: string;
  /** Create-like responses as a bare UUID string (the interface), `{"id": ...}`, or unquoted `text/plain`. */
  responseStyle?: ResponseStyle;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes?: number;
  /** `--release-every`: publish a next version of a seeded choice of app every so many virtual ms. */
  releaseEveryMs?: number;
}

export interface Simulator {
  url: string;
  port: number;
  host: string;
  operations: number;
  close: () => Promise<void>;
}

export function buildRouter(): Router {
  const r = new Router();
  registerCatalogRoutes(r);
  registerPackageRoutes(r);
  registerFlowRoutes(r);
  registerTenantRoutes(r);
  return r;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const host = opts.host ?? '127.0.0.1';
  const rt = await runtimeOf(opts);
  const handle = (req: IncomingMessage, res: ServerResponse): Promise<void> => handleRequest(rt, req, res);
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      process.emitWarning(`simulator: ${(e as Error).stack ?? String(e)}`);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const saver = opts.dataDir
    ? startSaveLoop(opts.dataDir, { accounts: () => [...rt.slots.values()].map((s) => s.account), virtualNow: () => rt.clock.now() })
    : null;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    host,
    operations: rt.router.size,
    close: async () => {
      saver?.stop();
      await saver?.persist();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}

/** What every request shares: fixtures, the clock (restored from `--data-dir`), faults, routes, accounts. */
async function runtimeOf(opts: SimulatorOptions): Promise<SimRuntime> {
  const seed = opts.seed ?? 1;
  const fixtures = buildFixtures(seed, opts.fleet ?? 'small');
  const persisted: PersistedState | null = opts.dataDir ? await loadState(opts.dataDir) : null;
  const clock = new VirtualClock(opts.timeScale ?? 1, persisted?.virtualNow ?? opts.clockStart ?? Date.now());
  const faults = new FaultInjector(
    opts.faults === undefined ? { ...NO_FAULTS } : typeof opts.faults === 'string' ? parseFaultSpec(opts.faults) : opts.faults,
    seed,
  );
  const sleepReal = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
  const sleepVirtual = async (virtualMs: number): Promise<void> => {
    const until = clock.now() + virtualMs;
    // Polls so that an admin clock jump also wakes a waiting request.
    while (clock.now() < until) await sleepReal(Math.min(50, clock.realDelayUntil(until) + 1));
  };
  return {
    router: buildRouter(),
    slots: createSlots(opts.apiKeys, fixtures, persisted, opts.rateLimit, { releaseEveryMs: opts.releaseEveryMs }),
    clock,
    faults,
    fixtures,
    responseStyle: opts.responseStyle ?? 'bare',
    maxBodyBytes: opts.maxBodyBytes ?? 80 * 1024 * 1024,
    latencyMs: opts.latencyMs ?? 0,
    rateLimit: opts.rateLimit,
    releaseEveryMs: opts.releaseEveryMs,
    sleepVirtual,
  };
}
