/**
 * Flags every API-facing command shares (docs/architecture.md) and the composition root that turns them into
 * a client, a state directory and a logger. The API key comes only from the environment or a
 * file, never from a flag value that `ps` would show.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { ApiClient, ApiClientOptions } from '../api/client.js';
import { connectionSecrets } from '../state/connection-secrets.js';
import { openState } from '../state/open-state.js';
import type { State } from '../state/open-state.js';
import { intFlag } from './flag-values.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import type { LogFormat } from './logger.js';

export interface CommonOptions {
  apiUrl?: string;
  apiKeyFile?: string;
  stateDir?: string;
  stateUrl?: string;
  logFormat?: LogFormat;
  logLevel?: string;
  apiConcurrency?: string;
  apiRateLimit?: string;
  apiTimeout?: string;
  /** False with `--no-color`. */
  color?: boolean;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'silent'];
const logFormatOption = (note = ''): Option => new Option('--log-format <format>', `log format${note}`).choices(['json', 'pretty']);
const logLevelOption = (note = ''): Option => new Option('--log-level <level>', `log level${note}`).choices(LOG_LEVELS).default('info');
const noColorOption = (note = ''): Option => new Option('--no-color', `no colour in human output (also NO_COLOR or TERM=dumb)${note}`);

export function addCommonOptions(cmd: Command): Command {
  return cmd
    .option('--api-url <url>', 'service base URL (env PACKSYNC_API_URL)')
    .option('--api-key-file <file>', 'file holding the API key (else env PACKSYNC_API_KEY)')
    .option('--state-dir <dir>', 'where the inventory lives (env PACKSYNC_STATE_DIR, default ./.packsync)')
    .option(
      '--state-url <url>',
      'remote state, azblob://CONTAINER/PREFIX (env PACKSYNC_STATE_URL; credentials from AZURE_STORAGE_CONNECTION_STRING)',
    )
    .addOption(logFormatOption())
    .addOption(logLevelOption())
    .option('--api-concurrency <n>', 'most API requests in flight at once (1-256)', '8')
    .option('--api-rate-limit <n>', 'client-side requests per second (0 = off, up to 10000)', '0')
    .option('--api-timeout <ms>', 'per-request timeout in milliseconds (1-3600000)', '30000')
    .addOption(noColorOption());
}

/**
 * The three output flags of docs/architecture.md on a command that builds no API client (validate, state,
 * demo, notify, simulator): a wrapper passes the same common flags to every command, so each
 * accepts them. None of these commands writes log lines, so their help says the --log-* flags
 * change nothing (a bad value is still a usage error); `colour: false` says the same of
 * --no-color for a command whose human output has no colour anyway.
 */
export function addOutputOptions(cmd: Command, what: { colour: boolean }): Command {
  const noLogs = '; this command writes no log lines (accepted so one set of common flags fits every command)';
  return cmd
    .addOption(logFormatOption(noLogs))
    .addOption(logLevelOption(noLogs))
    .addOption(noColorOption(what.colour ? '' : '; this command prints none'));
}

/**
 * Colour in human output: only when the process decided it may (a terminal, no NO_COLOR, TERM not
 * dumb) and the command line did not turn it off.
 */
export function useColor(opts: Pick<CommonOptions, 'color'>, io: CliIo): boolean {
  return io.color === true && opts.color !== false;
}

export interface Runtime {
  api: ApiClient;
  /** Local working directory (git checkout, keyrings); also the state when no --state-url is set. */
  stateDir: string;
  /** The state store; locked when the command asked for it (`apply`, `run`). */
  state: State;
  logger: Logger;
  secrets: string[];
  close: () => Promise<void>;
}

