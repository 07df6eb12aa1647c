/**
 * Arbitrary text inside GitHub Markdown (CommonMark + GFM), so that a pull-request comment shows
 * exactly the characters the text output prints. Two ways in, never mixed: a code span, where the
 * parser takes every character literally (so a backslash escape inside one shows as a backslash),
 * and prose, where every character that could start Markdown syntax is backslash-escaped.
 */

/** A code span around `text`, shown verbatim whatever it holds. */
export function codeSpan(text: string, opts: { inTable?: boolean } = {}): string {
  // A line break would end a table row or a list item's line; CommonMark shows it as a space anyway.
  let body = text.replace(/\r?\n/g, ' ');
  if (body === '') return '';
  // A code span ends at the next backtick run as long as its fence: a fence longer than every run
  // inside keeps the text's own backticks (`packsync resume …`) in the span.
  const longest = Math.max(0, ...Array.from(body.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  // The parser strips one space from each end when both ends have one; a backtick at an end would
  // join the fence. One padding space on each side is what gets stripped then.
  const stripped = body.startsWith(' ') && body.endsWith(' ') && /[^ ]/.test(body);
  const pad = body.startsWith('`') || body.endsWith('`') || stripped ? ' ' : '';
  // GFM splits table cells before it parses code spans; `\|` is its one escape that works inside them.
  if (opts.inTable) body = body.replace(/\|/g, '\\|');
  return `${fence}${pad}${body}${pad}${fence}`;
}

/**
 * Prose: every ASCII punctuation character that can open Markdown or HTML syntax inline is
 * backslash-escaped (CommonMark allows the escape before any ASCII punctuation), so emphasis, code
 * spans, links, tags, entities, strikethrough and table pipes never form. Line breaks become `<br>`,
 * which GitHub accepts in table cells and list items alike.
 */
export function markdownText(text: string): string {
  return noMention(text.replace(/[\\`*_[\]<>|&~]/g, (c) => `\\${c}`).replace(/\r?\n/g, '<br>'));
}

/**
 * GitHub turns `@user` and `@org/team` into mentions after Markdown is parsed, so no escape stops it:
 * a word joiner (U+2060, invisible) after the `@` does, and a manifest value cannot page a team from a
 * pull-request comment (docs/errors.md, "Text output").
 */
function noMention(text: string): string {
  // An `@` inside a word (an e-mail address) is no mention and stays as it is.
  return text.replace(/(?<![\w.+-])@(?=[A-Za-z0-9])/g, '@\u2060');
}

/** Text inside raw HTML (a `<summary>`), where Markdown escapes do not apply but entities do. */
export function htmlText(text: string): string {
  return noMention(text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!));
}
