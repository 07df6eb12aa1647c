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
/** CONTROL without its global flag: `test` on a global pattern would carry `lastIndex` from call to call. */
const HAS_CONTROL = new RegExp(CONTROL.source);
const CONTROL_OR_NEWLINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escape = (c: string): string => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** `s` with control characters shown as escapes; `oneLine` escapes newlines too. */
export function visible(s: string, oneLine = false): string {
  return s.replace(oneLine ? CONTROL_OR_NEWLINE : CONTROL, escape);
}

/**
 * `value` with every string `visible` (objects and arrays walked; other values as they are). What
 * needs no escape is not copied: a converge's plan text walked 19,750 objects and copied every one
 * of them to escape nothing (docs/performance.md, fleet-cli). The result may share parts with
 * `value`; neither is to be changed afterwards.
 */
export function visibleDeep<T>(value: T): T {
  if (typeof value === 'string') return (HAS_CONTROL.test(value) ? visible(value) : value) as T;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = visibleDeep(value[i] as unknown);
      if (v !== value[i]) (out ??= [...(value as unknown[])])[i] = v;
    }
    return (out ?? value) as T;
  }
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    // for…in over own keys, not Object.entries: no pair arrays made for the 21,000 objects of a converge's plan text.
    for (const k in obj) {
      if (!Object.hasOwn(obj, k)) continue;
      const v = obj[k];
      const w = visibleDeep(v);
      if (w !== v) (out ??= { ...obj })[k] = w;
    }
    return (out ?? value) as T;
  }
  return value;
}
