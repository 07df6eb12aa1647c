/**
 * Counts as people read them (`12,345`, the en-US grouping). A whole number is grouped here; any
 * other goes to one `Intl.NumberFormat`, made on first use. The formatter's construction is ICU's
 * set-up, 16–40 ms of the first call: a patch-tuesday apply paid it between its last read and its
 * first write, where the plan says the devices each of its 6,000 new rollouts reaches (plan/reach.ts;
 * docs/performance.md). Per call, `toLocaleString('en-US')` builds a formatter each time (~4 µs).
 */
let count: Intl.NumberFormat | undefined;

export function formatCount(n: number): string {
  // -0 is a safe integer that the formatter writes as `-0`.
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) return grouped(n);
  return (count ??= new Intl.NumberFormat('en-US')).format(n);
}

/** `Intl.NumberFormat('en-US')` of a safe integer: digits in groups of three, `-` before a negative one. */
function grouped(n: number): string {
  const digits = String(Math.abs(n));
  let out = digits.length % 3 === 0 ? '' : digits.slice(0, digits.length % 3);
  for (let i = digits.length % 3; i < digits.length; i += 3) out += `${out === '' ? '' : ','}${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}
