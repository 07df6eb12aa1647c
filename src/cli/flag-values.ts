/**
 * Checks of flag values that commander does not make, run once for every command (a preAction hook
 * in run-cli.ts) so no command can forget them:
 *
 * - a flag that takes a value swallows the next word even when that word is the next flag
 *   (`plan --out --detailed-exitcode` wrote a file named `--detailed-exitcode` and lost the exit
 *   code CI relied on), so a value starting with `-` given as a separate word is refused;
 * - integer flags accept only plain decimal digits (no `1e3`, `0x10`, `1.5`, sign or blank) within
 *   the range below, so a typo cannot become 1000 connections or a timer that fires at once.
 */
import type { Command } from 'commander';
import { UsageError } from './io.js';

interface IntRange {
  min: number;
  max: number;
}

/**
 * Every integer flag of every command, with its range. Why these bounds:
 * - concurrency (API requests, plan actions, live reads) 1–256: each request in flight is a pooled
 *   connection to one service, which rate-limits far below that; 0 would wait forever;
 * - times are capped where Node's timers stop working (a delay above 2^31-1 ms fires at once):
 *   `--api-timeout` and `status --timeout` at one hour per request, `--wait-timeout` and `--wait` at one day;
 * - `--api-rate-limit` 0 (off) to 10000 a second, beyond which the limiter never waits anyway;
 * - the simulator's `--port` is a TCP port (0 = any free one), `--seed` a 31-bit PRNG seed,
 *   `--latency` at most a minute (twice the client's default timeout), `--rate-limit` 1–100000.
 */
export const INTEGER_FLAGS: Readonly<Record<string, IntRange>> = {
  '--api-concurrency': { min: 1, max: 256 },
  '--concurrency': { min: 1, max: 256 },
  '--read-concurrency': { min: 1, max: 256 },
  '--api-rate-limit': { min: 0, max: 10_000 },
  '--api-timeout': { min: 1, max: 3_600_000 },
  '--wait-timeout': { min: 1, max: 86_400 },
  '--wait': { min: 1, max: 86_400 },
  '--port': { min: 0, max: 65_535 },
  '--seed': { min: 0, max: 2_147_483_647 },
  '--latency': { min: 0, max: 60_000 },
  '--rate-limit': { min: 1, max: 100_000 },
  '--timeout': { min: 1, max: 3_600_000 },
};

/** The integer value of `flag` (a key of INTEGER_FLAGS), or a usage error naming the flag and its range. */
export function intFlag(value: string | undefined, flag: string): number {
  const range = INTEGER_FLAGS[flag];
  if (!range) throw new Error(`${flag} is not a known integer flag`);
  const v = value ?? '';
  const n = /^[0-9]{1,16}$/.test(v) ? Number(v) : NaN;
  if (!(n >= range.min && n <= range.max)) {
    throw new UsageError(`${flag} must be a whole number from ${range.min} to ${range.max} (got "${v}")`);
  }
  return n;
}

/** The words of the command line that commander read for `cmd`'s options. */
function checkDashValues(cmd: Command, argv: readonly string[]): void {
  const takesValue = new Set<string>();
  for (const o of cmd.options) {
    if (!o.required) continue;
    if (o.long) takesValue.add(o.long);
    if (o.short) takesValue.add(o.short);
  }
  for (let i = 0; i < argv.length - 1; i++) {
    const word = argv[i]!;
    if (word === '--') return;
    if (!takesValue.has(word)) continue;
    const value = argv[i + 1]!;
    const flag = cmd.options.find((o) => o.long === word || o.short === word)?.long ?? word;
    // A negative number is left to the integer check, which names the range.
    const negativeInt = flag in INTEGER_FLAGS && /^-[0-9]/.test(value);
    if (value.startsWith('-') && value !== '-' && !negativeInt) {
      throw new UsageError(
        `${flag} needs a value, but the next word is "${value}", which looks like a flag (for a value that starts with "-", write ${flag}=VALUE)`,
      );
    }
    i++;
  }
}

/** Refuses a flag's value that was really the next flag, and integer flags out of their range. */
export function checkFlagValues(cmd: Command, argv: readonly string[]): void {
  checkDashValues(cmd, argv);
  for (const o of cmd.options) {
    if (!o.long || !(o.long in INTEGER_FLAGS)) continue;
    const value: unknown = cmd.getOptionValue(o.attributeName());
    if (typeof value === 'string') intFlag(value, o.long);
  }
}
