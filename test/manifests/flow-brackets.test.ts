import { describe, expect, it } from 'vitest';
import { unclosedOpening } from '../../src/manifests/flow-brackets.js';

describe('unclosed flow collections', () => {
  it('finds the bracket left open, past closed ones, nested pairs, quoted and commented brackets (regression: reported one line late)', () => {
    const text = 'a: [1, 2]\nb: [x, [y, z], "]" # ]\nc: 1\n';
    expect(unclosedOpening(text, text.indexOf('c:'), ']', [{ start: text.indexOf('"]"'), end: text.indexOf('"]"') + 3 }])).toBe(
      text.indexOf('b: [') + 3,
    );
    const map = 'a: {k: v}\nb: {k: "}", m: [1]\nc: 1\n';
    const q = map.indexOf('"}"');
    expect(unclosedOpening(map, map.indexOf('c:'), '}', [{ start: q, end: q + 3 }])).toBe(map.indexOf('b: {') + 3);
  });

  it('is undefined when every bracket is closed', () => {
    expect(unclosedOpening('a: [1]\nb: {c: d}\n', 17, ']', [])).toBeUndefined();
    expect(unclosedOpening('a: [1]\nb: {c: d}\n', 17, '}', [])).toBeUndefined();
  });
});
