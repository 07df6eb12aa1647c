/**
 * undici's Pool, loaded by itself: `import { Pool } from 'undici'` evaluates the whole package
 * (fetch, WebSocket, caches, HTTP/2, mocks), ~120 ms of every CLI start against ~45 ms for the
 * pool and its request API (docs/performance.md, fleet-cli). undici has no `exports` map, so these
 * files are reachable as they are; `undici@^7` is pinned (package.json), and
 * test/api/undici-pool.test.ts fails if they stop being the package's own Pool and `request`.
 */
import { createRequire } from 'node:module';
import type { Dispatcher, Pool as UndiciPool } from 'undici';

const load = createRequire(import.meta.url);
const base = load('undici/lib/dispatcher/dispatcher.js') as { prototype: Partial<Pick<Dispatcher, 'request'>> };
// What undici's index does for every dispatcher (`Object.assign(Dispatcher.prototype, api)`), for
// the one API method used here.
base.prototype.request ??= load('undici/lib/api/api-request.js') as Dispatcher['request'];

export const Pool = load('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
export type Pool = UndiciPool;
