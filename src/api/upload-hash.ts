/**
 * The SHA-256 of every byte an upload sends, per file, hashed from the very buffers that are sent.
 *
 * On this thread, hashing 1 GiB holds the event loop for ~0.8 s; while it hashes, the request on
 * the wire cannot refill its socket, so sending and hashing took turns and an upload ran at about
 * half the rate of a plain POST of the same bytes. A large upload therefore hashes on a worker
 * thread that reads the same shared buffers the requests send (docs/performance.md "upload").
 * A buffer is refilled only after both its request answered and its hash finished.
 */
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Smaller uploads hash here: starting a thread (~20 ms) costs more than hashing this much. */
export const WORKER_HASH_MIN_BYTES = 64 * 1024 * 1024;

export interface ChunkHasher {
  /** Where the hashing runs. */
  readonly thread: 'this' | 'worker';
  /** The two buffers chunks are read into and sent from. */
  readonly bufs: [Buffer, Buffer];
  /** Hashes `bufs[slot][0, length)` into the current file's digest; resolves when it is hashed. */
  update(slot: 0 | 1, length: number): Promise<void>;
  /** The current file's hex digest, after every update before it; the next update starts a new file. */
  digest(): Promise<string>;
  close(): Promise<void>;
}

/** Hashes on this thread, as each chunk is read. */
class LocalHasher implements ChunkHasher {
  readonly thread = 'this';
  readonly bufs: [Buffer, Buffer];
  private hash: Hash = createHash('sha256');

  constructor(bufSize: number) {
    this.bufs = [Buffer.allocUnsafe(bufSize), Buffer.allocUnsafe(bufSize)];
  }

  update(slot: 0 | 1, length: number): Promise<void> {
    this.hash.update(this.bufs[slot].subarray(0, length));
    return Promise.resolve();
  }

  digest(): Promise<string> {
    const hex = this.hash.digest('hex');
    this.hash = createHash('sha256');
    return Promise.resolve(hex);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The worker's whole program. Inline (eval) so it needs no file of its own next to this module,
 * which runs from both src/ (tests) and dist/. Answers every message, in order.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { shared, bufSize } = workerData;
let hash = createHash('sha256');
parentPort.on('message', (m) => {
  if (m === 'digest') {
    parentPort.postMessage(hash.digest('hex'));
    hash = createHash('sha256');
    return;
  }
  hash.update(new Uint8Array(shared, m.slot * bufSize, m.length));
  parentPort.postMessage(null);
});
`;

type Waiter = { resolve: (v: string | null) => void; reject: (e: Error) => void };

/** Hashes on a worker thread from buffers shared with it; the worker answers in the order asked. */
class WorkerHasher implements ChunkHasher {
  readonly thread = 'worker';
  readonly bufs: [Buffer, Buffer];
  private readonly worker: Worker;
  private readonly waiting: Waiter[] = [];
  private failure: Error | undefined;

  constructor(bufSize: number) {
    const shared = new SharedArrayBuffer(bufSize * 2);
    this.bufs = [Buffer.from(shared, 0, bufSize), Buffer.from(shared, bufSize, bufSize)];
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { shared, bufSize },
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    this.worker.on('message', (m: string | null) => this.waiting.shift()?.resolve(m));
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', () => this.fail(new Error('the upload hashing thread stopped')));
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const w of this.waiting.splice(0)) w.reject(this.failure);
  }

  private ask(message: unknown): Promise<string | null> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(message);
    });
  }

  async update(slot: 0 | 1, length: number): Promise<void> {
    await this.ask({ slot, length });
  }

  async digest(): Promise<string> {
    return String(await this.ask('digest'));
  }

  async close(): Promise<void> {
    this.failure ??= new Error('the upload hashing thread was closed');
    await this.worker.terminate();
  }
}

/** A hasher for an upload of `bytesTotal` bytes through buffers of `bufSize` bytes. */
export function chunkHasher(bufSize: number, bytesTotal: number): ChunkHasher {
  if (bytesTotal < WORKER_HASH_MIN_BYTES || availableParallelism() < 2) return new LocalHasher(bufSize);
  return new WorkerHasher(bufSize);
}
