/**
 * Counts how often each file's text was parsed, by either parser: the yaml package (its Parser, the
 * first step of composing) and js-yaml (the plain-style fast path, manifests/plain-yaml.ts). Tests
 * that say "parses no unchanged file" or "composes each file once" count here, so they hold
 * whichever path a file takes.
 */
import { createRequire } from 'node:module';
import { vi } from 'vitest';
import { Parser } from 'yaml';

export interface ParseSpy {
  /** Distinct texts parsed at least once. */
  files: () => number;
  /** Calls of either parser (a file composed again for a position counts again). */
  calls: () => number;
  /** Texts parsed more than once by the same parser. */
  twice: () => string[];
  restore: () => void;
}

export function spyParses(): ParseSpy {
  const jsYaml = createRequire(import.meta.url)('js-yaml') as { loadAll: (text: string, ...rest: unknown[]) => unknown };
  const counts = new Map<string, { fast: number; full: number }>();
  const seen = (text: unknown, which: 'fast' | 'full'): void => {
    if (typeof text !== 'string') return;
    const c = counts.get(text) ?? { fast: 0, full: 0 };
    c[which]++;
    counts.set(text, c);
  };
  // The original method, called with the parser it was called on.
  const originalParse = Object.getOwnPropertyDescriptor(Parser.prototype, 'parse')!.value as Parser['parse'];
  const full = vi.spyOn(Parser.prototype, 'parse').mockImplementation(function (this: Parser, source: string, incomplete?: boolean) {
    seen(source, 'full');
    return originalParse.call(this, source, incomplete);
  });
  const originalLoadAll = jsYaml.loadAll;
  const fast = vi.spyOn(jsYaml, 'loadAll').mockImplementation((text: string, ...rest: unknown[]) => {
    seen(text, 'fast');
    return originalLoadAll(text, ...rest);
  });
  return {
    files: () => counts.size,
    calls: () => [...counts.values()].reduce((n, c) => n + c.fast + c.full, 0),
    twice: () => [...counts].filter(([, c]) => c.fast > 1 || c.full > 1).map(([t]) => t),
    restore: () => {
      full.mockRestore();
      fast.mockRestore();
    },
  };
}
