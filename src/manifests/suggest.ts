/** "Did you mean" suggestions: the closest candidate by edit distance, if it is close enough. */

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((cur[j - 1] ?? 0) + 1, (prev[j] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/**
 * The candidate closest to `input` (case-insensitive), or undefined when none is plausibly a typo:
 * at most a third of the longer string may differ (and at least one edit is always allowed).
 */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
  const needle = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    if (c === input) continue;
    const d = levenshtein(needle, c.toLowerCase());
    const limit = Math.max(1, Math.floor(Math.max(needle.length, c.length) / 3));
    if (d <= limit && d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** ` (did you mean "x"?)` or an empty string. */
export function suggestion(input: string, candidates: Iterable<string>): string {
  const s = didYouMean(input, candidates);
  return s === undefined ? '' : ` (did you mean "${s}"?)`;
}
