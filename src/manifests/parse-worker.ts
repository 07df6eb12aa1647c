/**
 * A worker thread that parses and checks manifest files for a cold load (parallel-parse.ts): each
 * file comes back as the manifest cache's entry for it (cached-load.ts `cacheEntry`), JSON the
 * main thread reads as it reads a cache hit, or null when the file has a problem of its own (the
 * main thread parses that one itself, so problems are always computed where they are reported).
 */
import { parentPort } from 'node:worker_threads';
import { cacheEntry } from './cached-load.js';
import { checkDocument } from './check-document.js';
import { prelocated } from './positions.js';
import { parseYamlFile } from './yaml-source.js';
import type { ParseReply, ParseRequest } from './parallel-parse.js';

parentPort?.once('message', (req: ParseRequest) => {
  const entries = req.files.map(({ file, text }) => {
    try {
      const f = parseYamlFile(file, text, { prelocate: prelocated });
      return (
        cacheEntry(
          f,
          f.documents.map((d) => checkDocument(d)),
        ) ?? null
      );
    } catch {
      return null;
    }
  });
  parentPort?.postMessage({ entries } satisfies ParseReply);
});
