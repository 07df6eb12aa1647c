/**
 * Structured logs (pino): JSON by default when not on a TTY, readable on a TTY. Secrets are
 * scrubbed twice: known key names are redacted, and any known secret value is replaced wherever
 * it appears in a line, so even a value that slips into a message never reaches the log.
 */
import { pino } from 'pino';
import type { Logger } from 'pino';
import pretty from 'pino-pretty';
import { Writable } from 'node:stream';

export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  format: LogFormat;
  level: string;
  secrets: () => readonly string[];
  write: (s: string) => void;
}

export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[REDACTED]');
  return out;
}

export function createLogger(opts: LoggerOptions): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      opts.write(scrub(chunk.toString('utf8'), opts.secrets()));
      cb();
    },
  });
  const base = {
    level: opts.level,
    redact: {
      paths: ['apiKey', '*.apiKey', 'headers["x-api-key"]', 'token', '*.token', 'secret', '*.secret', 'password'],
      censor: '[REDACTED]',
    },
  };
  if (opts.format === 'pretty') {
    return pino(base, pretty({ destination: sink, colorize: false, sync: true, ignore: 'pid,hostname' }));
  }
  return pino(base, sink);
}
