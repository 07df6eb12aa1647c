// A module of its own: the CLI reads it when it registers its flags, before any of apply/ is loaded.
/**
 * Plan actions in flight at once, unless `--concurrency` says otherwise. Generous on purpose: the API
 * client bounds the requests in flight (`--api-concurrency`) and their rate on its own, and an action
 * that waits for the service's work (a package processing) holds only a timer. With 4, those waits
 * left the client idle most of a large converge (docs/performance.md, "fleet-cli").
 */
export const DEFAULT_ACTION_CONCURRENCY = 32;

/**
 * Waits in flight per action slot: a wait holds a timer and an occasional poll, not a write, so
 * waits have their own slots (executor.ts), bounded so that thousands of processing packages do
 * not poll the service all at once.
 */
export const WAIT_SLOTS_PER_SLOT = 8;
