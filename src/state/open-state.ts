/**
 * Where the state lives, chosen once per process from `--state-url`/`PACKSYNC_STATE_URL` (remote,
 * `azblob://CONTAINER/PREFIX`) or `--state-dir`/`PACKSYNC_STATE_DIR` (a directory). Every state open
 * goes through here: the engine opens a store per pass, `plan` and `export` read without the lock,
 * `apply` and `run` hold the lock for the whole process.
 */
import { stat } from 'node:fs/promises';
import { lockDirectory } from './dir-lock.js';
import type { HeldLock } from './dir-lock.js';
import type { ContainerClient } from '@azure/storage-blob';
import type { AzureBlobBackend } from './azblob-backend.js';
import { DirectoryBackend } from './dir-backend.js';
import { InventoryStore, readBackend } from './inventory-store.js';
import type { Inventory } from './inventory-types.js';
import { BlobRequestQueue } from './azblob-requests.js';
import { DirectoryRequestQueue } from './request-queue.js';
import type { RequestQueue } from './request-queue.js';
import { StateError } from './state-errors.js';

export interface State {
  /** For messages: `state directory /x` or `remote state azblob://c/p`. */
  readonly description: string;
  /** Where, for messages that say "the state in …": the directory, or `azblob://c/p`. */
  readonly location: string;
  /** The state directory when the state is local (the manifest cache is kept there); undefined for remote state. */
  readonly localDir?: string;
  /** Reads the inventory without the lock and without writing (plan, export). */
  read(): Promise<Inventory>;
  /** Opens the store a pass records into (remote state writes only under the lock). */
  openStore(): Promise<InventoryStore>;
  /** One writer per state: throws `STATE_LOCKED` naming the holder. Held until `close()`. */
  lock(): Promise<void>;
  /** Releases the lock, if held. */
  close(): Promise<void>;
  /** Whether this process holds the lock now. */
  held(): boolean;
  /** Requests queued for the lock's holder (`promote`/`resume` while an apply or agent runs). */
  readonly requests: RequestQueue;
  /**
   * Remote state only: the other state prefixes in the same container (at most 10), so an empty
   * state at a mistyped prefix can name the ones that exist (docs/reconcile.md, "Remote state").
   */
  otherLocations?: () => Promise<string[]>;
}

export interface StateOptions {
  /** Resolved state directory (also the local work directory when the state is remote). */
  stateDir: string;
  stateUrl?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  /** Where a lock takeover is reported (stderr). */
  warn: (message: string) => void;
  /**
   * The command works on a state that exists (export, `state`, promote, resume): a remote state
   * whose container is missing is an error, never read as empty or created (a typo in --state-url).
   */
  existing?: boolean;
  /**
   * The state directory was named (`--state-dir`, `PACKSYNC_STATE_DIR`), not the default
   * `./.packsync`. With `existing`, a named directory that does not exist is an error, as a missing
   * container is (a typo in --state-dir); the default missing is a repository with no state yet
   * (an account exported to bring it under git), read as empty.
   */
  dirGiven?: boolean;
}

export function openState(o: StateOptions): State {
  if (o.stateUrl) return remoteState(o.stateUrl, o);
  return directoryState(o.stateDir, o.warn, o.existing === true && o.dirGiven === true);
}

/** The store for a pass: from a State, or (tests, benchmarks, the demo) a bare directory, unlocked. */
export function openStore(state: State | string): Promise<InventoryStore> {
  return typeof state === 'string' ? InventoryStore.open(state) : state.openStore();
}

function directoryState(dir: string, warn: (message: string) => void, mustExist: boolean): State {
  const backend = new DirectoryBackend(dir);
  let held: HeldLock | null = null;
  // Checked before anything reads or creates the directory (the lock creates it): a mistyped
  // --state-dir must not list nothing, export every owned object again as unowned, or make a new state.
  let found: Promise<void> | null = null;
  const present = (): Promise<void> => (mustExist ? (found ??= requireDirectory(dir)) : Promise.resolve());
  return {
    description: backend.description,
    location: dir,
    localDir: dir,
    read: async () => {
      await present();
      return (await readBackend(backend)).inventory;
    },
    openStore: async () => {
      await present();
      return InventoryStore.openOn(backend);
    },
    lock: async () => {
      await present();
      held ??= await lockDirectory(dir, warn);
      const lease = held;
      backend.fence = (deep) => lease.assertHeld(deep);
    },
    close: async () => {
      const h = held;
      held = null;
      await h?.release();
    },
    held: () => held !== null,
    requests: new DirectoryRequestQueue(dir),
  };
}

