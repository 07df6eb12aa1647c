/**
 * A cold load's parsing on two threads. Parsing YAML is most of the CPU of a load the manifest
 * cache cannot answer (a first apply, or every CI run on remote state, whose cache lives in memory
 * only): 3,770 files took ~2.5 s of one core at fleet scale while the other sat idle. When enough
 * files are new, a worker parses and checks two in five of them into cache entries while this
 * thread parses the rest; the entries are then read like cache hits (3,770 new files: a load of
 * 2.5–3.1 s became 2.1–2.7 s here). Never required: a worker that
 * cannot start (or a file it could not cache) is parsed here, with the same result. Files in the
 * plain style are not shared since the fast path reads them (plain-yaml.ts: the same 3,770 files
 * in ~0.6 s of this thread, where a worker's start and schema compilation alone cost ~0.4 s).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Fewer new files than this (not in the plain style) are parsed here: a worker's start (~0.3 s: a thread and its modules) would cost more than it saves. */
export const PARALLEL_MIN_FILES = 400;

export interface ColdFile {
  file: string;
  text: string;
}

/** What the main thread sends the worker (parse-worker.ts), and what it answers. */
export interface ParseRequest {
  files: readonly ColdFile[];
}

export type ParseReply = { entries: (string | null)[] };

/**
 * Starts parsing `files` in a worker; resolves to each file's cache entry JSON (null: parse it
 * here), or undefined when no worker could do it. Rejects never.
 */
export function parseInWorker(files: readonly ColdFile[]): Promise<(string | null)[] | undefined> {
  if (files.length === 0 || availableParallelism() < 2) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      // The worker's young generation as small as the CLI's own (its bin's --max-semi-space-size=4):
      // by default a worker's would add tens of MiB to a cold load's peak.
      worker = new Worker(new URL('./parse-worker.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: 12 } });
    } catch {
      resolve(undefined);
      return;
    }
    const done = (v: (string | null)[] | undefined): void => {
      resolve(v);
      void worker.terminate();
    };
    worker.once('message', (reply: ParseReply) => done(reply.entries.length === files.length ? reply.entries : undefined));
    worker.once('error', () => done(undefined));
    worker.once('exit', () => done(undefined));
    worker.postMessage({ files } satisfies ParseRequest);
  });
}
