/**
 * Wire types of the Package and Deployment Management Service v1 API, one file per resource group.
 *
 * Its *types* are the single contract between the API client and the simulator (the simulator
 * imports nothing else from `src/api/`, and only with `import type`). Its *value tables*
 * (`codes.ts`) are the client's alone: the simulator keeps its own (`src/simulator/vocabulary.ts`)
 * so a wrong guess is not mirrored, and a test pins both to `docs/api-model.md`. Field names follow
 * what public clients show (see `docs/api-model.md`, where each field is marked "seen in public
 * clients" or "chosen"). Readers must stay tolerant: the real service may add fields, and where
 * clients disagree the client accepts every variant (see `tolerant.ts`).
 */
export * from './scalars.js';
export * from './codes.js';
export * from './paging.js';
export * from './catalog.js';
export * from './templates.js';
export * from './packages.js';
export * from './tenants.js';
export * from './flows.js';
export * from './radar.js';
export * from './problem.js';
