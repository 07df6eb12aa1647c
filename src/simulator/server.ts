/**
 * The API simulator's HTTP server: all 38 operations of the v1 interface, one isolated account per
 * API key, a virtual clock, fault injection, a client-visible rate limit, a journal of every call,
 * and an admin surface under `/_sim`. It imports only wire types from `src/api/`, never packsync's
 * planner or client, so a bug in our logic is not mirrored by the fake it is tested against.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Account } from './account.js';
import { handleAdmin } from './admin.js';
import type { JournalEntry } from './admin.js';
import { VirtualClock } from './clock.js';
import { FaultInjector, NO_FAULTS, parseFaultSpec } from './faults.js';
import type { FaultSpec } from './faults.js';
import { buildFixtures } from './fixtures.js';
import type { FleetSize } from './fixtures.js';
import { keyDigest, loadState, saveState } from './persistence.js';
import type { PersistedState } from './persistence.js';
import { HttpProblem } from './problems.js';
import { Query } from './request.js';
import { Router } from './router.js';
import type { ResponseStyle, RouteResult } from './router.js';
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
  dataDir?: string;
  /** Create-like responses as a bare UUID string (the interface), `{"id": ...}`, or unquoted `text/plain`. */
  responseStyle?: ResponseStyle;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes?: number;
}

export interface Simulator {
  url: string;
  port: number;
  host: string;
  operations: number;
  close: () => Promise<void>;
}

interface AccountSlot {
  account: Account;
  journal: JournalEntry[];
  tokens: number;
  refilledAt: number;
}

/**
 * RFC 6266: a printable-ASCII fallback plus the exact name in RFC 8187 `filename*`. Product names
 * are user input (`Café ✓`, even a newline): written raw they made the header invalid, and Node
 * refused the whole response with a 500.
 */
