/**
 * A webhook verdict's `status` is the HTTP answer the server sends (regression: 202 and 200 were
 * inverted against the answer, and a test accepted either).
 */
import { describe, expect, it } from 'vitest';
import { signBody, WebhookVerifier } from '../../src/agent/http/webhook.js';

const SECRET = 'a-webhook-secret';
const push = (ref: string): Buffer => Buffer.from(JSON.stringify({ ref }));
const headers = (body: Buffer, delivery: string): Record<string, string> => ({
  'x-hub-signature-256': signBody(SECRET, body),
  'x-github-event': 'push',
  'x-github-delivery': delivery,
});

describe('webhook verdicts', () => {
  it('202 when a pass is queued, 200 when a valid delivery triggers nothing, 401 when unsigned', () => {
    const v = new WebhookVerifier(SECRET, 'main');
    const body = push('refs/heads/main');
    expect(v.verify(headers(body, 'd1'), body)).toMatchObject({ status: 202, trigger: true });
    expect(v.verify(headers(body, 'd1'), body)).toMatchObject({ status: 200, trigger: false, reason: 'duplicate delivery ignored' });
    const other = push('refs/heads/other');
    expect(v.verify(headers(other, 'd2'), other)).toMatchObject({ status: 200, trigger: false });
    expect(v.verify({ 'x-github-event': 'push' }, body)).toMatchObject({ status: 401 });
  });
});
