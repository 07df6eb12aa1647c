/**
 * The inventory on disk (`<state-dir>/inventory.json`). Writes are atomic (temp file, fsync,
 * rename, fsync of the directory), so a process killed at any moment leaves either the old or the
 * new file, never a torn one.
 *
 * Durability has two speeds. An intent is durable before `setIntent` returns: it is what makes a
 * create safe to lose. Every other change (the id after a create, a phase, a record, a removal) is
 * written with the next write, at most `lazyMs` later, and at the latest when the apply ends
 * (`flush`): losing it in a crash is recovered by the intent or by the live state on the next run,
 * and not waiting for an fsync per result let a large converge stop queueing on the disk
 * (bench converge-large: two fsynced rewrites per action dominated the run).
 */
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { INVENTORY_VERSION, emptyInventory } from './inventory-types.js';
import type { Intent, Inventory, InventoryEntry } from './inventory-types.js';

export class InventoryError extends Error {
  readonly code = 'INVENTORY_UNREADABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InventoryError';
  }
}

export async function loadInventory(stateDir: string): Promise<Inventory> {
  const file = join(stateDir, 'inventory.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return emptyInventory();
    throw new InventoryError(`cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new InventoryError(`${file} is not valid JSON (${(e as Error).message}); restore it from a backup or move it away to start over`, { cause: e });
  }
  const inv = data as Partial<Inventory>;
  if (inv.version !== INVENTORY_VERSION || typeof inv.objects !== 'object' || inv.objects === null) {
    throw new InventoryError(`${file} has an unknown format (version ${String(inv.version)}; this packsync reads version ${INVENTORY_VERSION})`);
  }
  return { version: INVENTORY_VERSION, objects: inv.objects, intents: inv.intents ?? {} };
}

export class InventoryStore {
  private chain: Promise<void> = Promise.resolve();
  private dirty = false;
  private lazyTimer: NodeJS.Timeout | null = null;
  private lazyError: unknown = null;
  /** Longest a non-intent change waits for its write. */
  lazyMs = 50;

  private constructor(
    readonly stateDir: string,
    readonly inventory: Inventory,
  ) {}

  static async open(stateDir: string): Promise<InventoryStore> {
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    return new InventoryStore(stateDir, await loadInventory(stateDir));
  }

  /** Durable before it returns (the write carries every change made so far). */
  async setIntent(intent: Intent): Promise<void> {
    this.inventory.intents[intent.key] = intent;
    await this.save();
  }

  put(entry: InventoryEntry, resolveIntent = true): Promise<void> {
    const key = `${entry.kind}/${entry.name}`;
    this.inventory.objects[key] = entry;
    if (resolveIntent) delete this.inventory.intents[key];
    return this.saveSoon();
  }

  patch(key: string, fields: Partial<InventoryEntry>): Promise<void> {
    const e = this.inventory.objects[key];
    if (!e) return Promise.resolve();
    this.inventory.objects[key] = { ...e, ...fields };
    return this.saveSoon();
  }

  remove(key: string): Promise<void> {
    delete this.inventory.objects[key];
    delete this.inventory.intents[key];
    return this.saveSoon();
  }

  clearIntent(key: string): Promise<void> {
    if (!(key in this.inventory.intents)) return Promise.resolve();
    delete this.inventory.intents[key];
    return this.saveSoon();
  }

  /** Schedules a write within `lazyMs`; a failure surfaces at the next `save`/`flush`. */
  private saveSoon(): Promise<void> {
    this.dirty = true;
    if (this.lazyError !== null) {
      const e = this.lazyError;
      this.lazyError = null;
      return Promise.reject(asError(e));
    }
    this.lazyTimer ??= setTimeout(() => {
      this.lazyTimer = null;
      this.save().catch((e: unknown) => {
        this.lazyError = e;
      });
    }, this.lazyMs);
    return Promise.resolve();
  }

  /** Makes every change so far durable. */
  async flush(): Promise<void> {
    if (this.lazyTimer) clearTimeout(this.lazyTimer);
    this.lazyTimer = null;
    await this.save();
    if (this.lazyError !== null) {
      const e = this.lazyError;
      this.lazyError = null;
      throw asError(e);
    }
  }

  /**
   * Writes the current state. Saves are serialised; a save requested while one runs is folded into
   * the next write, which always carries the newest state.
   */
  save(): Promise<void> {
    this.dirty = true;
    this.chain = this.chain.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      await writeAtomic(join(this.stateDir, 'inventory.json'), `${JSON.stringify(this.inventory, null, 2)}\n`);
    });
    return this.chain;
  }
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(typeof e === 'string' ? e : JSON.stringify(e));
}

export async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  const dir = await open(join(file, '..'), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
