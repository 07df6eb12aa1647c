/**
 * The inventory on disk (`<state-dir>/inventory.json`). Every change is written at once and
 * atomically (temp file, fsync, rename, fsync of the directory), so a process killed at any moment
 * leaves either the old or the new file, never a torn one.
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

  private constructor(
    readonly stateDir: string,
    readonly inventory: Inventory,
  ) {}

  static async open(stateDir: string): Promise<InventoryStore> {
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    return new InventoryStore(stateDir, await loadInventory(stateDir));
  }

  async setIntent(intent: Intent): Promise<void> {
    this.inventory.intents[intent.key] = intent;
    await this.save();
  }

  async put(entry: InventoryEntry, resolveIntent = true): Promise<void> {
    const key = `${entry.kind}/${entry.name}`;
    this.inventory.objects[key] = entry;
    if (resolveIntent) delete this.inventory.intents[key];
    await this.save();
  }

  async patch(key: string, fields: Partial<InventoryEntry>): Promise<void> {
    const e = this.inventory.objects[key];
    if (!e) return;
    this.inventory.objects[key] = { ...e, ...fields };
    await this.save();
  }

  async remove(key: string): Promise<void> {
    delete this.inventory.objects[key];
    delete this.inventory.intents[key];
    await this.save();
  }

  async clearIntent(key: string): Promise<void> {
    if (!(key in this.inventory.intents)) return;
    delete this.inventory.intents[key];
    await this.save();
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
