export interface ScenarioResult {
  metrics: Record<string, number>;
  baseline: Record<string, number>;
}
export type Scenario = (log: (s: string) => void) => Promise<ScenarioResult>;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;
