/**
 * What GitHub shows for one line of the inline Markdown packsync writes, read by the CommonMark
 * rules that matter for it (there is no Markdown parser among the dependencies): backslash escapes
 * outside code spans only, code spans closed by the next backtick run of the same length with their
 * content taken literally, `<br>` as a line break, and GFM table rows split at unescaped pipes.
 * Anything else that could start syntax (`*`, `_`, `<`, `[`, `~`, `&`, a backtick run that closes
 * nothing) is reported in `active`, so a test can require plain text.
 */
export interface Rendered {
  text: string;
  /** Unescaped characters in prose that Markdown or HTML may interpret. */
  active: string[];
}

const PUNCTUATION = /[!-/:-@[-`{-~]/;

export function renderInline(s: string): Rendered {
  let text = '';
  const active: string[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length && PUNCTUATION.test(s[i + 1]!)) {
      text += s[i + 1];
      i += 2;
    } else if (c === '`') {
      let n = 0;
      while (s[i + n] === '`') n++;
      const close = closingRun(s, i + n, n);
      if (close < 0) {
        active.push('`'.repeat(n));
        text += '`'.repeat(n);
        i += n;
        continue;
      }
      let body = s.slice(i + n, close).replace(/\n/g, ' ');
      if (body.startsWith(' ') && body.endsWith(' ') && /[^ ]/.test(body)) body = body.slice(1, -1);
      text += body;
      i = close + n;
    } else if (s.startsWith('<br>', i)) {
      text += '\n';
      i += 4;
    } else {
      if ('*_<[~&'.includes(c)) active.push(c);
      text += c;
      i++;
    }
  }
  return { text, active };
}

/** Index of the next backtick run of exactly `n` from `from`, or -1. */
function closingRun(s: string, from: number, n: number): number {
  let i = from;
  while (i < s.length) {
    if (s[i] !== '`') {
      i++;
      continue;
    }
    let m = 0;
    while (s[i + m] === '`') m++;
    if (m === n) return i;
    i += m;
  }
  return -1;
}

/** A GFM table row's cells as written (split at pipes without a backslash, `\|` turned into `|`). */
export function tableCells(row: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < row.length; i++) {
    if (row[i] === '\\' && row[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (row[i] === '\\' && i + 1 < row.length) {
      cell += row[i]! + row[i + 1]!;
      i++;
    } else if (row[i] === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += row[i];
  }
  cells.push(cell.trim());
  // The leading and trailing pipes leave an empty first and last cell.
  return cells.slice(1, -1);
}
