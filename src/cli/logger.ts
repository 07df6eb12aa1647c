/**
 * Structured logs (pino): JSON by default when not on a TTY, readable on a TTY. Secrets are
 * scrubbed twice: known key names are redacted, and any known secret value is replaced wherever
 * it appears in a line, so even a value that slips into a message never reaches the log.
 */
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { redactSecrets } from '../util/secrets.js';

export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  format: LogFormat;
  level: string;
  secrets: () => readonly string[];
  write: (s: string) => void;
}

export function createLogger(opts: LoggerOptions): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      opts.write(redactSecrets(chunk.toString('utf8'), opts.secrets()));
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
    // Loaded only for readable logs (a terminal): JSON logs, every run in CI, never pay its ~20 ms.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
    return pino(base, pretty({ destination: sink, colorize: false, sync: true, ignore: 'pid,hostname' }));
  }
  return pino(base, sink);
}
