/**
 * The live state's read started with the desired set a load hands over (engine/early-read.ts): a
 * pass takes it up only for that very desired set, and a read it stops sends nothing more and
 * fails without an unhandled rejection.
 */
import { describe, expect, it } from 'vitest';
import { EarlyRead } from '../../src/engine/early-read.js';
import type { Snapshot } from '../../src/live/snapshot.js';
import type { DesiredModel } from '../../src/manifests/model.js';

const desiredSet = (): DesiredModel => ({ root: '.', packages: [], flows: [], deployments: [], tenantUploads: [] });
const snapshot = { reads: 0 } as unknown as Snapshot;

describe('EarlyRead', () => {
  it('is taken up for the desired set it was started with only, and started once', async () => {
    const a = desiredSet();
    const early = new EarlyRead();
    let started = 0;
    const read = (): Promise<Snapshot> => (started++, Promise.resolve(snapshot));
    early.start(a, read);
    early.start(desiredSet(), read);
    expect(started).toBe(1);
    expect(early.of(desiredSet())).toBeUndefined();
    expect(await early.of(a)).toBe(snapshot);
  });

  it('once stopped, is not taken up, its signal is aborted, and its failure is not unhandled', async () => {
    const a = desiredSet();
    const early = new EarlyRead();
    let signal: AbortSignal | undefined;
    early.start(a, (s) => {
      signal = s;
      return new Promise<Snapshot>((_, reject) => s.addEventListener('abort', () => reject(new Error('stopped'))));
    });
    early.stop();
    expect(signal?.aborted).toBe(true);
    expect(early.of(a)).toBeUndefined();
    // A read stopped before it started never starts.
    const late = new EarlyRead();
    late.stop();
    let called = false;
    late.start(a, () => ((called = true), Promise.resolve(snapshot)));
    expect(called).toBe(false);
    // Let the rejection settle: vitest fails the run on an unhandled one.
    await new Promise((r) => setImmediate(r));
  });

  it("follows the pass's own signal", () => {
    const outer = new AbortController();
    const early = new EarlyRead();
    let signal: AbortSignal | undefined;
    early.start(desiredSet(), (s) => ((signal = s), Promise.resolve(snapshot)), outer.signal);
    expect(signal?.aborted).toBe(false);
    outer.abort();
    expect(signal?.aborted).toBe(true);
  });
});
