/**
 * `--notifications FILE` (docs/agent.md): providers and alerts. Secret files are read once, with a
 * trailing newline trimmed; relative paths are relative to the notifications file, so the file and
 * its secrets can move together (a mounted Secret next to a ConfigMap).
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import type { EventReason, Severity } from '../events.js';
import { PacksyncError } from '../../util/errors.js';
import type { Provider, ProviderType } from './provider-types.js';
import { PROVIDER_KINDS } from './providers/index.js';
import { shapeProblems } from './config-schema.js';

export interface Alert {
  provider: string;
  severity: Severity;
  reasons: EventReason[] | null;
  /** Globs on `Kind/name` (`*` any run of characters, `?` one). */
  objects: RegExp[] | null;
}

export interface NotificationConfig {
  providers: Provider[];
  alerts: Alert[];
}

export class NotifyConfigError extends PacksyncError<'USAGE'> {
  constructor(message: string) {
    super('USAGE', message);
  }
}

/** A glob over `Kind/name` as a whole-string regular expression. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
}

/**
 * `alertsFor`: the provider names the caller uses directly (a pull request's, a one-shot notify's).
 * A file whose providers are all used that way needs no alert; otherwise a provider no alert names
 * would receive nothing, so at least one alert is required.
 */
export async function loadNotificationConfig(file: string, usedDirectly: readonly string[] = []): Promise<NotificationConfig> {
  const text = await readFile(file, 'utf8').catch((e: unknown) => {
    throw new NotifyConfigError(
      `--notifications ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String((e as Error).message)}`,
    );
  });
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new NotifyConfigError(`--notifications ${file}: ${(e as Error).message.split('\n')[0] ?? 'not YAML'}`);
  }
  const where = (s: string): string => `--notifications ${file}: ${s}`;
  // The shape first, by its JSON Schema (config-schema.ts): every field name and type, each problem on a line.
  const shape = shapeProblems(doc ?? {});
  if (shape.length > 0) throw new NotifyConfigError(where(shape.join('; ')));
  const root = doc as { providers: RawProvider[]; alerts?: RawAlert[] };
  const providers: Provider[] = [];
  for (const [i, raw] of root.providers.entries()) {
    if (providers.some((x) => x.name === raw.name)) throw new NotifyConfigError(where(`provider name "${raw.name}" is used twice`));
    providers.push(await providerOf(raw, i, dirname(file), where));
  }
  const alerts = (root.alerts ?? []).map((a, i): Alert => {
    if (!providers.some((p) => p.name === a.provider)) throw new NotifyConfigError(where(`alerts[${i}].provider must name a provider`));
    return {
      provider: a.provider,
      severity: a.severity ?? 'info',
      reasons: a.reasons ?? null,
      objects: a.objects ? a.objects.map(globToRegExp) : null,
    };
  });
  // A name the command gives (`--pull-request NAME`, `notify test NAME`) that the file lacks is the
  // error to show, not the missing alerts its absence would otherwise explain.
  const unknown = usedDirectly.find((n) => !providers.some((p) => p.name === n));
  if (unknown !== undefined)
    throw new NotifyConfigError(where(`no provider "${unknown}"; there are: ${providers.map((p) => p.name).join(', ')}`));
  if (alerts.length === 0 && !providers.every((p) => usedDirectly.includes(p.name)))
    throw new NotifyConfigError(where('needs at least one alert (providers without an alert receive nothing)'));
  return { providers, alerts };
}

/** A provider and an alert as the schema lets them through. */
interface RawProvider {
  name: string;
  type: ProviderType;
  address?: string;
  addressFile?: string;
  tokenFile?: string;
  secretFile?: string;
  channel?: string;
  repository?: string;
}
interface RawAlert {
  provider: string;
  severity?: Alert['severity'];
  reasons?: EventReason[];
  objects?: string[];
}

/** One provider: its secret files read, then what its type needs (its module, providers/) and a usable address. */
async function providerOf(raw: RawProvider, i: number, base: string, where: (s: string) => string): Promise<Provider> {
  const secretOf = async (field: 'addressFile' | 'tokenFile' | 'secretFile'): Promise<string | null> => {
    const v = raw[field];
    if (v === undefined) return null;
    try {
      return (await readFile(resolve(base, v), 'utf8')).replace(/\r?\n$/, '');
    } catch {
      // The path is not a secret; its content is.
      throw new NotifyConfigError(where(`providers[${i}].${field}: cannot read ${resolve(base, v)}`));
    }
  };
  const p: Provider = {
    name: raw.name,
    type: raw.type,
    address: (await secretOf('addressFile')) ?? raw.address ?? null,
    token: await secretOf('tokenFile'),
    secret: await secretOf('secretFile'),
    channel: raw.channel ?? null,
    repository: raw.repository ?? null,
  };
  const needs = PROVIDER_KINDS[p.type].check(p);
  if (needs) throw new NotifyConfigError(where(needs));
  if (p.address !== null && !/^https?:\/\//.test(p.address))
    throw new NotifyConfigError(where(`provider "${p.name}": the address must be an http(s) URL`));
  // A URL with user:password@ would be refused by the HTTP client with a bare error; say why (never the URL itself).
  if (p.address !== null && hasCredentials(p.address))
    throw new NotifyConfigError(
      where(
        `provider "${p.name}": URLs with credentials (user:password@) are not supported; put a token in tokenFile or the secret in the URL's path`,
      ),
    );
  return p;
}

/** `https://user:pass@host/...`: userinfo in the authority. */
function hasCredentials(address: string): boolean {
  try {
    const u = new URL(address);
    return u.username !== '' || u.password !== '';
  } catch {
    return false;
  }
}
