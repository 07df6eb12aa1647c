/**
 * How many reads a pass keeps going when its caller names no number: twice the client's request
 * slots, so that a read is waiting whenever an answer frees a slot, and the transport hands the
 * slot over before the answer is read (api/transport.ts; docs/architecture.md, "The engine").
 * The CLI's `--read-concurrency` defaults to the same (cli/plan-options.ts); `export`, `update`'s
 * catalog reads and plan bodies, and the demo read through this default (they kept 8, or 16,
 * whatever `--api-concurrency` said).
 */
import type { PacksyncApi } from '../api/operations.js';

export function readsAtOnce(api: PacksyncApi, asked: number | undefined): number {
  return asked ?? 2 * (api.requestSlots?.() ?? 8);
}
