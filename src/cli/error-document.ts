/**
 * A command whose `--output json|markdown` a CI step or a pull-request bot parses prints a document
 * even when it fails before it had one (the service unreachable, the state locked): design §5,
 * "never an empty document". The document names the error as stderr does, with the same secrets
 * removed; stderr and the exit code are unchanged.
 */
import { errorCode, errorMessage } from '../util/errors.js';
import { visible } from '../util/visible.js';
import { connectionSecrets } from '../state/connection-secrets.js';
import { codeSpan, markdownText } from '../plan/render/markdown.js';
import type { CliIo } from './io.js';
import { knownSecrets, redactSecrets } from '../util/secrets.js';

/** The secrets a shown error must not carry: the API key and the storage connection string's parts. */
export function shownSecrets(env: NodeJS.ProcessEnv): string[] {
  // The key read from --api-key-file is among the process's known secrets.
  return [env.PACKSYNC_API_KEY ?? '', ...connectionSecrets(env.AZURE_STORAGE_CONNECTION_STRING), ...knownSecrets()].filter(
    (s) => s.length > 0,
  );
}

/** An error as the CLI shows it: its code (INTERNAL for an unexpected one) and its scrubbed message. */
export function shownError(e: unknown, env: NodeJS.ProcessEnv): { code: string; message: string } {
  return { code: errorCode(e), message: redactSecrets(visible(errorMessage(e)), shownSecrets(env)) };
}

/**
 * Runs a command's action; when it throws before it printed anything to stdout, prints the error as
 * a `format` document, then lets the error reach the CLI's handler (stderr, exit 1).
 */
export async function withErrorDocument(
  io: CliIo,
  format: 'text' | 'json' | 'markdown',
  title: string,
  run: (io: CliIo) => Promise<void>,
): Promise<void> {
  if (format === 'text') return run(io);
  let printed = false;
  const tracked: CliIo = {
    ...io,
    stdout: (s) => {
      printed = true;
      io.stdout(s);
    },
  };
  try {
    await run(tracked);
  } catch (e) {
    if (!printed) io.stdout(errorDocument(shownError(e, io.env), format, title));
    throw e;
  }
}

function errorDocument(error: { code: string; message: string }, format: 'json' | 'markdown', title: string): string {
  if (format === 'json') return JSON.stringify({ error }, null, 2);
  return [`### ${title}: failed`, '', `${codeSpan(error.code)}: ${markdownText(error.message)}`].join('\n');
}

/** The commands that print an error document (their actions run inside `withErrorDocument`), with the formats they have. */
const DOCUMENTED: Record<string, readonly string[]> = { plan: ['json', 'markdown'], apply: ['json', 'markdown'], status: ['json'] };

/**
 * The document of an error before the command's action ran (a flag's value refused, an unknown
 * option): printed when the command line asks plan or apply for json or markdown, or status for json.
 */
export function earlyErrorDocument(argv: readonly string[], io: CliIo, error: { code: string; message: string }): void {
  const command = argv[2] ?? '';
  const format = outputOf(argv.slice(3));
  if (!Object.hasOwn(DOCUMENTED, command) || !DOCUMENTED[command]!.includes(format ?? '')) return;
  if (format === 'json' || format === 'markdown') io.stdout(errorDocument(error, format, `packsync ${command}`));
}

/** The value of `--output`/`-o` as written (`--output json`, `--output=json`, `-o json`, `-ojson`), the last one winning. */
function outputOf(words: readonly string[]): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--') break;
    if (w === '--output' || w === '-o') out = words[++i];
    else if (w.startsWith('--output=')) out = w.slice('--output='.length);
    else if (w.startsWith('-o') && !w.startsWith('--') && w.length > 2) out = w.slice(2);
  }
  return out;
}
