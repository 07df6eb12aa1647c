export interface ScenarioResult {
  metrics: Record<string, number>;
  baseline: Record<string, number>;
}
/** Options after `--scenario NAME` that the runner does not know (e.g. `--size-mib 64`). */
export type ScenarioArgs = Readonly<Record<string, string | boolean | undefined>>;
export type Scenario = (log: (s: string) => void, args: ScenarioArgs) => Promise<ScenarioResult>;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;
