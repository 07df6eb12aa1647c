/**
 * Webhook verification: GitHub (`X-Hub-Signature-256`), GitLab (`X-Gitlab-Token`) and a generic
 * HMAC header (`X-Packsync-Signature: sha256=<hex>`). Every comparison is constant-time. Only a push
 * to the tracked ref triggers a pass; a delivery id accepted before is ignored (providers redeliver).
 * GitHub's pushes come as JSON or, its default, as a form with the JSON in `payload`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * `status` is the HTTP answer: 202 Accepted when a pass was queued, 200 when the delivery was
 * valid but triggers nothing (regression: the two were inverted against what the server sent).
 */
export type WebhookVerdict =
  | { status: 401; reason: string }
  | { status: 400; reason: string }
  | { status: 200; reason: string; trigger: false }
  | { status: 202; reason: string; trigger: true; provider: string };

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  // Compare equal-length buffers always, so the length difference leaks nothing useful either.
  const ok = timingSafeEqual(
    Buffer.concat([x, Buffer.alloc(Math.max(0, y.length - x.length))]).subarray(0, Math.max(x.length, y.length)),
    Buffer.concat([y, Buffer.alloc(Math.max(0, x.length - y.length))]).subarray(0, Math.max(x.length, y.length)),
  );
  return ok && x.length === y.length;
}

