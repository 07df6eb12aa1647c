/**
 * The one way a known secret value (API key, webhook secret, token, connection string part) is
 * taken out of a text before it is shown, logged or sent: every occurrence, whatever its length
 * (a short secret mangles the text around it, which is better than printing it).
 */
export const REDACTED = '[REDACTED]';

export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0 && out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** A JSON value with every string redacted (a service that echoes the key in a field of a 200 answer). */
export function redactValue(v: unknown, secrets: readonly string[]): unknown {
  if (typeof v === 'string') return redactSecrets(v, secrets);
  if (Array.isArray(v)) return v.map((x) => redactValue(x, secrets));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    // defineProperty: a key named `__proto__` stays a field, as JSON.parse made it.
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, redactSecrets(k, secrets), {
        value: redactValue(x, secrets),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return v;
}

/**
 * The secrets this process was given (the API key once resolved, the agent's webhook secret, git
 * and notification tokens): the CLI's standard output and error take every one of them out, so a
 * message that carries one from anywhere (a service's free text, a provider's answer) never shows it.
 */
const known = new Set<string>();
let knownList: readonly string[] = [];

export function rememberSecret(s: string | null | undefined): void {
  if (!s || known.has(s)) return;
  // The forms a secret takes once written out: inside a JSON string (`-o json`, a provider's
  // echoed body) a `"` or `\` is escaped; inside a URL (a link, a query) it is percent-encoded.
  for (const form of [s, JSON.stringify(s).slice(1, -1), encodeURIComponent(s)]) known.add(form);
  // Longest first: a key ending in `\` is a prefix of its own JSON form, which must go whole.
  knownList = longestFirst([...known]);
}

export function knownSecrets(): readonly string[] {
  return knownList;
}

/** Secrets to take out, longest first: one that is part of another (its raw form inside its JSON form) goes whole. */
export function longestFirst(secrets: string[]): string[] {
  return secrets.sort((a, b) => b.length - a.length);
}
