/** A fresh directory under the OS temp folder; the one way tests and benchmarks make one. */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function tempDir(prefix = 'packsync-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}
