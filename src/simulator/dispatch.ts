/**
 * One request through the simulator (docs/architecture.md, "The simulator"): key → account slot,
 * body, then either the admin surface or the `/v1` pipeline (journal, latency, rate limit, faults,
 * settle, route). The server (`server.ts`) only listens and closes; this is what it does per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleAdmin } from './admin.js';
import type { JournalEntry } from './admin.js';
import { readBody } from './body.js';
import type { VirtualClock } from './clock.js';
import type { FaultDecision, FaultInjector } from './faults.js';
import type { Fixtures } from './fixtures.js';
import { HttpProblem } from './problems.js';
import { Query } from './request.js';
import { send, sendProblem } from './respond.js';
import type { ResponseStyle, RouteResult, Router } from './router.js';
import type { AccountSlot } from './slots.js';
import { rateLimited, resetSlot } from './slots.js';
import { settleAccount } from './releases.js';

/** What every request shares: built once by `startSimulator`. */
export interface SimRuntime {
  router: Router;
  slots: Map<string, AccountSlot>;
  clock: VirtualClock;
  faults: FaultInjector;
  fixtures: Fixtures;
  responseStyle: ResponseStyle;
  maxBodyBytes: number;
  latencyMs: number;
  rateLimit: number | undefined;
  releaseEveryMs: number | undefined;
  sleepVirtual: (virtualMs: number) => Promise<void>;
}

/** A request once its key, path and body are known. */
interface SimRequest {
  req: IncomingMessage;
  res: ServerResponse;
  slot: AccountSlot;
  method: string;
  path: string;
  query: Query;
  body: Buffer;
  contentType: string | undefined;
  serviceNow: Date;
}

export async function handleRequest(rt: SimRuntime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://simulator');
  // Every answer carries the virtual clock (docs/api-model.md): clients time promotion gates by it. The
  // journal entry records the same instant, so calls line up with the gate clocks they saw.
  const serviceNow = new Date(rt.clock.now());
  res.setHeader('date', serviceNow.toUTCString());
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const method = (req.method ?? 'GET').toUpperCase();
  const isAdmin = path === '/_sim' || path.startsWith('/_sim/');
  if (!isAdmin && path !== '/v1' && !path.startsWith('/v1/')) return serveRoot(rt, res, method, path);
  const slot = authenticate(rt, req, res, path);
  if (!slot) return;
  let body: Buffer;
  try {
    body = await readBody(req, rt.maxBodyBytes);
  } catch (e) {
    // Otherwise the client went away mid-body: there is nobody to answer.
    if (e instanceof HttpProblem) sendProblem(res, e, path);
    return;
  }
  const r: SimRequest = {
    req,
    res,
    slot,
    method,
    path,
    query: new Query(url.searchParams),
    body,
    contentType: req.headers['content-type'],
    serviceNow,
  };
  if (isAdmin) serveAdmin(rt, r);
  else await serveApi(rt, r);
}

function serveRoot(rt: SimRuntime, res: ServerResponse, method: string, path: string): void {
  if (path === '/' && method === 'GET') {
    send(res, { json: { service: 'packsync simulator', api: '/v1', admin: '/_sim', operations: rt.router.size } });
    return;
  }
  sendProblem(res, new HttpProblem(404, `No route ${method} ${path}.`), path);
}

/** The account of the request's key; answers 401 (and returns undefined) without one. */
function authenticate(rt: SimRuntime, req: IncomingMessage, res: ServerResponse, path: string): AccountSlot | undefined {
  const key = req.headers['x-api-key'];
  const slot = typeof key === 'string' ? rt.slots.get(key) : undefined;
  if (slot) return slot;
  req.resume();
  const message = typeof key === 'string' ? 'The API key is not valid.' : 'The X-API-Key header is missing.';
  sendProblem(res, new HttpProblem(401, message, undefined, { 'www-authenticate': 'ApiKey header="X-API-Key"' }), path);
  return undefined;
}

