import { mkdtemp, readFile, readdir, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InventoryStore, loadInventory } from '../../src/state/inventory-store.js';

const entry = (name: string, id: string) => ({
  kind: 'Flow' as const,
  name,
  id,
  specHash: 'h',
  spec: { name },
  revision: 'r',
  updatedAt: 't',
});
const intent = (name: string) => ({ key: `Flow/${name}`, op: 'create-flow', at: 't', knownIds: [], match: { name } });
const lines = async (dir: string): Promise<Record<string, unknown>[]> =>
  (await readFile(join(dir, 'journal.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('inventory store (snapshot + journal)', () => {
  it('makes an intent durable before setIntent resolves, appends every change as one line, and compacts on close', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inv-'));
    const store = await InventoryStore.open(dir);
    await store.setIntent(intent('a'));
    // Durable: a fresh reader (another process after a crash) sees it.
    expect((await loadInventory(dir)).intents['Flow/a']).toBeDefined();
    await store.put(entry('a', 'id-a'));
    await store.patch('Flow/a', { revision: 'r2' });
    await store.flush();
    const back = await loadInventory(dir);
    expect(back.objects['Flow/a']).toMatchObject({ id: 'id-a', revision: 'r2' });
    expect(back.intents['Flow/a']).toBeUndefined();
    // One line per change, never a rewrite of the whole state: no snapshot exists yet.
    expect((await lines(dir)).map((l) => l.op)).toEqual(['intent', 'object', 'object']);
    expect((await readdir(dir)).sort()).toEqual(['journal.jsonl']);
    await store.remove('Flow/a');
    await store.close();
    // close(): the journal is folded into the snapshot and emptied.
    expect(await readFile(join(dir, 'journal.jsonl'), 'utf8')).toBe('');
    const snap = JSON.parse(await readFile(join(dir, 'inventory.json'), 'utf8')) as { version: number; seq: number; objects: object };
    expect(snap).toMatchObject({ version: 1, seq: 4, objects: {} });
    expect(await loadInventory(dir)).toEqual({ version: 1, objects: {}, intents: {} });
    expect((await readdir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('serves many concurrent intents with few fsyncs (group commit)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inv-'));
    const store = await InventoryStore.open(dir);
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.setIntent(intent(`f${i}`))));
    const back = await loadInventory(dir);
    expect(Object.keys(back.intents)).toHaveLength(200);
    // 200 durable intents; one sync serves every intent queued while the previous one ran.
    expect(store.stats.syncs).toBeGreaterThanOrEqual(1);
    expect(store.stats.syncs).toBeLessThanOrEqual(5);
    expect(store.stats.appends).toBe(store.stats.syncs);
    // Intents that arrive one after another each wait for their own sync: the count is honest.
    for (let i = 0; i < 5; i++) await store.setIntent(intent(`s${i}`));
    expect(store.stats.syncs).toBeGreaterThanOrEqual(6);
  });

  it('keeps the cost of a change independent of the state size (no whole-state write per action)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inv-'));
    const store = await InventoryStore.open(dir);
    for (let i = 0; i < 3000; i++) await store.put(entry(`f${i}`, `id-${i}`));
    await store.close();
    const big = await InventoryStore.open(dir);
    const before = big.stats.bytesAppended;
    await big.setIntent(intent('new'));
    await big.put(entry('new', 'id-new'));
    await big.flush();
    // Two lines, not 3,000 entries.
    expect(big.stats.bytesAppended - before).toBeLessThan(600);
    expect(big.stats.snapshots).toBe(0);
    await big.close();
    expect(Object.keys((await loadInventory(dir)).objects)).toHaveLength(3001);
  });

  it('reads and migrates a state directory written before the journal (inventory.json only)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inv-'));
    const old = { version: 1, objects: { 'Flow/a': entry('a', 'id-a') }, intents: { 'Flow/b': intent('b') } };
    await writeFile(join(dir, 'inventory.json'), `${JSON.stringify(old, null, 2)}\n`);
    expect(await loadInventory(dir)).toEqual(old);
    const store = await InventoryStore.open(dir);
    expect(store.inventory).toEqual(old);
    await store.put(entry('b', 'id-b'));
    await store.close();
    const snap = JSON.parse(await readFile(join(dir, 'inventory.json'), 'utf8')) as {
      seq: number;
      objects: Record<string, { id: string }>;
      intents: object;
    };
    expect(snap.seq).toBe(1);
    expect(Object.fromEntries(Object.entries(snap.objects).map(([k, v]) => [k, v.id]))).toEqual({ 'Flow/a': 'id-a', 'Flow/b': 'id-b' });
    expect(snap.intents).toEqual({});
  });

  it('ignores a torn last line, and replaces it before appending', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inv-'));
    const store = await InventoryStore.open(dir);
    await store.put(entry('a', 'id-a'));
    await store.flush();
    // A crash in the middle of a write: half a record, no newline.
    await appendFile(join(dir, 'journal.jsonl'), '{"seq":2,"op":"object","key":"Flow/b","entry":{"kind":"Fl');
    const back = await loadInventory(dir);
    expect(Object.keys(back.objects)).toEqual(['Flow/a']);
    const again = await InventoryStore.open(dir);
    await again.put(entry('c', 'id-c'));
    await again.flush();
    // The next record did not glue itself to the torn one.
    expect(Object.keys((await loadInventory(dir)).objects).sort()).toEqual(['Flow/a', 'Flow/c']);
    expect(await readFile(join(dir, 'journal.jsonl'), 'utf8')).not.toContain('"kind":"Fl\n');
  });

  it('skips journal records the snapshot already holds (a crash between snapshot and truncate)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inv-'));
    const store = await InventoryStore.open(dir);
    await store.put(entry('a', 'id-a'));
    await store.remove('Flow/a');
    await store.flush();
    const journal = await readFile(join(dir, 'journal.jsonl'), 'utf8');
    await store.put(entry('a', 'id-a2'));
    await store.close();
    // Put the pre-compaction journal back: its records are all at or below the snapshot's seq.
    await writeFile(join(dir, 'journal.jsonl'), journal);
    expect((await loadInventory(dir)).objects['Flow/a']?.id).toBe('id-a2');
  });

  it('compacts when the journal outgrows its bound, and loses nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inv-'));
    const store = await InventoryStore.open(dir);
    store.compactMinBytes = 20_000;
    for (let i = 0; i < 400; i++) {
      await store.put(entry(`f${i % 50}`, `id-${i}`));
      // A flush waits behind the compaction its predecessor's batch started.
      if (i % 20 === 19) await store.flush();
    }
    expect(store.stats.snapshots).toBeGreaterThan(0);
    expect((await readFile(join(dir, 'journal.jsonl'), 'utf8')).length).toBeLessThan(20_000 * 2);
    const back = await loadInventory(dir);
    expect(Object.keys(back.objects)).toHaveLength(50);
    expect(back.objects['Flow/f49']?.id).toBe('id-399');
  });

  it('malformed-snapshot-unreadable: a snapshot that is JSON but not shaped as packsync writes it is INVENTORY_UNREADABLE, not a JavaScript error', async () => {
    // Before: `null` gave "Cannot read properties of null (reading 'version')", an entry without a
    // kind gave "… (reading 'toLowerCase')" in plan and "… (reading 'padEnd')" in state list.
    const dir = await mkdtemp(join(tmpdir(), 'inv-'));
    for (const text of [
      'null',
      '[]',
      '{"version":1,"objects":{"Flow/pwsh":null}}',
      '{"version":1,"objects":{"Flow/pwsh":{"kind":"Flow"}}}',
      '{"version":1,"objects":{},"intents":{"Flow/a":{"key":"Flow/a"}}}',
    ]) {
      await writeFile(join(dir, 'inventory.json'), text);
      await expect(loadInventory(dir), text).rejects.toMatchObject({
        code: 'INVENTORY_UNREADABLE',
        message: expect.stringMatching(/inventory\.json has an unknown format .*restore it from a backup or move it away/),
      });
    }
    // The first field that is not a string is named.
    await writeFile(join(dir, 'inventory.json'), '{"version":1,"objects":{"Flow/pwsh":{"kind":"Flow","name":"pwsh","id":7}}}');
    await expect(loadInventory(dir)).rejects.toThrow('objects["Flow/pwsh"].id is not a string');
  });

  it('refuses a corrupt snapshot or a corrupt journal line before the end, with a clear message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inv-'));
    await writeFile(join(dir, 'inventory.json'), '{"version": 1, "objects": {');
    await expect(loadInventory(dir)).rejects.toMatchObject({
      code: 'INVENTORY_UNREADABLE',
      message: expect.stringMatching(/inventory\.json is not valid JSON/),
    });
    await writeFile(join(dir, 'inventory.json'), '{"version": 7, "objects": {}}');
    await expect(loadInventory(dir)).rejects.toThrow(/unknown format \(version 7/);
    expect(await readFile(join(dir, 'inventory.json'), 'utf8')).toContain('"version": 7');
    await writeFile(join(dir, 'inventory.json'), '{"version": 1, "objects": {}}');
    await writeFile(
      join(dir, 'journal.jsonl'),
      '{"seq":1,"op":"remove","key":"Flow/a"}\nnot json\n{"seq":3,"op":"remove","key":"Flow/b"}\n',
    );
    await expect(loadInventory(dir)).rejects.toMatchObject({
      code: 'INVENTORY_UNREADABLE',
      message: expect.stringMatching(/journal\.jsonl line 2 is corrupt/),
    });
  });

  it('malformed-journal-record-unreadable: a journal record that is JSON but not shaped as packsync writes it is INVENTORY_UNREADABLE at its line, before a good line or as the last', async () => {
    // Before: `entry: null` gave "Cannot read properties of null", a number id "id.toLowerCase is
    // not a function" in plan, and an unknown op was silently dropped.
    const bad = [
      ['{"seq":54,"op":"object","key":"Flow/pwsh","entry":null}', 'entry is not an object'],
      ['{"seq":54,"op":"object","key":"Flow/pwsh","entry":{"kind":"Flow","name":"pwsh","id":42}}', 'entry.id is not a string'],
      ['{"seq":54,"op":"object","key":7,"entry":{"kind":"Flow","name":"pwsh","id":"42","specHash":"h"}}', 'key is not a string'],
      ['{"seq":54,"op":"remove"}', 'key is not a string'],
      ['{"seq":54,"op":"intent","intent":null}', 'intent is not an intent'],
      ['{"seq":54,"op":"frobnicate"}', 'unknown op "frobnicate"'],
      ['{"seq":54,"op":"history","event":null}', 'event is not a history event'],
      ['{"seq":54,"op":"history","event":{"type":"counts","deploymentId":"d","tenants":null}}', 'history event "counts"'],
      ['{"seq":54,"op":"history","event":{"type":"replay"}}', 'unknown history event "replay"'],
      ['{"op":"remove","key":"Flow/a"}', 'not a journal record'],
    ] as const;
    for (const [record, what] of bad) {
      for (const [where, after] of [
        ['before a good line', '{"seq":55,"op":"remove","key":"Flow/b"}\n'],
        ['as the last line', ''],
      ] as const) {
        const dir = await mkdtemp(join(tmpdir(), 'inv-'));
        const store = await InventoryStore.open(dir);
        await store.put(entry('a', 'id-a'));
        await store.close();
        await appendFile(join(dir, 'journal.jsonl'), '{"seq":53,"op":"remove","key":"Flow/x"}\n' + record + '\n' + after);
        await expect(loadInventory(dir), `${record} ${where}`).rejects.toMatchObject({
          code: 'INVENTORY_UNREADABLE',
          message: expect.stringMatching(/journal\.jsonl line 2 is corrupt \(.*restore the state from a backup or move it away/),
        });
        await expect(loadInventory(dir), `${record} ${where}`).rejects.toThrow(what);
      }
    }
  });

  it('malformed-journal-record-unreadable: every record packsync writes still loads, and a torn last line is still ignored', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inv-'));
    const store = await InventoryStore.open(dir);
    await store.setIntent(intent('a'));
    await store.put(entry('a', 'id-a'));
    await store.setIntent(intent('b'));
    await store.clearIntent('Flow/b');
    await store.remove('Flow/a');
    await store.flush();
    await appendFile(join(dir, 'journal.jsonl'), '{"seq":99,"op":"object","key":"Flow/c","entry":null');
    const back = await loadInventory(dir);
    expect(back.objects).toEqual({});
    expect(back.intents).toEqual({});
    await store.close();
  });
});
