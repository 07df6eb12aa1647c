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
});
