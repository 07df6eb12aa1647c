/**
 * A strict reader of the Prometheus text exposition format (0.0.4), enough to prove /metrics
 * parses: every sample line must be `name{labels} value`, every family declared by HELP and TYPE.
 */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheus(text: string): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  const types = new Map<string, string>();
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      if (!name || !['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type ?? ''))
        throw new Error(`line ${i + 1}: bad TYPE: ${line}`);
      types.set(name, type!);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`line ${i + 1}: not a sample: ${line}`);
    const name = m[1]!;
    const family = [...types.keys()].find(
      (t) => name === t || name === `${t}_bucket` || name === `${t}_sum` || name === `${t}_count` || name === `${t}_total`,
    );
    if (!family) throw new Error(`line ${i + 1}: ${name} has no TYPE`);
    const value = m[4] === '+Inf' ? Infinity : m[4] === '-Inf' ? -Infinity : Number(m[4]);
    if (Number.isNaN(value) && m[4] !== 'NaN') throw new Error(`line ${i + 1}: bad value ${m[4] ?? ''}`);
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!;
    const list = out.get(name) ?? [];
    list.push({ labels, value });
    out.set(name, list);
  }
  return out;
}
