/**
 * `--notifications FILE` (docs/agent.md): providers and alerts. Secret files are read once, with a
 * trailing newline trimmed; relative paths are relative to the notifications file, so the file and
 * its secrets can move together (a mounted Secret next to a ConfigMap).
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { EVENT_REASONS } from '../events.js';
import type { EventReason, Severity } from '../events.js';
import { PacksyncError } from '../../util/errors.js';
import { PROVIDER_TYPES } from './provider-types.js';
import type { Provider, ProviderType } from './provider-types.js';
import { PROVIDER_KINDS } from './providers/index.js';

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

export async function loadNotificationConfig(file: string): Promise<NotificationConfig> {
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
  const root = (doc ?? {}) as { providers?: unknown; alerts?: unknown };
  if (!Array.isArray(root.providers) || root.providers.length === 0)
    throw new NotifyConfigError(where('needs a non-empty providers: list'));
  const base = dirname(file);
  const secretOf = async (p: Record<string, unknown>, field: string, i: number): Promise<string | null> => {
    const v = p[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string' || v === '') throw new NotifyConfigError(where(`providers[${i}].${field} must be a file path`));
    try {
      return (await readFile(resolve(base, v), 'utf8')).replace(/\r?\n$/, '');
    } catch {
      // The path is not a secret; its content is.
      throw new NotifyConfigError(where(`providers[${i}].${field}: cannot read ${resolve(base, v)}`));
    }
  };
  const providers: Provider[] = [];
  for (const [i, raw] of (root.providers as unknown[]).entries()) {
    const p = (raw ?? {}) as Record<string, unknown>;
    const str = (k: string): string | null => (typeof p[k] === 'string' && p[k] !== '' ? p[k] : null);
    const name = str('name');
    const type = str('type') as ProviderType | null;
    if (!name) throw new NotifyConfigError(where(`providers[${i}] needs a name`));
    if (providers.some((x) => x.name === name)) throw new NotifyConfigError(where(`provider name "${name}" is used twice`));
    if (!type || !PROVIDER_TYPES.includes(type))
      throw new NotifyConfigError(where(`provider "${name}": type must be one of ${PROVIDER_TYPES.join(', ')}`));
    const known = new Set(['name', 'type', 'address', 'addressFile', 'tokenFile', 'secretFile', 'channel', 'repository']);
    const unknown = Object.keys(p).filter((k) => !known.has(k));
    if (unknown.length > 0) throw new NotifyConfigError(where(`provider "${name}": unknown field ${unknown.join(', ')}`));
    const address = (await secretOf(p, 'addressFile', i)) ?? str('address');
    const token = await secretOf(p, 'tokenFile', i);
    const secret = await secretOf(p, 'secretFile', i);
    // What this provider type needs beyond the file's shape is its own module's to say (providers/).
    const needs = PROVIDER_KINDS[type].check({
      name,
      type,
      address,
      token,
      secret,
      channel: str('channel'),
      repository: str('repository'),
    });
    if (needs) throw new NotifyConfigError(where(needs));
    const repository = str('repository');
    if (repository !== null && !/^[^/\s]+\/[^/\s]+$/.test(repository))
      throw new NotifyConfigError(where(`provider "${name}": repository must be owner/repo`));
    if (address !== null && !/^https?:\/\//.test(address))
      throw new NotifyConfigError(where(`provider "${name}": the address must be an http(s) URL`));
    // fetch refuses user:password@ in a URL with a bare TypeError; say why (never the URL itself).
    if (address !== null && hasCredentials(address))
      throw new NotifyConfigError(
        where(
          `provider "${name}": URLs with credentials (user:password@) are not supported; put a token in tokenFile or the secret in the URL's path`,
        ),
      );
    providers.push({ name, type, address, token, secret, channel: str('channel'), repository });
  }
  const alerts: Alert[] = [];
  for (const [i, raw] of (Array.isArray(root.alerts) ? (root.alerts as unknown[]) : []).entries()) {
    const a = (raw ?? {}) as Record<string, unknown>;
    if (typeof a.provider !== 'string' || !providers.some((p) => p.name === a.provider))
      throw new NotifyConfigError(where(`alerts[${i}].provider must name a provider`));
    const severity = a.severity ?? 'info';
    if (severity !== 'info' && severity !== 'error') throw new NotifyConfigError(where(`alerts[${i}].severity must be info or error`));
    let reasons: EventReason[] | null = null;
    if (a.reasons !== undefined) {
      if (!Array.isArray(a.reasons) || a.reasons.some((r) => !EVENT_REASONS.includes(r as EventReason)))
        throw new NotifyConfigError(where(`alerts[${i}].reasons must be a list of ${EVENT_REASONS.join(', ')}`));
      reasons = a.reasons as EventReason[];
    }
    let objects: RegExp[] | null = null;
    if (a.objects !== undefined) {
      if (!Array.isArray(a.objects) || a.objects.some((o) => typeof o !== 'string'))
        throw new NotifyConfigError(where(`alerts[${i}].objects must be a list of globs such as "Deployment/*"`));
      objects = (a.objects as string[]).map(globToRegExp);
    }
    alerts.push({ provider: a.provider, severity, reasons, objects });
  }
  if (alerts.length === 0) throw new NotifyConfigError(where('needs at least one alert (providers without an alert receive nothing)'));
  return { providers, alerts };
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
