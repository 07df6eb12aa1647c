/**
 * One request through the simulator (docs/architecture.md, "The simulator"): key → account slot,
 * body, then either the admin surface or the `/v1` pipeline (journal, latency, rate limit, faults,
 * settle, route). The server (`server.ts`) only listens and closes; this is what it does per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { handleAdmin } from './admin.js';
import type { JournalEntry } from './admin.js';
import { readBody } from './body.js';
import type { VirtualClock } from './clock.js';
import type { FaultDecision, FaultInjector } from './faults.js';
import type { Fixtures } from './fixtures.js';
import { HttpProblem } from './problems.js';
import { Query } from './request.js';
import type { Answer } from './respond.js';
import { answerOf, problemAnswer, send, sendProblem, write } from './respond.js';
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
  /** `performance.now()` when the request was first seen: its answer is due at this plus the latency. */
  arrivedMs: number;
}

export async function handleRequest(rt: SimRuntime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const arrivedMs = performance.now();
  const url = new URL(req.url ?? '/', 'http://simulator');
  // Every answer carries the virtual clock (docs/api-model.md): clients time promotion gates by it. The
  // journal entry records the same instant, so calls line up with the gate clocks they saw.
  const serviceNow = new Date(rt.clock.now());
  res.setHeader('date', serviceNow.toUTCString());
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const method = (req.method ?? 'GET').toUpperCase();
  // Literal path segments match in any case, as ASP.NET Core routing does (`/V1/TENANT` is `/v1/tenant`).
  // The admin surface is the simulator's own and keeps its exact spelling.
  const lower = path.toLowerCase();
  const isAdmin = path === '/_sim' || path.startsWith('/_sim/');
  if (!isAdmin && lower !== '/v1' && !lower.startsWith('/v1/')) return serveRoot(rt, res, method, path);
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
    arrivedMs,
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

/**
 * The `/v1` pipeline. The request takes effect when it arrives and its answer is written once the
 * simulator's latency has passed since then (docs/architecture.md, "The simulator"): the latency is
 * the network's, like a proxy that delays the way back, and the work of many requests in flight
 * overlaps their waits instead of queueing behind timers that fire together. A fault's delay
 * (`slow`, the faults' `latency`) still comes before the request takes effect, so a client that
 * gives up on a slow call can be ahead of its effect.
 */
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
  const faultDelay = rt.faults.delayMs(r.path, r.method);
  if (faultDelay > 0) await delay(faultDelay);
  const answer = await answerApi(rt, r, entry);
  await until(r.arrivedMs + rt.latencyMs + faultDelay);
  if (answer === 'reset') r.req.socket.destroy();
  else write(r.res, answer);
}

/**
 * Waits until `performance.now()` reaches `due`, never less. A timer alone fired early: Node starts
 * it from the event loop's cached time, which is as old as the work already done in this turn (the
 * last of sixteen requests read together had its timer started a few ms in the past), so answers
 * went out before their latency had passed (test/e2e/simulator-latency.test.ts).
 */
async function until(due: number): Promise<void> {
  for (let left = due - performance.now(); left > 0; left = due - performance.now()) await delay(left);
}

/** What the request does and what it answers (its status already in the journal), or a reset. */
async function answerApi(rt: SimRuntime, r: SimRequest, entry: JournalEntry): Promise<Answer | 'reset'> {
  const refused = refusedBeforeRoute(rt, r, entry);
  if (refused) return refused;
  const fault = rt.faults.decide(r.path, r.method);
  const injected = injectedBeforeRoute(r, entry, fault);
  if (injected) return injected;
  settleAccount(r.slot.account, rt.clock.now());
  const result = await route(rt, r);
  const answer = result instanceof HttpProblem ? problemAnswer(result, r.path) : answerOf(result);
  entry.status = answer.status;
  if (fault.kind !== 'reset') return answer;
  // The request took effect; the answer is lost.
  entry.fault = 'reset-after';
  return 'reset';
}

/** The client-visible rate limit: 429 with `Retry-After`, before any effect. */
function refusedBeforeRoute(rt: SimRuntime, r: SimRequest, entry: JournalEntry): Answer | undefined {
  const retryAfter = rateLimited(r.slot, rt.rateLimit);
  if (retryAfter === null) return undefined;
  const problem = new HttpProblem(429, 'Rate limit exceeded. Retry after the time in Retry-After.', undefined, {
    'retry-after': String(retryAfter),
  });
  entry.status = 429;
  entry.fault = 'rate-limit';
  return problemAnswer(problem, r.path);
}

/** Faults that answer instead of the route: a reset before the request, a 429 or a 5xx. */
function injectedBeforeRoute(r: SimRequest, entry: JournalEntry, fault: FaultDecision): Answer | 'reset' | undefined {
  if (fault.kind === 'reset' && !fault.after) {
    entry.fault = 'reset-before';
    return 'reset';
  }
  if (fault.kind !== 'status') return undefined;
  const tooMany = fault.status === 429;
  entry.fault = tooMany ? '429' : '5xx';
  const problem = new HttpProblem(
    fault.status,
    tooMany ? 'Too many requests.' : 'The service is temporarily unavailable.',
    undefined,
    tooMany ? { 'retry-after': '1' } : {},
  );
  entry.status = problem.status;
  return problemAnswer(problem, r.path);
}

async function route(rt: SimRuntime, r: SimRequest): Promise<RouteResult | HttpProblem> {
  const match = rt.router.match(r.method, r.path);
  if (match === null) return new HttpProblem(404, `No route ${r.method} ${r.path}.`);
  // RFC 9110 §15.5.6: a 405 names the methods the path supports.
  if ('allowed' in match)
    return new HttpProblem(405, `${r.method} is not allowed on ${r.path}.`, undefined, { allow: match.allowed.join(', ') });
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
