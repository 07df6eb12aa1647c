/** Reading a request body under a size limit, without cutting off a client that is still sending. */
import type { IncomingMessage } from 'node:http';
import { HttpProblem } from './problems.js';

/** Bytes of an oversized body read and dropped after the 413, before the connection is cut. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/**
 * The whole body, or a 413 as soon as it grows past the limit. Not `for await`: leaving that loop
 * destroys the request and with it the socket, so a client still sending met a reset instead of
 * the 413. The rest of an oversized body is read and dropped, so the answer arrives and the
 * connection stays usable; past DRAIN_LIMIT more bytes the connection is cut.
 */
export function readBody(req: IncomingMessage, maxBody: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      f();
    };
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (settled) {
        if (size > maxBody + DRAIN_LIMIT) req.destroy();
        return;
      }
      if (size > maxBody) settle(() => reject(new HttpProblem(413, `The request body is larger than ${maxBody} bytes.`)));
      else chunks.push(b);
    });
    req.on('end', () => settle(() => resolve(Buffer.concat(chunks))));
    req.on('error', (e) => settle(() => reject(e)));
    req.on('close', () => settle(() => reject(new Error('the client closed the connection before sending the whole body'))));
  });
}
