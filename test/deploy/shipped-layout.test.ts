/**
 * What ships runs: the files of the npm package (`npm pack`'s list) and of the container image (the
 * runtime stage's `COPY --from=build` lines) are laid out alone in a temporary folder, with the
 * dependencies beside them, and the CLI validates the examples from there. Regression: both left out
 * dist/schemas, which the compiled loader imports, so every command that reads manifests crashed.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/repo.js';

const ROOT = join(import.meta.dirname, '..', '..');

async function validateFrom(app: string): Promise<void> {
  await symlink(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
  const out = execFileSync(process.execPath, [join(app, 'dist/src/cli/main.js'), 'validate', join(ROOT, 'examples')], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  expect(out).toMatch(/valid/i);
}

describe('shipped layout', () => {
  it('the npm package’s files run validate on their own', async () => {
    const list = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' })) as [
      { files: { path: string }[] },
    ];
    const app = await tempDir('packsync-pack-');
    for (const f of list[0].files) {
      await mkdir(dirname(join(app, f.path)), { recursive: true });
      await cp(join(ROOT, f.path), join(app, f.path));
    }
    await validateFrom(app);
  });

  it('the container image’s runtime files run validate on their own', async () => {
    const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    const app = await tempDir('packsync-image-');
    const copies = [...runtime.matchAll(/^COPY (--from=build )?(.+)$/gm)].map((m) => ({
      build: m[1] !== undefined,
      args: m[2]!.split(/\s+/),
    }));
    expect(copies.length).toBeGreaterThan(0);
    for (const c of copies) {
      const dest = c.args.at(-1)!;
      for (const src of c.args.slice(0, -1)) {
        const from = c.build ? join(ROOT, src.replace(/^\/src\//, '')) : join(ROOT, src);
        if (from.endsWith('node_modules')) continue; // the build stage's production install: linked below
        const to = dest.endsWith('/') ? join(app, dest, src.split('/').at(-1)!) : join(app, dest);
        await mkdir(dirname(to), { recursive: true });
        await cp(from, to, { recursive: true });
      }
    }
    await validateFrom(app);
  });
});
