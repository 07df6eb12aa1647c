/**
 * The forms a remembered secret is taken out in (src/util/secrets.ts): raw, inside a JSON string,
 * percent-encoded. Regression: a key ending in `\` is a prefix of its own JSON form; taken out raw
 * first, it left a lone backslash behind (invalid JSON in `-o json`) and the JSON form unmatched.
 */
import { describe, expect, it } from 'vitest';
import { knownSecrets, redactSecrets, rememberSecret } from '../../src/util/secrets.js';

describe('remembered secrets', () => {
  it('key-ending-in-backslash-broke-json: a key ending in \\ is taken out of a JSON document whole, which stays valid JSON', () => {
    const key = 'sk-live-0123456789abcdef\\';
    rememberSecret(key);
    const doc = JSON.stringify({ error: { code: 'X', message: `key ${key} is not allowed` } });
    const out = redactSecrets(doc, knownSecrets());
    expect((JSON.parse(out) as { error: { message: string } }).error.message).toBe('key [REDACTED] is not allowed');
  });

  it('takes out the raw, JSON-escaped and URL-encoded forms', () => {
    const key = 'tok "quoted" & more';
    rememberSecret(key);
    for (const form of [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key)])
      expect(redactSecrets(`a ${form} b`, knownSecrets())).toBe('a [REDACTED] b');
  });
});
