/**
 * Counts as people read them (`12,345`): one `Intl.NumberFormat`, made on first use. Per call,
 * `toLocaleString('en-US')` builds a formatter each time (~4 µs; a plan that starts 6,000 rollouts
 * says the devices each one reaches, plan/reach.ts); made when this module loads, it cost every
 * command ~25 ms of ICU set-up, a no-op that formats no count included (docs/performance.md).
 */
let count: Intl.NumberFormat | undefined;

export function formatCount(n: number): string {
  return (count ??= new Intl.NumberFormat('en-US')).format(n);
}