function serveAdmin(rt: SimRuntime, r: SimRequest): void {
  const { slot } = r;
  const deps = {
    account: slot.account,
    journal: slot.journal,
    clock: rt.clock,
    faults: rt.faults,
    reset: () => resetSlot(slot, rt.fixtures, rt.releaseEveryMs),
  };
  try {
    send(r.res, handleAdmin({ method: r.method, path: r.path, query: r.query, body: r.body, contentType: r.contentType }, deps));
  } catch (e) {
    sendProblem(r.res, e instanceof HttpProblem ? e : new HttpProblem(500, 'Internal simulator error.'), r.path);
  }
}

async function serveApi(rt: SimRuntime, r: SimRequest): Promise<void> {
  const entry: JournalEntry = {
    seq: r.slot.journal.length + 1,
    time: new Date().toISOString(),
    serviceTime: r.serviceNow.toISOString(),
    method: r.method,
    path: r.path,
    query: r.query.toJSON(),
    status: 0,
  };
  r.slot.journal.push(entry);
  const delay = rt.latencyMs + rt.faults.delayMs(r.path, r.method);
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  if (refusedBeforeRoute(rt, r, entry)) return;
  const fault = rt.faults.decide(r.path, r.method);
  if (injectedBeforeRoute(r, entry, fault)) return;
  settleAccount(r.slot.account, rt.clock.now());
  const result = await route(rt, r);
  if (fault.kind === 'reset') {
    // The request took effect; the answer is lost.
    entry.status = result instanceof HttpProblem ? result.status : (result.status ?? 200);
    entry.fault = 'reset-after';
    r.req.socket.destroy();
    return;
  }
  entry.status = result instanceof HttpProblem ? sendProblem(r.res, result, r.path) : send(r.res, result);
}

/** The client-visible rate limit: 429 with `Retry-After`, before any effect. */
function refusedBeforeRoute(rt: SimRuntime, r: SimRequest, entry: JournalEntry): boolean {
  const retryAfter = rateLimited(r.slot, rt.rateLimit);
  if (retryAfter === null) return false;
  const problem = new HttpProblem(429, 'Rate limit exceeded. Retry after the time in Retry-After.', undefined, {
    'retry-after': String(retryAfter),
  });
  entry.status = sendProblem(r.res, problem, r.path);
  entry.fault = 'rate-limit';
  return true;
}

/** Faults that answer instead of the route: a reset before the request, a 429 or a 5xx. */
function injectedBeforeRoute(r: SimRequest, entry: JournalEntry, fault: FaultDecision): boolean {
  if (fault.kind === 'reset' && !fault.after) {
    entry.fault = 'reset-before';
    r.req.socket.destroy();
    return true;
  }
  if (fault.kind !== 'status') return false;
  const tooMany = fault.status === 429;
  entry.fault = tooMany ? '429' : '5xx';
  const problem = new HttpProblem(
    fault.status,
    tooMany ? 'Too many requests.' : 'The service is temporarily unavailable.',
    undefined,
    tooMany ? { 'retry-after': '1' } : {},
  );
  entry.status = sendProblem(r.res, problem, r.path);
  return true;
}

async function route(rt: SimRuntime, r: SimRequest): Promise<RouteResult | HttpProblem> {
  const match = rt.router.match(r.method, r.path);
  if (match === null) return new HttpProblem(404, `No route ${r.method} ${r.path}.`);
  if (match === 'method') return new HttpProblem(405, `${r.method} is not allowed on ${r.path}.`);
  try {
    return await match.route.handler({
      account: r.slot.account,
      params: match.params,
      query: r.query,
      body: r.body,
      contentType: r.contentType,
      now: rt.clock.now(),
      responseStyle: rt.responseStyle,
      sleepVirtual: rt.sleepVirtual,
    });
  } catch (e) {
    if (e instanceof HttpProblem) return e;
    process.emitWarning(`simulator: ${r.method} ${r.path} failed: ${(e as Error).stack ?? String(e)}`);
    return new HttpProblem(500, 'Internal simulator error.');
  }
}