async function requireDirectory(dir: string): Promise<void> {
  const st = await stat(dir).catch((e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  });
  if (st?.isDirectory()) return;
  throw new StateError(
    'STATE_NOT_FOUND',
    st
      ? `${dir} is not a directory, so there is no state there; check --state-dir (or PACKSYNC_STATE_DIR)`
      : `the state directory ${dir} does not exist, so there is no state there; check --state-dir (or PACKSYNC_STATE_DIR): a new state is made by the first apply, which creates the directory`,
  );
}

export interface AzblobLocation {
  container: string;
  prefix: string;
}

export function parseStateUrl(url: string): AzblobLocation {
  const m = /^azblob:\/\/([^/?#]+)\/?([^?#]*)$/.exec(url);
  if (!m) throw new StateError('STATE_CONFIG', `--state-url must look like azblob://CONTAINER/PREFIX (got "${url}")`);
  const container = m[1]!;
  if (!/^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/.test(container)) {
    throw new StateError(
      'STATE_CONFIG',
      `"${container}" is not a valid container name (3-63 lowercase letters, digits and single hyphens)`,
    );
  }
  return { container, prefix: m[2]!.replace(/\/+$/, '') };
}

function remoteState(url: string, o: StateOptions): State {
  const loc = parseStateUrl(url);
  const display = `azblob://${loc.container}${loc.prefix ? `/${loc.prefix}` : ''}`;
  const connection = o.env.AZURE_STORAGE_CONNECTION_STRING;
  let container: Promise<ContainerClient> | null = null;
  let backend: Promise<AzureBlobBackend> | null = null;
  let locked = false;
  // The SDK loads only when remote state is used: other commands keep their startup time.
  const getContainer = (): Promise<ContainerClient> =>
    (container ??= (async () => {
      if (!connection)
        throw new StateError(
          'STATE_CONFIG',
          `${display} needs AZURE_STORAGE_CONNECTION_STRING (the storage account's connection string, from a CI secret)`,
        );
      const { BlobServiceClient } = await import('@azure/storage-blob');
      try {
        return BlobServiceClient.fromConnectionString(connection).getContainerClient(loc.container);
      } catch {
        // The SDK's message may quote the connection string: say only that it did not parse.
        throw new StateError('STATE_CONFIG', 'AZURE_STORAGE_CONNECTION_STRING is not a valid storage connection string');
      }
    })());
  const get = (): Promise<AzureBlobBackend> =>
    (backend ??= (async () => {
      const [c, { AzureBlobBackend }] = await Promise.all([getContainer(), import('./azblob-backend.js')]);
      return new AzureBlobBackend(c, loc.prefix, display);
    })());
  let told = false;
  // After a read: a missing container is an error where a state must exist, else a new state, said once.
  const missing = (b: AzureBlobBackend): void => {
    if (!b.containerMissing) return;
    if (o.existing) throw b.missing();
    if (!told)
      o.warn(
        `${display}: the container "${loc.container}" does not exist yet: read as a new, empty state (the first apply creates it); check --state-url if a state should be there`,
      );
    told = true;
  };
  return {
    description: `remote state ${display}`,
    location: display,
    read: async () => {
      const b = await get();
      const { inventory } = await readBackend(b);
      missing(b);
      return inventory;
    },
    openStore: async () => {
      const b = await get();
      const store = await InventoryStore.openOn(b);
      missing(b);
      return store;
    },
    lock: async () => {
      await (await get()).lock(o.warn, !o.existing);
      locked = true;
    },
    close: async () => {
      locked = false;
      if (backend) await (await backend).unlock();
    },
    held: () => locked,
    requests: new BlobRequestQueue(getContainer, loc.prefix),
    otherLocations: async () => {
      const c = await getContainer();
      const found = new Set<string>();
      for await (const blob of c.listBlobsFlat()) {
        const m = /^(?:(.*)\/)?(?:journal\.jsonl|inventory\.json)$/.exec(blob.name);
        if (!m || (m[1] ?? '') === loc.prefix) continue;
        found.add(`azblob://${loc.container}${m[1] ? `/${m[1]}` : ''}`);
        if (found.size >= 10) break;
      }
      return [...found].sort();
    },
  };
}
