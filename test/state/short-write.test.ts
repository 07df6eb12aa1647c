/**
 * A journal append that the disk takes only in part (security review 3 finding 12): before, the
 * part was counted as the whole record, so an intent was torn but acknowledged, the create it guards
 * went out, and the next run found the object live and unowned (`--adopt` needed). Now the append
 * fails (the store turns that into STATE_WRITE_FAILED, before any create) and the journal is cut back
 * to its last whole record. The disk is played by the journal's real file handle taking half a
 * buffer, then failing with ENOSPC, as a nearly full file system does.
 */
import { readFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DirectoryBackend } from '../../src/state/dir-backend.js';
import { InventoryStore } from '../../src/state/inventory-store.js';
import { tempDir } from '../support/temp-dir.js';

/** The backend's journal handle, made to take half of the next write and refuse the one after. */
async function fillingUp(backend: DirectoryBackend): Promise<void> {
  const fh = await (backend as unknown as { handle(): Promise<FileHandle> }).handle();
  const write = fh.write.bind(fh) as (buf: Buffer, offset: number, length: number) => Promise<{ bytesWritten: number }>;
  let calls = 0;
  (fh as unknown as { write: typeof write }).write = async (buf, offset, length) => {
    calls++;
    if (calls === 1) return write(buf, offset, Math.max(1, Math.floor(length / 2)));
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
}

describe('a journal append the disk takes only in part', () => {
  it('fails the append and cuts the journal back to its last whole record', async () => {
    const dir = await tempDir('packsync-short-');
    const backend = new DirectoryBackend(dir);
    const first = '{"op":"put","key":"Flow/a"}\n';
    await backend.append(first, true, 0);
    await fillingUp(backend);
    await expect(backend.append('{"op":"intent","key":"Flow/b","what":"create"}\n', true, Buffer.byteLength(first))).rejects.toMatchObject({
      code: 'ENOSPC',
    });
    expect(await readFile(join(dir, 'journal.jsonl'), 'utf8')).toBe(first);
    await backend.close();
  });

  it('an intent the store cannot record whole is refused as STATE_WRITE_FAILED, and the state reads whole afterwards', async () => {
    const dir = await tempDir('packsync-short-');
    const backend = new DirectoryBackend(dir);
    const store = await InventoryStore.openOn(backend);
    await store.put({ kind: 'Flow', name: 'a', id: 'id-a', specHash: 'h', updatedAt: '2026-11-29T00:00:00Z' } as never);
    await store.flush();
    await fillingUp(backend);
    const intent = { key: 'Flow/b', op: 'create-flow', at: '2026-11-29T00:00:01Z', knownIds: [], match: { name: 'b' } };
    await expect(store.setIntent(intent)).rejects.toMatchObject({ code: 'STATE_WRITE_FAILED' });
    const text = await readFile(join(dir, 'journal.jsonl'), 'utf8');
    expect(text.endsWith('\n') || text === '').toBe(true);
    for (const line of text.split('\n').filter((l) => l !== '')) expect(() => JSON.parse(line) as unknown).not.toThrow();
    await backend.close();
    const again = await InventoryStore.openOn(new DirectoryBackend(dir));
    expect(Object.keys(again.inventory.objects)).toEqual(['Flow/a']);
    expect(again.inventory.intents).toEqual({});
  });
});
