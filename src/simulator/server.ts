/**
 * The API simulator's HTTP server: all 38 operations of the v1 interface, one isolated account per
 * API key, a virtual clock, fault injection, a client-visible rate limit, a journal of every call,
 * and an admin surface under `/_sim`. It imports only wire types from `src/api/`, never packsync's
 * planner or client, so a bug in our logic is not mirrored by the fake it is tested against.
 *
 * This file listens, closes, and dispatches one request (key, body, faults, rate limit, journal,
 * route); the account slots, the body reader, the answer writers and the save loop sit beside it.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { handleAdmin } from './admin.js';
import type { JournalEntry } from './admin.js';
import { readBody } from './body.js';
import { VirtualClock } from './clock.js';
import { FaultInjector, NO_FAULTS, parseFaultSpec } from './faults.js';
import type { FaultSpec } from './faults.js';
import { buildFixtures } from './fixtures.js';
import type { FleetSize } from './fixtures.js';
import { loadState, startSaveLoop } from './persistence.js';
import type { PersistedState } from './persistence.js';
import { HttpProblem } from './problems.js';
import { Query } from './request.js';
import { send, sendProblem } from './respond.js';
import { Router } from './router.js';
import type { ResponseStyle, RouteResult } from './router.js';
import { registerCatalogRoutes } from './routes/catalog.js';
import { registerFlowRoutes } from './routes/flows.js';
import { registerPackageRoutes } from './routes/packages.js';
import { registerTenantRoutes } from './routes/tenants.js';
import { createSlots, rateLimited, resetSlot } from './slots.js';
import { settleAccount } from './releases.js';

/** Moved to `respond.ts`; re-exported for callers that import it from here. */
export { contentDisposition } from './respond.js';

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
  const seed = opts.seed ?? 1;
  const fixtures = buildFixtures(seed, opts.fleet ?? 'small');
  const persisted: PersistedState | null = opts.dataDir ? await loadState(opts.dataDir) : null;
  const clock = new VirtualClock(opts.timeScale ?? 1, persisted?.virtualNow ?? opts.clockStart ?? Date.now());
  const faults = new FaultInjector(
    opts.faults === undefined ? { ...NO_FAULTS } : typeof opts.faults === 'string' ? parseFaultSpec(opts.faults) : opts.faults,
    seed,
  );
  const router = buildRouter();
  const responseStyle = opts.responseStyle ?? 'bare';
  const maxBody = opts.maxBodyBytes ?? 80 * 1024 * 1024;
  const slots = createSlots(opts.apiKeys, fixtures, persisted, opts.rateLimit, { releaseEveryMs: opts.releaseEveryMs });

  const sleepReal = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
  const sleepVirtual = async (virtualMs: number): Promise<void> => {
    const until = clock.now() + virtualMs;
    // Polls so that an admin clock jump also wakes a waiting request.
    while (clock.now() < until) await sleepReal(Math.min(50, clock.realDelayUntil(until) + 1));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    // Every answer carries the virtual clock (docs/api-model.md): clients time promotion gates by it. The
    // journal entry records the same instant, so calls line up with the gate clocks they saw.
    const serviceNow = new Date(clock.now());
    res.setHeader('date', serviceNow.toUTCString());
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = (req.method ?? 'GET').toUpperCase();
    const instance = path;
    const key = req.headers['x-api-key'];
    const slot = typeof key === 'string' ? slots.get(key) : undefined;
    const isApi = path === '/v1' || path.startsWith('/v1/');
    const isAdmin = path === '/_sim' || path.startsWith('/_sim/');
    if (!isApi && !isAdmin) {
      if (path === '/' && method === 'GET') {
        send(res, { json: { service: 'packsync simulator', api: '/v1', admin: '/_sim', operations: router.size } });
        return;
      }
      sendProblem(res, new HttpProblem(404, `No route ${method} ${path}.`), instance);
      return;
    }
    if (!slot) {
      req.resume();
      sendProblem(
        res,
        new HttpProblem(401, typeof key === 'string' ? 'The API key is not valid.' : 'The X-API-Key header is missing.', undefined, {
          'www-authenticate': 'ApiKey header="X-API-Key"',
        }),
        instance,
      );
      return;
    }
    const query = new Query(url.searchParams);
    let body: Buffer;
    try {
      body = await readBody(req, maxBody);
    } catch (e) {
      if (e instanceof HttpProblem) {
        sendProblem(res, e, instance);
      }
      // Otherwise the client went away mid-body: there is nobody to answer.
      return;
    }
    const contentType = req.headers['content-type'];

    if (isAdmin) {
      try {
        send(
          res,
          handleAdmin(
            { method, path, query, body, contentType },
            {
              account: slot.account,
              journal: slot.journal,
              clock,
              faults,
              reset: () => resetSlot(slot, fixtures, opts.releaseEveryMs),
            },
          ),
        );
      } catch (e) {
        sendProblem(res, e instanceof HttpProblem ? e : new HttpProblem(500, 'Internal simulator error.'), instance);
      }
      return;
    }

    const entry: JournalEntry = {
      seq: slot.journal.length + 1,
      time: new Date().toISOString(),
      serviceTime: serviceNow.toISOString(),
      method,
      path,
      query: query.toJSON(),
      status: 0,
    };
    slot.journal.push(entry);
    const delay = (opts.latencyMs ?? 0) + faults.delayMs(path, method);
    if (delay > 0) await sleepReal(delay);

    const retryAfter = rateLimited(slot, opts.rateLimit);
    if (retryAfter !== null) {
      entry.status = sendProblem(
        res,
        new HttpProblem(429, 'Rate limit exceeded. Retry after the time in Retry-After.', undefined, { 'retry-after': String(retryAfter) }),
        instance,
      );
      entry.fault = 'rate-limit';
      return;
    }
    const fault = faults.decide(path, method);
    if (fault.kind === 'reset' && !fault.after) {
      entry.fault = 'reset-before';
      req.socket.destroy();
      return;
    }
    if (fault.kind === 'status') {
      entry.fault = fault.status === 429 ? '429' : '5xx';
      entry.status = sendProblem(
        res,
        new HttpProblem(
          fault.status,
          fault.status === 429 ? 'Too many requests.' : 'The service is temporarily unavailable.',
          undefined,
          fault.status === 429 ? { 'retry-after': '1' } : {},
        ),
        instance,
      );
      return;
    }

    settleAccount(slot.account, clock.now());
    const match = router.match(method, path);
    let result: RouteResult | HttpProblem;
    if (match === null) result = new HttpProblem(404, `No route ${method} ${path}.`);
    else if (match === 'method') result = new HttpProblem(405, `${method} is not allowed on ${path}.`);
    else {
      try {
        result = await match.route.handler({
          account: slot.account,
          params: match.params,
          query,
          body,
          contentType,
          now: clock.now(),
          responseStyle,
          sleepVirtual,
        });
      } catch (e) {
        result = e instanceof HttpProblem ? e : new HttpProblem(500, 'Internal simulator error.');
        if (!(e instanceof HttpProblem)) process.emitWarning(`simulator: ${method} ${path} failed: ${(e as Error).stack ?? String(e)}`);
      }
    }
    if (fault.kind === 'reset') {
      // The request took effect; the answer is lost.
      entry.status = result instanceof HttpProblem ? result.status : (result.status ?? 200);
      entry.fault = 'reset-after';
      req.socket.destroy();
      return;
    }
    entry.status = result instanceof HttpProblem ? sendProblem(res, result, instance) : send(res, result);
  };

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
    ? startSaveLoop(opts.dataDir, { accounts: () => [...slots.values()].map((s) => s.account), virtualNow: () => clock.now() })
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
    operations: router.size,
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
