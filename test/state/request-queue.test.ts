import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RequestQueue } from '../../src/state/request-queue.js';
import { tempDir } from '../support/repo.js';

const req = (id: string) => ({ id, command: 'promote' as const, key: 'Deployment/a', at: '2026-11-23T00:00:00Z', pid: 1 });

describe('request queue', () => {
  it('a request claimed by a holder that died is offered again to the next one (regression: it stayed claimed forever)', async () => {
    const dir = await tempDir('packsync-requests-');
    const q = new RequestQueue(dir);
    await q.put(req('2026-a'));
    await q.put(req('2026-b'));
    expect(await q.pending()).toEqual(['2026-a', '2026-b']);
    expect(await q.claim('2026-a')).toMatchObject({ id: '2026-a' });
    // The claiming process dies here: no outcome is written.
    expect(await q.pending()).toEqual(['2026-a', '2026-b']);
    expect(await q.claim('2026-a')).toMatchObject({ id: '2026-a' });
    await q.finish('2026-a', { ok: true, lines: ['done'] });
    expect(await q.pending()).toEqual(['2026-b']);
    expect(await q.outcome('2026-a')).toEqual({ ok: true, lines: ['done'] });
    expect(await q.outcome('2026-a')).toBeNull();
  });

  it('withdraw and claim: exactly one wins; a withdrawn request is never claimed', async () => {
    const dir = await tempDir('packsync-requests-');
    const q = new RequestQueue(dir);
    await q.put(req('2026-c'));
    expect(await q.withdraw('2026-c')).toBe(true);
    expect(await q.claim('2026-c')).toBeNull();
    await q.put(req('2026-d'));
    expect(await q.claim('2026-d')).not.toBeNull();
    expect(await q.withdraw('2026-d')).toBe(false);
    expect(await q.pending()).toEqual(['2026-d']);
  });

  it('ignores temporary files and results when listing', async () => {
    const dir = await tempDir('packsync-requests-');
    const q = new RequestQueue(dir);
    await q.put(req('2026-e'));
    await writeFile(join(dir, 'requests', '2026-e.json.tmp-1-x'), '{');
    await writeFile(join(dir, 'requests', '2026-f.result.json'), '{}');
    expect(await q.pending()).toEqual(['2026-e']);
    expect((await readdir(join(dir, 'requests'))).length).toBe(3);
  });
});
