/**
 * "Did the ambiguous write land?" (writeOnce, src/apply/write-calls.ts): one helper for start, stop,
 * update-content, skip-wave and promote. A lost answer that landed is done; one that did not is sent
 * again only for writes that may be (skip-wave checks first, never skips twice); other errors stand.
 */
import { describe, expect, it } from 'vitest';
import { writeOnce } from '../../src/apply/write-calls.js';
import { PacksyncError } from '../../src/util/errors.js';

const lost = (): PacksyncError<'API_OUTCOME_UNKNOWN'> => new PacksyncError('API_OUTCOME_UNKNOWN', 'the answer was lost');

function calls(failFirst: Error | null): { call: () => Promise<void>; count: () => number } {
  let n = 0;
  return {
    call: () => {
      n++;
      return n === 1 && failFirst ? Promise.reject(failFirst) : Promise.resolve();
    },
    count: () => n,
  };
}

describe('writeOnce', () => {
  it('a lost answer whose write landed is done, with one call', async () => {
    const c = calls(lost());
    await writeOnce({ call: c.call, codes: ['API_OUTCOME_UNKNOWN'], landed: () => Promise.resolve(true), again: true });
    expect(c.count()).toBe(1);
  });

  it('a lost answer whose write did not land is sent once more only when it may be', async () => {
    const again = calls(lost());
    await writeOnce({ call: again.call, codes: ['API_OUTCOME_UNKNOWN'], landed: () => Promise.resolve(false), again: true });
    expect(again.count()).toBe(2);
    const once = calls(lost());
    await expect(writeOnce({ call: once.call, codes: ['API_OUTCOME_UNKNOWN'], landed: () => Promise.resolve(false) })).rejects.toThrow(
      /the answer was lost/,
    );
    expect(once.count()).toBe(1);
  });

  it('an error it does not judge stands, without asking the live object', async () => {
    const c = calls(new PacksyncError('API_FORBIDDEN', 'no'));
    let asked = false;
    const landed = (): Promise<boolean> => ((asked = true), Promise.resolve(true));
    await expect(writeOnce({ call: c.call, codes: ['API_CONFLICT', 'API_OUTCOME_UNKNOWN'], landed })).rejects.toThrow(/no/);
    expect(asked).toBe(false);
  });
});
