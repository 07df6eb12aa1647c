/** A generic webhook (docs/agent.md, "Notifications"): the event as JSON, signed with HMAC-SHA256 when a secret is set. */
import { createHmac } from 'node:crypto';
import { JSON_HEADERS } from '../provider-types.js';
import type { ProviderKind } from '../provider-types.js';

/** `sha256=` + lowercase hex HMAC-SHA256 of the exact body bytes. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export const webhook: ProviderKind = {
  type: 'webhook',
  check: (p) => (p.address ? null : `provider "${p.name}" (webhook) needs addressFile (the webhook URL)`),
  event: (p, e) => {
    const body = JSON.stringify(e);
    return {
      url: p.address!,
      headers: { ...JSON_HEADERS, ...(p.secret ? { 'x-packsync-signature': signature(p.secret, body) } : {}) },
      body,
    };
  },
};
