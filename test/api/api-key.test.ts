import { afterEach, describe, expect, it } from 'vitest';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveApiKey } from '../../src/api/api-key.js';
import { rejection } from './helpers.js';
import { tempDir } from '../support/temp-dir.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function keyFile(content: string): Promise<string> {
  const d = await tempDir('packsync-key-');
  dirs.push(d);
  const f = join(d, 'key');
  await writeFile(f, content);
  return f;
}

describe('resolveApiKey', () => {
  it('reads the file, trimming the trailing newline, and prefers it over the environment', async () => {
    const f = await keyFile('file-key-123\n');
    expect(await resolveApiKey({ apiKeyFile: f, env: { PACKSYNC_API_KEY: 'env-key' } })).toBe('file-key-123');
  });

  it('refuses a key that cannot go into a header (a line break, a control character), naming its source and not the key', async () => {
    for (const bad of ['key\nSECRET', 'key\u0001SECRET', 'key\u2028SECRET']) {
      const e = await rejection(resolveApiKey({ env: { PACKSYNC_API_KEY: bad } }));
      expect(e.code).toBe('USAGE');
      expect(e.message).toContain('PACKSYNC_API_KEY');
      expect(e.message).not.toContain('SECRET');
    }
    const f = await keyFile('key\u0007SECRET\n');
    expect((await rejection(resolveApiKey({ apiKeyFile: f, env: {} }))).message).toContain(f);
  });

  it('falls back to PACKSYNC_API_KEY', async () => {
    expect(await resolveApiKey({ env: { PACKSYNC_API_KEY: 'env-key' } })).toBe('env-key');
  });

  it('fails with USAGE naming both sources when there is no key', async () => {
    const e = await rejection(resolveApiKey({ env: {} }));
    expect(e.code).toBe('USAGE');
    expect(e.message).toContain('--api-key-file');
    expect(e.message).toContain('PACKSYNC_API_KEY');
    expect((await rejection(resolveApiKey({ env: { PACKSYNC_API_KEY: '  ' } }))).code).toBe('USAGE');
  });

  it('fails for an empty or unreadable file, naming the file but not the key', async () => {
    const empty = await keyFile(' \n');
    const e = await rejection(resolveApiKey({ apiKeyFile: empty, env: { PACKSYNC_API_KEY: 'env-secret' } }));
    expect(e.code).toBe('USAGE');
    expect(e.message).toContain(empty);
    const missing = join(tmpdir(), 'packsync-no-such-key-file');
    const m = await rejection(resolveApiKey({ apiKeyFile: missing, env: { PACKSYNC_API_KEY: 'env-secret' } }));
    expect(m.code).toBe('USAGE');
    expect(m.message).toBe(`cannot read the API key file ${missing} (ENOENT)`);
    expect(m.message).not.toContain('env-secret');
  });
});
