/**
 * The sidecar's HTTP server: the status page, probes, status, Prometheus metrics, the webhook and a manual trigger.
 * `POST /reconcile` needs the webhook secret too (as a bearer token or a signature), so nobody on
 * the pod network can make the agent hammer the API.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { AgentMetrics } from './metrics.js';
import { renderStatusPage } from './status-page.js';
import type { StatusTracker } from './status.js';
import { SIGNATURE_HEADERS, WebhookVerifier, hasSignature } from './webhook.js';
import { PacksyncError } from '../../util/errors.js';
import { DEFAULT_BODY_LIMITS, UnverifiedBodies } from './request-body.js';
import type { BodyLimits } from './request-body.js';

export interface SidecarOptions {
  host: string;
  port: number;
  metrics: AgentMetrics;
  status: StatusTracker;
  ready: () => boolean;
  trigger: (reason: string) => void;
  webhookSecret: string | null;
  trackedRef: string | null;
  logger: Logger;
  /** Largest webhook body (shorthand for `bodyLimits.maxBytes`). */
  maxBodyBytes?: number;
  bodyLimits?: Partial<BodyLimits>;
}

export interface Sidecar {
  url: string;
  port: number;
  close: () => Promise<void>;
}

export function parseListen(s: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(s);
  const port = Number(m?.[2]);
  if (!m || port > 65535) throw new PacksyncError('USAGE', `--listen "${s}" must be HOST:PORT, e.g. 127.0.0.1:8080`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

export async function startSidecar(o: SidecarOptions): Promise<Sidecar> {
  const hooks = hookHandler(o);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://agent').pathname;
    const route = `${req.method ?? 'GET'} ${path}`;
    if (route === 'POST /webhook' || route === 'POST /reconcile') return hooks(req, res, path);
    // HEAD is GET without the body (Node leaves it out): monitors that probe with HEAD get the same status.
    if ((req.method === 'GET' || req.method === 'HEAD') && path in READS) return READS[path]!(o, res);
    // A request nobody reads the body of: answered and closed, its body never buffered.
    req.resume();
    return json(res, 404, { error: `no route ${route}` });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      o.logger.error({ err: e instanceof Error ? e.message : String(e) }, 'sidecar request failed');
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
    });
  });
  // Slow senders are cut: headers within 10 s, a whole request within 30 s.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown, close = false): void {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  // A refusal before the body was read closes the connection, so the unread body is not waited for.
  if (close) headers.connection = 'close';
  if (status === 503) headers['retry-after'] = '1';
  res.writeHead(status, headers).end(JSON.stringify(body));
}

/** The read-only endpoints: status page, probes, status, metrics. */
const READS: Record<string, (o: SidecarOptions, res: ServerResponse) => void | Promise<void>> = {
  '/': (o, res) => {
    res
      .writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        'x-content-type-options': 'nosniff',
      })
      .end(renderStatusPage({ status: o.status.publicView(), ready: o.ready() }));
  },
  '/healthz': (_o, res) => json(res, 200, { status: 'ok' }),
  '/readyz': (o, res) => {
    const ok = o.ready();
    const ready = o.status.condition('Ready');
    json(res, ok ? 200 : 503, { ready: ok, reason: ready.reason, message: ready.message });
  },
  '/status': (o, res) => json(res, 200, o.status.publicView()),
  '/metrics': async (o, res) => {
    // `packsync_ready` is `/readyz` at the time of the scrape, from the same function (regression: it was
    // set only when a pass finished, so it read 0 through a long first pass while /readyz said ready).
    o.metrics.ready.set(o.ready() ? 1 : 0);
    const text = await o.metrics.registry.metrics();
    res.writeHead(200, { 'content-type': o.metrics.registry.contentType }).end(text);
  },
};

/**
 * `POST /webhook` and `POST /reconcile`. Credentials that need no body are checked before a byte of
 * it is read (the bearer token of `/reconcile`, GitLab's token, whether any signature header is
 * there at all); a body is read only to check a signature over it, and then within the limits of
 * `UnverifiedBodies` (docs/agent.md, "Endpoints").
 */
function hookHandler(o: SidecarOptions): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> {
  const verifier = o.webhookSecret ? new WebhookVerifier(o.webhookSecret, o.trackedRef) : null;
  const bodies = new UnverifiedBodies({ ...DEFAULT_BODY_LIMITS, ...o.bodyLimits, ...(o.maxBodyBytes ? { maxBytes: o.maxBodyBytes } : {}) });
  const refuse = (res: ServerResponse, path: string, status: number, reason: string): void => {
    o.logger.warn({ path, reason }, 'webhook refused');
    json(res, status, { error: reason }, true);
  };
  return async (req, res, path) => {
    if (!verifier) return json(res, 403, { error: 'no webhook secret is configured (--webhook-secret-file)' }, true);
    if (path === '/reconcile') {
      const b = bearer(req, o.webhookSecret);
      if (b === 'ok') {
        o.trigger('manual');
        return json(res, 202, { triggered: true }, true);
      }
      // A signature header is checked below (and its refusal says what is wrong with it).
      if (!hasSignature(req.headers)) return refuse(res, path, 401, reconcileRefusal(b));
    }
    const early = verifier.refuseWithoutBody(req.headers);
    if (early) return refuse(res, path, early.status, early.reason);
    const read = await bodies.read(req);
    if (!read.ok) return refuse(res, path, read.status, read.reason);
    const v = verifier.verify(req.headers, read.body);
    if (v.status === 401 || v.status === 400) return refuse(res, path, v.status, v.reason);
    if (v.trigger) o.trigger(path === '/reconcile' ? 'manual' : `webhook (${v.provider})`);
    json(res, v.status, { triggered: v.trigger, reason: v.reason });
  };
}

/** `POST /reconcile`'s `Authorization: Bearer <webhook secret>`: absent, the secret, or something else. */
function bearer(req: IncomingMessage, secret: string | null): 'absent' | 'ok' | 'wrong' {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return 'absent';
  if (!secret || !h.startsWith('Bearer ')) return 'wrong';
  const a = Buffer.from(h.slice(7));
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b) ? 'ok' : 'wrong';
}

/**
 * Why `POST /reconcile` without a valid bearer token and without a signature header is refused:
 * the verifier's "missing signature" said nothing of the bearer token that was sent and wrong.
 */
function reconcileRefusal(b: 'absent' | 'wrong'): string {
  return b === 'wrong'
    ? 'wrong bearer token: send Authorization: Bearer <the webhook secret>'
    : `missing credentials: send Authorization: Bearer <the webhook secret>, or sign the body (${SIGNATURE_HEADERS})`;
}
