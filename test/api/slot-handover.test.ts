/**
 * A slot freed by an answer goes to the next request before that answer is read
 * (docs/performance.md, "answers in bursts"). Answers to requests sent together come back
 * together; when each answer was parsed and handled before the next socket's answer was taken in,
 * the request waiting for the last slot of a burst went out only after every other answer had been
 * read (regression: a large fleet's no-op read ~670 flows a second where a bare client got ~740).
 * Here two answers arrive in one turn of the event loop and two requests wait for their slots: both
 * waiting requests must be on the wire before either answer is read.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

/** Answers nothing until `hold` requests are waiting, then answers them all in the same tick. */
async function burstService(hold: number): Promise<string> {
  let waiting: { res: ServerResponse; body: string }[] = [];
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const id = (req.url ?? '').split('/').pop() ?? '';
    res.setHeader('content-type', 'application/json');
    waiting.push({ res, body: JSON.stringify({ id, name: id }) });
    if (waiting.length < hold) return;
    const now = waiting;
    waiting = [];
    for (const w of now) w.res.end(w.body);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A pool that writes down each request it is handed, in order. */
class RecordingPool extends Pool {
  constructor(
    url: string,
    private readonly log: string[],
  ) {
    super(url, { connections: 2 });
  }
  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.log.push(`sent ${opts.path.split('/').pop()}`);
    return super.dispatch(opts, handler);
  }
}

const ID = (n: number): string => `00000000-0000-0000-0000-00000000000${n}`;

describe('a slot freed by an answer', () => {
  it('goes to the waiting request before the answer is read, for every answer of a burst', async () => {
    const url = await burstService(2);
    const log: string[] = [];
    const pool = new RecordingPool(url, log);
    const api = createApiClient({ baseUrl: url, apiKey: 'k', concurrency: 2, dispatcher: pool });
    try {
      const read = (n: number): Promise<void> =>
        api.getPackage(ID(n)).then((p) => {
          log.push(`read ${p.id.slice(-1)}`);
        });
      // 1 and 2 take both slots and are answered together; 3 and 4 wait for their slots.
      await Promise.all([read(1), read(2), read(3), read(4)]);
      const at = (e: string): number => log.indexOf(e);
      expect(log).toHaveLength(8);
      expect(at(`sent ${ID(3)}`)).toBeLessThan(at('read 1'));
      expect(at(`sent ${ID(4)}`)).toBeLessThan(at('read 1'));
      expect(at(`sent ${ID(4)}`)).toBeLessThan(at('read 2'));
    } finally {
      await api.close();
      await pool.close();
    }
  });
});
