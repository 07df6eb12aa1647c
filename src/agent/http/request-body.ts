/**
 * Bodies the agent reads before it knows who sent them (docs/agent.md, "Endpoints"): a webhook's
 * signature covers its body, so the body must be read to check it. Each is bounded three ways, so
 * peers on the network cannot make the agent hold memory or sockets: its size (a declared
 * `Content-Length` over the limit is refused before a byte is read; a stream that grows past it is
 * cut), its time (a sender that trickles is cut), and how many are read at once (beyond the cap the
 * answer is 503 with `Retry-After`, at once). Authenticated callers (`POST /reconcile` with the bearer
 * token) never get here: their request needs no body.
 */
import type { IncomingMessage } from 'node:http';

export interface BodyLimits {
  /** Largest body accepted (default 1 MiB: a GitHub push event is a few KiB). */
  maxBytes: number;
  /** Unauthenticated bodies read at once (default 16: at most 16 MiB held). */
  maxInFlight: number;
  /** How long one body may take to arrive (default 10 s). */
  timeoutMs: number;
}

export const DEFAULT_BODY_LIMITS: BodyLimits = { maxBytes: 1024 * 1024, maxInFlight: 16, timeoutMs: 10_000 };

export type BodyRead = { ok: true; body: Buffer } | { ok: false; status: 408 | 413 | 503; reason: string };

export class UnverifiedBodies {
  private inFlight = 0;

  constructor(private readonly limits: BodyLimits) {}

  async read(req: IncomingMessage): Promise<BodyRead> {
    const { maxBytes, maxInFlight } = this.limits;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) return { ok: false, status: 413, reason: `body larger than ${maxBytes} bytes` };
    if (this.inFlight >= maxInFlight) {
      return { ok: false, status: 503, reason: `${maxInFlight} unverified request bodies are being read already; retry later` };
    }
    this.inFlight++;
    try {
      return await this.collect(req);
    } finally {
      this.inFlight--;
    }
  }

  private collect(req: IncomingMessage): Promise<BodyRead> {
    const { maxBytes, timeoutMs } = this.limits;
    return new Promise<BodyRead>((resolve) => {
      const chunks: Buffer[] = [];
      let n = 0;
      const done = (r: BodyRead): void => {
        clearTimeout(timer);
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        if (!r.ok) req.pause();
        resolve(r);
      };
      const onData = (c: Buffer): void => {
        n += c.length;
        if (n > maxBytes) done({ ok: false, status: 413, reason: `body larger than ${maxBytes} bytes` });
        else chunks.push(c);
      };
      const onEnd = (): void => done({ ok: true, body: Buffer.concat(chunks) });
      const onError = (): void => done({ ok: false, status: 408, reason: 'the connection failed before the body arrived' });
      const timer = setTimeout(() => done({ ok: false, status: 408, reason: `body not received within ${timeoutMs / 1000} s` }), timeoutMs);
      req.on('data', onData);
      req.once('end', onEnd);
      req.once('error', onError);
    });
  }
}
