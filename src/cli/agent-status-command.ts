/**
 * `packsync status --agent URL [--token-file F] [--output json]` (docs/reports.md): an agent's `/status`
 * in the terminal. The token (for an agent behind an authenticating proxy) comes from a file, never
 * a flag value, and is never printed; an unreachable agent is exit 1 naming the URL without credentials.
 */
import { visibleDeep } from '../util/visible.js';
import type { Command } from 'commander';
import { Option } from 'commander';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AgentStatus } from '../agent/http/status-types.js';
import { PacksyncError } from '../util/errors.js';
import { isAgentStatus } from './agent-status-shape.js';
import { statusView } from './agent-status-view.js';
import { addOutputOptions, useColor } from './common.js';
import { withErrorDocument } from './error-document.js';
import { intFlag } from './flag-values.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';

interface StatusOptions {
  agent: string;
  tokenFile?: string;
  output: 'text' | 'json';
  timeout: string;
  color?: boolean;
}

export function registerAgentStatusCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('status')
    .description("an agent's /status as a terminal view: health, revision and signer, needs attention, rollouts by wave and tenant")
    .requiredOption('--agent <url>', "the agent's --listen address, e.g. http://packsync:8080")
    .option('--token-file <file>', 'file holding a bearer token sent as Authorization (a proxy in front of the agent)')
    .option('--timeout <ms>', 'how long to wait for the agent (milliseconds)', '10000')
    .addOption(
      new Option('--output <format>', 'text or json (the /status document as the agent sent it)').choices(['text', 'json']).default('text'),
    );
  addOutputOptions(cmd, { colour: true });
  // `--output json` prints a document also when the agent is unreachable (`{"error": …}`, as plan and
  // apply do): a script parsing stdout never gets an empty one (docs/errors.md).
  cmd.action((opts: StatusOptions) => withErrorDocument(io, opts.output, 'packsync status', (shown) => showStatus(opts, shown)));
}

async function showStatus(opts: StatusOptions, io: CliIo): Promise<void> {
  const url = parseAgentUrl(opts.agent);
  const shown = redacted(url);
  const token = opts.tokenFile ? (await readFile(resolve(io.cwd, opts.tokenFile), 'utf8')).replace(/\r?\n$/, '') : undefined;
  const timeout = intFlag(opts.timeout, '--timeout');
  const status = await fetchStatus(new URL('status', url), shown, token, timeout);
  if (opts.output === 'json') io.stdout(JSON.stringify(status, null, 2));
  else io.stdout(statusView(visibleDeep(status), useColor(opts, io)));
}

function parseAgentUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(/^[a-z]+:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new UsageError('--agent is not a URL (expected http://HOST:PORT)');
  }
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** The URL as messages show it: no user, password, query or fragment. */
function redacted(url: URL): string {
  const u = new URL(url.toString());
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  return u.toString();
}

async function fetchStatus(url: URL, shown: string, token: string | undefined, timeoutMs: number): Promise<AgentStatus> {
  const unreachable = (why: string): PacksyncError => new PacksyncError('AGENT_UNREACHABLE', `agent ${shown} ${why}`);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  // Credentials in the URL go as a header, never in the request line shown anywhere.
  if (url.username)
    headers.authorization ??= `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  const target = new URL(url.toString());
  target.username = '';
  target.password = '';
  let res: Response;
  try {
    res = await fetch(target, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    // fetch's own refusals (a port it never dials, such as 1 or 6000) have a message but no code.
    const c = (e as { cause?: { code?: string; message?: string } }).cause;
    const cause = c?.code ?? c?.message ?? (e as Error).name;
    throw unreachable(`is unreachable (${cause === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : cause})`);
  }
  if (!res.ok) throw unreachable(`answered ${res.status} ${res.statusText} for /status`);
  const notAgent = unreachable("answered /status with something that is not a packsync agent's status (is this its --listen address?)");
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw notAgent;
  }
  // Tolerant of an older agent's missing fields, but not of something else: a list the view walks
  // that is not a list of objects (a crash of the view before) is no agent's status.
  if (!isAgentStatus(body)) throw notAgent;
  return body as AgentStatus;
}
