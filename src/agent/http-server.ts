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
import { PacksyncError } from '../util/errors.js';

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
  maxBodyBytes?: number;
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
  const verifier = o.webhookSecret ? new WebhookVerifier(o.webhookSecret, o.trackedRef) : null;
  const limit = o.maxBodyBytes ?? 1024 * 1024;
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  };
  const readBody = async (req: IncomingMessage): Promise<Buffer | null> => {
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of req) {
      n += (c as Buffer).length;
      if (n > limit) return null;
      chunks.push(c as Buffer);
    }
    return Buffer.concat(chunks);
  };
  /** `POST /reconcile`'s `Authorization: Bearer <webhook secret>`: absent, the secret, or something else. */
  const bearer = (req: IncomingMessage): 'absent' | 'ok' | 'wrong' => {
    const h = req.headers.authorization;
    if (typeof h !== 'string') return 'absent';
    if (!o.webhookSecret || !h.startsWith('Bearer ')) return 'wrong';
    const a = Buffer.from(h.slice(7));
    const b = Buffer.from(o.webhookSecret);
    return a.length === b.length && timingSafeEqual(a, b) ? 'ok' : 'wrong';
  };
  /**
   * Why `POST /reconcile` without a valid bearer token and without a signature header is refused:
   * the verifier's "missing signature" said nothing of the bearer token that was sent and wrong.
   */
  const reconcileRefusal = (b: 'absent' | 'wrong'): string =>
    b === 'wrong'
      ? 'wrong bearer token: send Authorization: Bearer <the webhook secret>'
      : `missing credentials: send Authorization: Bearer <the webhook secret>, or sign the body (${SIGNATURE_HEADERS})`;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://agent').pathname;
    const route = `${req.method ?? 'GET'} ${path}`;
    switch (route) {
      case 'GET /':
        res
          .writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-store',
            'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
            'x-content-type-options': 'nosniff',
          })
          .end(renderStatusPage({ status: o.status.view(), ready: o.ready() }));
        return;
      case 'GET /healthz':
        return json(res, 200, { status: 'ok' });
      case 'GET /readyz': {
        const ok = o.ready();
        const ready = o.status.condition('Ready');
        return json(res, ok ? 200 : 503, { ready: ok, reason: ready.reason, message: ready.message });
      }
      case 'GET /status':
        return json(res, 200, o.status.view());
      case 'GET /metrics': {
        const text = await o.metrics.registry.metrics();
        res.writeHead(200, { 'content-type': o.metrics.registry.contentType }).end(text);
        return;
      }
      case 'POST /webhook':
      case 'POST /reconcile': {
        if (!verifier) {
          req.resume();
          return json(res, 403, { error: 'no webhook secret is configured (--webhook-secret-file)' });
        }
        const body = await readBody(req);
        if (body === null) {
          json(res, 413, { error: `body larger than ${limit} bytes` });
          req.destroy();
          return;
        }
        if (path === '/reconcile') {
          const b = bearer(req);
          if (b === 'ok') {
            o.trigger('manual');
            return json(res, 202, { triggered: true });
          }
          // A signature header is checked below (and its refusal says what is wrong with it).
          if (!hasSignature(req.headers)) {
            const reason = reconcileRefusal(b);
            o.logger.warn({ path, reason }, 'webhook refused');
            return json(res, 401, { error: reason });
          }
        }
        const v = verifier.verify(req.headers, body);
        if (v.status === 401 || v.status === 400) {
          o.logger.warn({ path, reason: v.reason }, 'webhook refused');
          return json(res, v.status, { error: v.reason });
        }
        if (v.trigger) o.trigger(path === '/reconcile' ? 'manual' : `webhook (${v.provider})`);
        return json(res, v.status, { triggered: v.trigger, reason: v.reason });
      }
      default:
        return json(res, 404, { error: `no route ${route}` });
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      o.logger.error({ err: e instanceof Error ? e.message : String(e) }, 'sidecar request failed');
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
    });
  });
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