/** Bytes of an oversized body read and dropped after the 413, before the connection is cut. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '');
  const exact = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
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
  const clock = new VirtualClock(opts.timeScale ?? 1, persisted?.virtualNow ?? Date.now());
  const faults = new FaultInjector(opts.faults === undefined ? { ...NO_FAULTS } : typeof opts.faults === 'string' ? parseFaultSpec(opts.faults) : opts.faults, seed);
  const router = buildRouter();
  const responseStyle = opts.responseStyle ?? 'bare';
  const maxBody = opts.maxBodyBytes ?? 80 * 1024 * 1024;
  const slots = new Map<string, AccountSlot>();
  for (const key of opts.apiKeys?.length ? opts.apiKeys : ['sim-key']) {
    if (slots.has(key)) continue;
    const account = new Account(keyDigest(key), fixtures);
    const saved = persisted?.accounts[keyDigest(key)];
    if (saved) account.load(saved);
    slots.set(key, { account, journal: [], tokens: opts.rateLimit ?? 0, refilledAt: Date.now() });
  }

  const sleepReal = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
  const sleepVirtual = async (virtualMs: number): Promise<void> => {
    const until = clock.now() + virtualMs;
    // Polls so that an admin clock jump also wakes a waiting request.
    while (clock.now() < until) await sleepReal(Math.min(50, clock.realDelayUntil(until) + 1));
  };

  /** Token bucket per account, `rateLimit` per second with a burst of the same size. */
  const rateLimited = (slot: AccountSlot): number | null => {
    const limit = opts.rateLimit;
    if (!limit) return null;
    const t = Date.now();
    slot.tokens = Math.min(limit, slot.tokens + ((t - slot.refilledAt) / 1000) * limit);
    slot.refilledAt = t;
    if (slot.tokens >= 1) {
      slot.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - slot.tokens) / limit));
  };

  const send = (res: ServerResponse, r: RouteResult, instance: string): number => {
    const status = r.status ?? 200;
    const headers: Record<string, string> = { ...r.headers };
    if (r.binary) {
      headers['content-type'] = r.binary.contentType;
      if (r.binary.fileName) headers['content-disposition'] = contentDisposition(r.binary.fileName);
      res.writeHead(status, headers).end(r.binary.body);
    } else if (r.json !== undefined) {
      headers['content-type'] = 'application/json; charset=utf-8';
      res.writeHead(status, headers).end(JSON.stringify(r.json));
    } else {
      res.writeHead(status, { ...headers, 'content-length': '0' }).end();
    }
    void instance;
    return status;
  };

  const sendProblem = (res: ServerResponse, p: HttpProblem, instance: string): number => {
    res.writeHead(p.status, { 'content-type': 'application/problem+json; charset=utf-8', ...p.headers }).end(JSON.stringify(p.body(instance)));
    return p.status;
  };

  /**
   * The whole body, or a 413 as soon as it grows past the limit. Not `for await`: leaving that loop
   * destroys the request and with it the socket, so a client still sending met a reset instead of
   * the 413. The rest of an oversized body is read and dropped, so the answer arrives and the
   * connection stays usable; past DRAIN_LIMIT more bytes the connection is cut.
   */
  const readBody = (req: IncomingMessage): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const settle = (f: () => void): void => {
        if (settled) return;
        settled = true;
        f();
      };
      req.on('data', (b: Buffer) => {
        size += b.length;
        if (settled) {
          if (size > maxBody + DRAIN_LIMIT) req.destroy();
          return;
        }
        if (size > maxBody) settle(() => reject(new HttpProblem(413, `The request body is larger than ${maxBody} bytes.`)));
        else chunks.push(b);
      });
      req.on('end', () => settle(() => resolve(Buffer.concat(chunks))));
      req.on('error', (e) => settle(() => reject(e)));
      req.on('close', () => settle(() => reject(new Error('the client closed the connection before sending the whole body'))));
    });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    // Every answer carries the virtual clock (design §6): clients time promotion gates by it.
    res.setHeader('date', new Date(clock.now()).toUTCString());
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = (req.method ?? 'GET').toUpperCase();
    const instance = path;
    const key = req.headers['x-api-key'];
    const slot = typeof key === 'string' ? slots.get(key) : undefined;
    const isApi = path === '/v1' || path.startsWith('/v1/');
    const isAdmin = path === '/_sim' || path.startsWith('/_sim/');
    if (!isApi && !isAdmin) {
      if (path === '/' && method === 'GET') {
        send(res, { json: { service: 'packsync simulator', api: '/v1', admin: '/_sim', operations: router.size } }, instance);
        return;
      }
      sendProblem(res, new HttpProblem(404, `No route ${method} ${path}.`), instance);
      return;
    }
    if (!slot) {
      req.resume();
      sendProblem(res, new HttpProblem(401, typeof key === 'string' ? 'The API key is not valid.' : 'The X-API-Key header is missing.', undefined, { 'www-authenticate': 'ApiKey header="X-API-Key"' }), instance);
      return;
    }
    const query = new Query(url.searchParams);
    let body: Buffer;
    try {
      body = await readBody(req);
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
        send(res, handleAdmin(method, path, query, body, contentType, { account: slot.account, journal: slot.journal, clock, faults, reset: () => resetSlot(slot) }), instance);
      } catch (e) {
        sendProblem(res, e instanceof HttpProblem ? e : new HttpProblem(500, 'Internal simulator error.'), instance);
      }
      return;
    }

    const entry: JournalEntry = { seq: slot.journal.length + 1, time: new Date().toISOString(), method, path, query: query.toJSON(), status: 0 };
    slot.journal.push(entry);
    const delay = (opts.latencyMs ?? 0) + faults.delayMs(path);
    if (delay > 0) await sleepReal(delay);

    const retryAfter = rateLimited(slot);
    if (retryAfter !== null) {
      entry.status = sendProblem(res, new HttpProblem(429, 'Rate limit exceeded. Retry after the time in Retry-After.', undefined, { 'retry-after': String(retryAfter) }), instance);
      entry.fault = 'rate-limit';
      return;
    }
    const fault = faults.decide(path);
    if (fault.kind === 'reset' && !fault.after) {
      entry.fault = 'reset-before';
      req.socket.destroy();
      return;
    }
    if (fault.kind === 'status') {
      entry.fault = fault.status === 429 ? '429' : '5xx';
      entry.status = sendProblem(res, new HttpProblem(fault.status, fault.status === 429 ? 'Too many requests.' : 'The service is temporarily unavailable.', undefined, fault.status === 429 ? { 'retry-after': '1' } : {}), instance);
      return;
    }

    slot.account.settle(clock.now());
    const match = router.match(method, path);
    let result: RouteResult | HttpProblem;
    if (match === null) result = new HttpProblem(404, `No route ${method} ${path}.`);
    else if (match === 'method') result = new HttpProblem(405, `${method} is not allowed on ${path}.`);
    else {
      try {
        result = await match.route.handler({ account: slot.account, params: match.params, query, body, contentType, now: clock.now(), responseStyle, sleepVirtual });
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
    entry.status = result instanceof HttpProblem ? sendProblem(res, result, instance) : send(res, result, instance);
  };

  const resetSlot = (slot: AccountSlot): void => {
    slot.account = new Account(slot.account.name, fixtures);
    slot.journal.length = 0;
    slot.account.touch();
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

  let saving: Promise<void> = Promise.resolve();
  let savedVersion = -1;
  const versionSum = (): number => [...slots.values()].reduce((n, s) => n + s.account.version, 0);
  const persist = (): Promise<void> => {
    if (!opts.dataDir) return Promise.resolve();
    const v = versionSum();
    if (v === savedVersion) return saving;
    savedVersion = v;
    const state: PersistedState = { version: 1, virtualNow: clock.now(), accounts: {} };
    for (const s of slots.values()) state.accounts[s.account.name] = s.account.dump();
    const dir = opts.dataDir;
    saving = saving.then(() => saveState(dir, state));
    return saving;
  };
  const timer = opts.dataDir ? setInterval(() => void persist().catch((e: unknown) => process.emitWarning(`simulator: cannot save state: ${String(e)}`)), 250) : null;
  timer?.unref();

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
      if (timer) clearInterval(timer);
      await persist();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}
