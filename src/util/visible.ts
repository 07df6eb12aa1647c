/**
 * Text a terminal shows must not be able to drive it (docs/errors.md, "Text output"): a manifest value
 * or an API error carrying ESC sequences could retitle the window, clear the screen or move the cursor
 * up over a `will be deleted` line at the approval prompt. Control characters (C0 but tab, DEL, C1),
 * and the bidirectional overrides that reorder what is shown (Trojan Source), become visible `\u001b`
 * escapes. Newlines are kept only where a text may span lines; in one-line contexts (a FILE:LINE:COL
 * problem, an error line) they become `\n` too, so a value cannot start a line of its own (a CI log
 * reads `::error …` at column 0 as a command).
 */

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_OR_NEWLINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escape = (c: string): string => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** `s` with control characters shown as escapes; `oneLine` escapes newlines too. */
export function visible(s: string, oneLine = false): string {
  return s.replace(oneLine ? CONTROL_OR_NEWLINE : CONTROL, escape);
}

/** A copy of `value` whose every string is `visible` (objects and arrays walked; other values as they are). */
export function visibleDeep<T>(value: T): T {
  if (typeof value === 'string') return visible(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => visibleDeep(v)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = visibleDeep(v);
    return out as T;
  }
  return value;
}
