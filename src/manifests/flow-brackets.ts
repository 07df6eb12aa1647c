/**
 * Where an unclosed flow collection starts. The YAML parser notices a missing `]` or `}` only at
 * the first line that cannot belong to it (often the next key, or `---`), and reports that line;
 * the author's mistake is on the line of the opening bracket, so problems point there instead.
 */

/**
 * The offset of the `[` (for `]`) or `{` (for `}`) left open before `offset`, or undefined when
 * none is found. Brackets inside quoted scalars (`skip`) and comments do not count.
 */
export function unclosedOpening(
  text: string,
  offset: number,
  close: ']' | '}',
  skip: readonly { start: number; end: number }[],
): number | undefined {
  const open = close === ']' ? '[' : '{';
  const quoted = (i: number): boolean => skip.some((q) => q.start <= i && i < q.end);
  let depth = 0;
  // Line by line backwards, each line left to right so a comment's `#` is seen before its text.
  let end = Math.min(offset, text.length);
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = codeOf(text, start, end, quoted);
    for (let i = line.length - 1; i >= 0; i--) {
      const at = start + i;
      const c = line[i];
      if (quoted(at)) continue;
      if (c === close) depth++;
      else if (c === open) {
        if (depth === 0) return at;
        depth--;
      }
    }
    end = start - 1;
  }
  return undefined;
}

/** The line from `start` to `end` without its comment (`#` at line start or after a space, unquoted). */
function codeOf(text: string, start: number, end: number, quoted: (i: number) => boolean): string {
  const line = text.slice(start, end);
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '#' && (i === 0 || /\s/.test(line[i - 1] ?? '')) && !quoted(start + i)) return line.slice(0, i);
  }
  return line;
}
