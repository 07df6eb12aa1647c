/**
 * Where the API key comes from: a file (`--api-key-file`) or the environment (`PACKSYNC_API_KEY`),
 * never a flag value that `ps` would show. No message here ever contains the key.
 */
import { readFile } from 'node:fs/promises';
import { PacksyncError } from '../util/errors.js';
import { rememberSecret } from '../util/secrets.js';

export class ApiKeyError extends PacksyncError<'USAGE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('USAGE', message, options);
  }
}

export interface ResolveApiKeyOptions {
  apiKeyFile?: string;
  env: NodeJS.ProcessEnv;
}

/** The file wins over the environment; surrounding whitespace (a trailing newline) is dropped. */
export async function resolveApiKey(opts: ResolveApiKeyOptions): Promise<string> {
  if (opts.apiKeyFile !== undefined && opts.apiKeyFile !== '') {
    let text: string;
    try {
      text = await readFile(opts.apiKeyFile, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new ApiKeyError(`cannot read the API key file ${opts.apiKeyFile}${code ? ` (${code})` : ''}`, { cause: e });
    }
    const key = text.trim();
    if (!key) throw new ApiKeyError(`the API key file ${opts.apiKeyFile} is empty`);
    if (/[\r\n]/.test(key)) throw new ApiKeyError(`the API key file ${opts.apiKeyFile} must hold the key on one line`);
    return remembered(headerSafe(key, `the API key file ${opts.apiKeyFile}`));
  }
  const fromEnv = opts.env.PACKSYNC_API_KEY?.trim();
  if (fromEnv) return remembered(headerSafe(fromEnv, 'PACKSYNC_API_KEY'));
  throw new ApiKeyError('no API key: pass --api-key-file or set PACKSYNC_API_KEY');
}

/** The key, kept among the process's secrets: standard output and error never show it (util/secrets.ts). */
function remembered(key: string): string {
  rememberSecret(key);
  return key;
}

/**
 * The key goes into a request header: a line break or another control character (or a character
 * beyond Latin-1) cannot be sent, so it is a usage error naming where the key came from, never the
 * key (regression: a key with a newline in PACKSYNC_API_KEY ended the process silently, exit 13).
 */
function headerSafe(key: string, from: string): string {
  if (/[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/.test(key))
    throw new ApiKeyError(`${from} must hold the key on one line, without control characters (it goes into the x-api-key header)`);
  return key;
}
