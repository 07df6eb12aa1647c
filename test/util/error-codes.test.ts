/** `docs/errors.md` lists every error code with its class, exactly as `src/util/errors.ts` declares them. */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { classify, ERROR_CODES, errorCode, PacksyncError } from '../../src/util/errors.js';
import type { ErrorCode } from '../../src/util/errors.js';

describe('error codes', () => {
  it('the docs table and the code union agree, code by code and class by class', async () => {
    const doc = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Every error code'), doc.indexOf('## API client error codes'));
    const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| (terminal|transient|waiting) \|/gm)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(rows)).toEqual(ERROR_CODES);
    expect(rows.length).toBe(Object.keys(ERROR_CODES).length);
  });

  it('classifies a rejected key as terminal and an outage as transient; unknown errors are INTERNAL', () => {
    expect(classify('API_UNAUTHORIZED')).toBe('terminal');
    expect(classify('API_UNAVAILABLE')).toBe('transient');
    expect(classify('WAIT_DEFERRED')).toBe('waiting');
    expect(errorCode(new Error('x'))).toBe('INTERNAL');
    expect(errorCode(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe('INTERNAL');
    const e = new PacksyncError<ErrorCode>('STALE_PLAN', 'stale', { cause: new Error('because') });
    expect([e.code, e.name, (e.cause as Error).message, errorCode(e)]).toEqual(['STALE_PLAN', 'PacksyncError', 'because', 'STALE_PLAN']);
  });
});
