/** The commit checked out where the manifests are, for titles that name a commit rather than a digest. */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/** `git rev-parse HEAD` in the path's directory; null outside a work tree or without git. */
export async function gitCommitOf(path: string): Promise<string | null> {
  const dir = (await stat(path).catch(() => null))?.isDirectory() ? path : dirname(path);
  return new Promise((resolve) => {
    execFile('git', ['-C', dir, 'rev-parse', '--verify', '--quiet', 'HEAD'], { timeout: 5000 }, (err, stdout) => {
      const sha = stdout.trim();
      resolve(!err && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha) ? sha : null);
    });
  });
}
