/**
 * Terminal escape sequences from manifests and API errors are shown, never obeyed (issue 20.16,
 * docs/errors.md "Text output"; regression: a flow name retitled the terminal and cleared the screen,
 * and could hide a `will be deleted` line at the approval prompt).
 */
import { describe, expect, it } from 'vitest';
import { visible, visibleDeep } from '../../src/util/visible.js';

const EVIL = 'EVIL\u001b]0;PWNED-TITLE\u0007\u001b[2J\u001b[31mRED\u009b1A\u202eTXT';

describe('visible', () => {
  it('turns ESC, BEL, C1 and bidi overrides into escapes, keeping the text readable', () => {
    expect(visible(EVIL)).toBe('EVIL\\u001b]0;PWNED-TITLE\\u0007\\u001b[2J\\u001b[31mRED\\u009b1A\\u202eTXT');
    expect(visible('plain 7-Zip 24.08 — ✓ ok')).toBe('plain 7-Zip 24.08 — ✓ ok');
  });

  it('keeps newlines and tabs in text, and escapes newlines in one-line contexts', () => {
    expect(visible('a\n\tb\r')).toBe('a\n\tb\\r');
    expect(visible('looked for x\n::error file=README.md::owned', true)).toBe('looked for x\\n::error file=README.md::owned');
  });

  it('walks objects and arrays, leaving other values alone', () => {
    expect(visibleDeep({ a: [EVIL, 3, null], b: { c: '\u001b[2J' }, d: true })).toEqual({
      a: [visible(EVIL), 3, null],
      b: { c: '\\u001b[2J' },
      d: true,
    });
  });

  it('copies only what it escapes, and escapes the same strings again on the next call (a plan of 19,750 objects was copied whole)', () => {
    const clean = { key: 'Flow/a', reasons: ['ok'], fields: [{ field: 'name', from: 'x', to: 'y' }] };
    const dirty = { key: 'Flow/b', reasons: ['\u001b[2J'] };
    const value = { objects: [clean, dirty], summary: { create: 2 } };
    const out = visibleDeep(value);
    expect(out.objects[0]).toBe(clean);
    expect(out.summary).toBe(value.summary);
    expect(out.objects[1]).not.toBe(dirty);
    expect(out.objects[1]!.reasons).toEqual(['\\u001b[2J']);
    expect(dirty.reasons[0]).toBe('\u001b[2J');
    // The test for control characters keeps no state between calls.
    expect(visibleDeep(['\u001b', '\u001b', '\u001b'])).toEqual(['\\u001b', '\\u001b', '\\u001b']);
  });
});
