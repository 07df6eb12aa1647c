/**
 * A redirect from the service (a wrong --api-url: http for https, a proxy) is not followed and is
 * reported as such (regression: a 307 was API_BAD_REQUEST with nothing to act on). Real HTTP: the
 * redirect's target is a second server that must see no request, so the API key never travels.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

describe('a redirect from the service', () => {
  it('is API_INVALID_RESPONSE naming --api-url, not followed, and the key never reaches the target', async () => {
    const reached: string[] = [];
    const target = await serve((req, res) => {
      reached.push(String(req.headers['x-api-key'] ?? ''));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[]}');
    });
    const base = await serve((req, res) => res.writeHead(307, { location: `${target}${req.url ?? '/'}` }).end());
    const api = createApiClient({ baseUrl: `${base}/v1`, apiKey: 'key-SECRET-0123' });
    try {
      const e = await api.listTemplates().then(
        () => new Error('no error') as Error & { code?: string },
        (x: unknown) => x as Error & { code?: string },
      );
      expect(e).toMatchObject({ code: 'API_INVALID_RESPONSE' });
      expect(e.message).toMatch(/307 Temporary Redirect.*redirected, which packsync does not follow: check --api-url/);
      expect(e.message).not.toContain('key-SECRET-0123');
      expect(reached).toEqual([]);
    } finally {
      await api.close();
    }
  });
});