export async function buildRuntime(
  opts: CommonOptions,
  io: CliIo,
  secrets: string[] = [],
  extra: { onRequest?: ApiClientOptions['onRequest']; lockState?: boolean; existingState?: boolean } = {},
): Promise<Runtime> {
  const apiUrl = opts.apiUrl ?? io.env.PACKSYNC_API_URL;
  if (!apiUrl) throw new UsageError('no service URL: pass --api-url or set PACKSYNC_API_URL (try `packsync simulator` for a local one)');
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new UsageError(`--api-url is not a URL (got "${apiUrl}")`);
  }
  // Loaded here, not at the top: `--help`, `validate` and `simulator` never pay for undici and pino.
  const [{ createApiClient }, { resolveApiKey }, { createLogger }] = await Promise.all([
    import('../api/client.js'),
    import('../api/api-key.js'),
    import('./logger.js'),
  ]);
  const rateLimit = intFlag(opts.apiRateLimit, '--api-rate-limit');
  const apiKey = await resolveApiKey({ ...(opts.apiKeyFile ? { apiKeyFile: opts.apiKeyFile } : {}), env: io.env });
  secrets.push(apiKey);
  const logger = createLogger({
    format: opts.logFormat ?? (io.isTTY ? 'pretty' : 'json'),
    level: opts.logLevel ?? 'info',
    secrets: () => secrets,
    write: io.stderr,
  });
  const api = createApiClient({
    baseUrl: url.toString(),
    apiKey,
    concurrency: intFlag(opts.apiConcurrency, '--api-concurrency'),
    ...(rateLimit > 0 ? { rateLimit: { perSecond: rateLimit } } : {}),
    timeoutMs: intFlag(opts.apiTimeout, '--api-timeout'),
    ...(extra.onRequest ? { onRequest: extra.onRequest } : {}),
    ...maxResponseBytes(io.env),
  });
  // Under `--log-format json` a warning (a lock taken over) is a JSON line too: log shippers parse every
  // line. A level that hides warnings must not hide this one: it is then a plain line on stderr.
  const json = (opts.logFormat ?? (io.isTTY ? 'pretty' : 'json')) === 'json';
  const warn = json && logger.isLevelEnabled('warn') ? (m: string): void => logger.warn(m) : undefined;
  const { stateDir, state } = openCommandState(opts, io, secrets, extra.existingState ?? false, warn);
  const close = async (): Promise<void> => {
    await state.close();
    await api.close();
  };
  if (extra.lockState) {
    // One writer per state (docs/reconcile.md): a second apply or agent exits 1 naming the holder.
    await state.lock().catch(async (e: unknown) => {
      await api.close();
      throw e;
    });
  }
  return { api, stateDir, state, logger, secrets, close };
}

/**
 * The state a command works on: `--state-url`/`PACKSYNC_STATE_URL` (remote) or the state directory.
 * The offline `state` commands use it without an API client; the connection string joins `secrets`.
 */
export function openCommandState(
  opts: Pick<CommonOptions, 'stateDir' | 'stateUrl'>,
  io: CliIo,
  secrets: string[] = [],
  existing = true,
  warn: (message: string) => void = (m) => io.stderr(`Warning: ${m}`),
): { stateDir: string; state: State } {
  const stateDir = resolveStateDir(opts, io);
  const stateUrl = opts.stateUrl ?? io.env.PACKSYNC_STATE_URL;
  if (stateUrl) secrets.push(...connectionSecrets(io.env.AZURE_STORAGE_CONNECTION_STRING));
  const dirGiven = (opts.stateDir ?? io.env.PACKSYNC_STATE_DIR) !== undefined;
  return { stateDir, state: openState({ stateDir, stateUrl, env: io.env, warn, existing, dirGiven }) };
}

/** `--state-dir`, else env `PACKSYNC_STATE_DIR`, else `./.packsync`; offline commands (`state`) use it too. */
export function resolveStateDir(opts: Pick<CommonOptions, 'stateDir'>, io: CliIo): string {
  return resolve(io.cwd, opts.stateDir ?? io.env.PACKSYNC_STATE_DIR ?? '.packsync');
}

/** `PACKSYNC_MAX_RESPONSE_BYTES`: the largest API answer read (default 64 MiB, docs/errors.md). */
function maxResponseBytes(env: NodeJS.ProcessEnv): { maxResponseBytes?: number } {
  const v = env.PACKSYNC_MAX_RESPONSE_BYTES;
  if (v === undefined || v === '') return {};
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1024)
    throw new UsageError(`PACKSYNC_MAX_RESPONSE_BYTES must be a whole number of bytes, at least 1024 (got "${v}")`);
  return { maxResponseBytes: n };
}
