/**
 * The Pool the API client loads by itself (src/api/undici-pool.ts) is undici's own, with undici's
 * own `request`: a later undici that moves its files fails here, not in a user's first call.
 */
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type * as Undici from 'undici';
import { Pool } from '../../src/api/undici-pool.js';

describe('undici-pool', () => {
  it("is the package's Pool, and its request is the package's", async () => {
    const undici = createRequire(import.meta.url)('undici') as typeof Undici;
    expect(Pool).toBe(undici.Pool);
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 1 });
    try {
      expect(Object.getPrototypeOf(pool)).toBe(undici.Pool.prototype);
      expect(Reflect.get(pool, 'request')).toBe(Reflect.get(undici.Dispatcher.prototype, 'request'));
      const res = await pool.request({ path: '/', method: 'GET' });
      expect(await res.body.text()).toBe('ok');
    } finally {
      await pool.close();
      server.close();
    }
  });
});
