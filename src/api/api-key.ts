/**
 * Where the API key comes from: a file (`--api-key-file`) or the environment (`PACKSYNC_API_KEY`),
 * never a flag value that `ps` would show. No message here ever contains the key.
 */
import { readFile } from 'node:fs/promises';
import { PacksyncError } from '../util/errors.js';

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
    return key;
  }
  const fromEnv = opts.env.PACKSYNC_API_KEY?.trim();
  if (fromEnv) return fromEnv;
  throw new ApiKeyError('no API key: pass --api-key-file or set PACKSYNC_API_KEY');
}