function hmac(secret: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The headers a sender signs with; a refusal names them, never the secret. */
export const SIGNATURE_HEADERS = 'X-Hub-Signature-256, X-Gitlab-Token or X-Packsync-Signature';

/** Whether the request carries any of the signature headers (then `verify` decides). */
export function hasSignature(headers: IncomingHttpHeaders): boolean {
  return ['x-hub-signature-256', 'x-gitlab-token', 'x-packsync-signature'].some((h) => header(headers, h) !== undefined);
}

/** Whether `pushedRef` (e.g. `refs/heads/main`) is the ref the agent tracks (`main`). */
export function refMatches(tracked: string | null, pushedRef: string | undefined): boolean {
  if (tracked === null) return true; // a directory source: any verified push is news
  if (!pushedRef) return true; // generic callers may not say which ref
  return pushedRef === tracked || pushedRef === `refs/heads/${tracked}` || pushedRef === `refs/tags/${tracked}`;
}

export class WebhookVerifier {
  private readonly seen: string[] = [];

  constructor(
    private readonly secret: string,
    private readonly trackedRef: string | null,
  ) {}

  /**
   * A refusal that needs no body: no signature header at all, or a GitLab token (not a signature
   * over the body) that is wrong. The body of such a request is never read.
   */
  refuseWithoutBody(headers: IncomingHttpHeaders): { status: 401; reason: string } | undefined {
    if (!hasSignature(headers)) return { status: 401, reason: `missing signature: send ${SIGNATURE_HEADERS}` };
    const gl = header(headers, 'x-gitlab-token');
    if (header(headers, 'x-hub-signature-256') === undefined && gl !== undefined && !safeEqual(gl, this.secret))
      return { status: 401, reason: 'wrong token: X-Gitlab-Token is not the webhook secret' };
    return undefined;
  }

  /**
   * The verdict on a request whose body was read. A delivery id counts as seen only once its request
   * was accepted (a 2xx): a redelivery of one refused (a body it could not read) is judged again
   * (regression: the id was used up by the refusal, and the redelivery was "duplicate delivery ignored").
   */
  verify(headers: IncomingHttpHeaders, body: Buffer): WebhookVerdict {
    const auth = this.authenticate(headers, body);
    if ('status' in auth) return auth;
    const delivery =
      header(headers, 'x-github-delivery') ?? header(headers, 'x-gitlab-event-uuid') ?? header(headers, 'x-packsync-delivery');
    if (delivery !== undefined && this.seen.includes(delivery))
      return { status: 200, reason: 'duplicate delivery ignored', trigger: false };
    const v = this.judge(headers, body, auth.provider);
    if (delivery !== undefined && v.status !== 400) {
      this.seen.push(delivery);
      if (this.seen.length > 1000) this.seen.shift();
    }
    return v;
  }

  /** Who signed the request, or the refusal (constant-time comparisons). */
  private authenticate(headers: IncomingHttpHeaders, body: Buffer): { provider: string } | { status: 401; reason: string } {
    const gh = header(headers, 'x-hub-signature-256');
    const gl = header(headers, 'x-gitlab-token');
    const generic = header(headers, 'x-packsync-signature');
    if (gh !== undefined) {
      if (!safeEqual(gh, hmac(this.secret, body)))
        return { status: 401, reason: 'invalid signature: X-Hub-Signature-256 is not the HMAC-SHA256 of the body with the webhook secret' };
      return { provider: 'github' };
    }
    if (gl !== undefined) {
      if (!safeEqual(gl, this.secret)) return { status: 401, reason: 'wrong token: X-Gitlab-Token is not the webhook secret' };
      return { provider: 'gitlab' };
    }
    if (generic !== undefined) {
      if (!safeEqual(generic, hmac(this.secret, body)))
        return {
          status: 401,
          reason: 'invalid signature: X-Packsync-Signature is not sha256=<HMAC-SHA256 of the body with the webhook secret>',
        };
      return { provider: 'generic' };
    }
    return { status: 401, reason: `missing signature: send ${SIGNATURE_HEADERS}` };
  }

  /** What an authenticated delivery asks for: a push to the tracked ref triggers a pass. */
  private judge(headers: IncomingHttpHeaders, body: Buffer, provider: string): Exclude<WebhookVerdict, { status: 401 }> {
    const event = header(headers, 'x-github-event') ?? header(headers, 'x-gitlab-event');
    if (event === 'ping') return { status: 200, reason: 'ping', trigger: false };
    if (event !== undefined && !/^(push|push hook|tag push hook)$/i.test(event))
      return { status: 200, reason: `event ${event} ignored`, trigger: false };
    const pushed = pushedRef(headers, body, provider);
    if ('error' in pushed) return { status: 400, reason: pushed.error };
    const ref = pushed.ref;
    if (!refMatches(this.trackedRef, ref)) return { status: 200, reason: `push to ${ref ?? '?'} is not the tracked ref`, trigger: false };
    return { status: 202, reason: 'push accepted', trigger: true, provider };
  }
}

/**
 * The ref a push names. JSON, or for GitHub also its default content type,
 * `application/x-www-form-urlencoded` with the JSON in the `payload` field (the signature covers the
 * form as sent; regression: such a push was 400 "body is not JSON"). A generic sender's body need not
 * be JSON (any push of it is news); GitLab sends JSON only.
 */
function pushedRef(headers: IncomingHttpHeaders, body: Buffer, provider: string): { ref?: string } | { error: string } {
  if (body.length === 0) return {};
  let text = body.toString('utf8');
  const form = provider === 'github' && /^application\/x-www-form-urlencoded\s*(;|$)/i.test(header(headers, 'content-type') ?? '');
  if (form) {
    const payload = new URLSearchParams(text).get('payload');
    if (payload === null) return { error: 'form body has no payload field (GitHub sends the push as payload=<JSON>)' };
    text = payload;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (provider === 'generic') return {};
    return { error: form ? 'the payload field is not JSON' : 'body is not JSON' };
  }
  const ref = typeof parsed === 'object' && parsed !== null ? (parsed as { ref?: unknown }).ref : undefined;
  return typeof ref === 'string' ? { ref } : {};
}

/** For tests and docs: the signature a sender puts in `X-Hub-Signature-256`. */
export function signBody(secret: string, body: string | Buffer): string {
  return hmac(secret, Buffer.isBuffer(body) ? body : Buffer.from(body));
}
