/**
 * How many reads a pass keeps going when its caller names no number (`--read-concurrency`): twice
 * the client's request slots (`--api-concurrency`), so that a read is waiting whenever an answer
 * frees a slot, and the transport hands the slot over before the answer is read (api/transport.ts;
 * docs/architecture.md, "The engine"); the client still has at most its slots on the wire. A
 * default of 8 left half of the client's slots idle on a large fleet's no-op, and one of exactly the
 * client's slots refilled a slot only after its answer was read (docs/performance.md, "fleet-cli"
 * and "answers in bursts"). The one place this rule is written: `plan`, `apply` and `run`
 * (cli/plan-options.ts), `export`, `update`'s catalog reads and plan bodies, and the demo all
 * read through it.
 */
import type { PacksyncApi } from '../api/operations.js';

export function readsAtOnce(api: PacksyncApi, asked: number | undefined): number {
  return asked ?? 2 * (api.requestSlots?.() ?? 8);
}
