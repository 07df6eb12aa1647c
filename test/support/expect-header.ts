/**
 * The header of an invalid-manifest case file (test/fixtures/invalid/, test/reliability/corpus/):
 * YAML comment lines saying what loading the file must report, so each file carries its own
 * expectation and one parser reads them all.
 *
 *   # expect: RULE[|RULE…] [LINE:COL] [MESSAGE]   an error
 *   # warn: RULE[|RULE…] [LINE:COL] [MESSAGE]     a warning
 *   # why: TEXT                                    what the case is about (free text, not parsed)
 *
 * RULE is a rule id (`schema.enum`) or a family (`schema`: any `schema.*`), MESSAGE a fragment of
 * the message. The fixtures pin one exact id, the position and a message; the hostile corpus only
 * the families that may reject it (anywhere in the file). Header lines are lines of the file:
 * positions count them, so a header keeps its number of lines.
 */

export interface ExpectedProblem {
  severity: 'error' | 'warning';
  /** Rule ids or families, any of which may report the problem. */
  rules: string[];
  /** `LINE:COL`, or null when any position in the file will do. */
  at: string | null;
  /** A fragment of the message, or null when the message is not pinned. */
  message: string | null;
}

const LINE = /^# (expect|warn): (\S+)(?: (\d+:\d+))?(?: (.+))?$/;

export function parseExpectHeader(text: string): ExpectedProblem[] {
  const out: ExpectedProblem[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (m) out.push({ severity: m[1] === 'warn' ? 'warning' : 'error', rules: m[2]!.split('|'), at: m[3] ?? null, message: m[4] ?? null });
  }
  return out;
}

/** A rule matches an expected id exactly, or an expected family as `family.*`. */
export function ruleMatches(expected: string, rule: string): boolean {
  return rule === expected || rule.startsWith(`${expected}.`);
}
