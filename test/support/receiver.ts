/** A local HTTP receiver on port 0 that records what it was sent and answers with scripted statuses. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './poll.js';

export interface Received {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Receiver {
  url: string;
  requests: Received[];
  /** Statuses for the next answers, in order; 200 once they run out. */
  answer: number[];
  /** Bodies for the next successful answers, in order; `{"ok":true}` once they run out. */
  replies: string[];
  /** Resolves when at least `n` requests arrived (deadline 10 s). */
  waitFor: (n: number) => Promise<Received[]>;
  close: () => Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: Received[] = [];
  const answer: number[] = [];
  const replies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = answer.shift() ?? 200;
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(status < 300 ? (replies.shift() ?? '{"ok":true}') : '{"message":"nope"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    answer,
    replies,
    waitFor: (n) =>
      until(`${n} request(s) at the receiver`, () => requests.length >= n && requests, 10_000, {
        intervalMs: 20,
        detail: () => requests.map((r) => r.path),
      }),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
