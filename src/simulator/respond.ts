/** Writing an answer: a route's result (JSON, binary or empty), or RFC 7807 problem details. */
import type { ServerResponse } from 'node:http';
import type { HttpProblem } from './problems.js';
import type { RouteResult } from './router.js';

/**
 * RFC 6266: a printable-ASCII fallback plus the exact name in RFC 8187 `filename*`. Product names
 * are user input (`Café ✓`, even a newline): written raw they made the header invalid, and Node
 * refused the whole response with a 500.
 */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '');
  const exact = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/**
 * An answer made but not yet written. The `/v1` pipeline makes it when a request arrives and writes
 * it when the request's latency has passed (`dispatch.ts`), so the JSON is serialised off the
 * moment answers are due.
 */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
}

/** A route's result (JSON, binary or empty) as the answer to write. */
export function answerOf(r: RouteResult): Answer {
  const status = r.status ?? 200;
  const headers: Record<string, string> = { ...r.headers };
  if (r.binary) {
    headers['content-type'] = r.binary.contentType;
    if (r.binary.fileName) headers['content-disposition'] = contentDisposition(r.binary.fileName);
    return { status, headers, body: r.binary.body };
  }
  if (r.json !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8';
    return { status, headers, body: JSON.stringify(r.json) };
  }
  return { status, headers: { ...headers, 'content-length': '0' }, body: undefined };
}

/** Problem details whose `instance` is the request path, as the answer to write. */
export function problemAnswer(p: HttpProblem, instance: string): Answer {
  return {
    status: p.status,
    headers: { 'content-type': 'application/problem+json; charset=utf-8', ...p.headers },
    body: JSON.stringify(p.body(instance)),
  };
}

/** Writes an answer; returns the status sent, for the journal. */
export function write(res: ServerResponse, a: Answer): number {
  res.writeHead(a.status, a.headers).end(a.body);
  return a.status;
}

/** Writes a route's result; returns the status sent, for the journal. */
export function send(res: ServerResponse, r: RouteResult): number {
  return write(res, answerOf(r));
}

/** Writes a problem whose `instance` is the request path; returns the status sent, for the journal. */
export function sendProblem(res: ServerResponse, p: HttpProblem, instance: string): number {
  return write(res, problemAnswer(p, instance));
}
