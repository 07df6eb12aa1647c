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

/** Writes a route's result; returns the status sent, for the journal. */
export function send(res: ServerResponse, r: RouteResult): number {
  const status = r.status ?? 200;
  const headers: Record<string, string> = { ...r.headers };
  if (r.binary) {
    headers['content-type'] = r.binary.contentType;
    if (r.binary.fileName) headers['content-disposition'] = contentDisposition(r.binary.fileName);
    res.writeHead(status, headers).end(r.binary.body);
  } else if (r.json !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8';
    res.writeHead(status, headers).end(JSON.stringify(r.json));
  } else {
    res.writeHead(status, { ...headers, 'content-length': '0' }).end();
  }
  return status;
}

/** Writes a problem whose `instance` is the request path; returns the status sent, for the journal. */
export function sendProblem(res: ServerResponse, p: HttpProblem, instance: string): number {
  res
    .writeHead(p.status, { 'content-type': 'application/problem+json; charset=utf-8', ...p.headers })
    .end(JSON.stringify(p.body(instance)));
  return p.status;
}
