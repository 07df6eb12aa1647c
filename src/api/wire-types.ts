/**
 * The wire types and the client's value tables, now one file per resource group under `wire/`
 * (see `wire/index.ts` for what is shared with the simulator and what is not). This module stays
 * so that the many `wire-types.js` imports across packsync, and branches in flight, keep working.
 */
export * from './wire/index.js';
