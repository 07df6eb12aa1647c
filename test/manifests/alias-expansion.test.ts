/**
 * Aliases cannot blow a manifest up (issue 20, security review 3 finding 1): a document whose aliases
 * expand it past what a manifest file may hold is a validation error at the first alias, with nothing
 * planned (regression: 900 aliases of a 960 KB scalar validated, then took the agent down with an out of
 * memory abort while the spec was hashed). Aliases that stay small still work.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

function packageWithAliases(scalarBytes: number, aliases: number): string {
  return [
    'apiVersion: packsync.dev/v1',
    'kind: Package',
    'metadata: { name: blown }',
    'spec:',
    '  custom:',
    '    name: Blown',
    '    publisher: P',
    '    version: "1.0"',
    '    sourceType: script',
    '    content: content/blown',
    '    detectionRules:',
    `      - &r { type: script, scriptContent: "${'A'.repeat(scalarBytes)}" }`,
    ...Array.from({ length: aliases }, () => '      - *r'),
    '',
  ].join('\n');
}

describe('alias expansion', () => {
  it('refuses a document that aliases expand past 1 MiB, at the first alias', async () => {
    const dir = await tempDir('packsync-alias-');
    await writeFile(join(dir, 'blown.yaml'), packageWithAliases(300_000, 8));
    const r = await cli(['validate', dir], {});
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(
      /blown\.yaml:13:9: aliases expand this document to about \d+ bytes, more than the 1048576 a manifest may have/,
    );
  });

  it('accepts aliases that stay small (the limit is on what they expand to, not on using them)', async () => {
    const dir = await tempDir('packsync-alias-');
    await writeFile(join(dir, 'small.yaml'), packageWithAliases(100, 8));
    const r = await cli(['validate', dir], {});
    expect(r.stdout + r.stderr).not.toMatch(/aliases expand/);
  });
});
