/**
 * Azurite (Microsoft's Azure Storage emulator, an npm devDependency) for the remote-state tests: blob
 * service only, on a free loopback port, in memory, telemetry off (no traffic leaves the machine).
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { fileURLToPath } from 'node:url';
import { tempDir } from './repo.js';

const MAIN = fileURLToPath(new URL('../../node_modules/azurite/dist/src/blob/main.js', import.meta.url));
/** Azurite's documented development account (public, the same in every Azurite). */
const ACCOUNT = 'devstoreaccount1';
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface Azurite {
  connectionString: string;
  accountKey: string;
  stop: () => Promise<void>;
}

export async function startAzurite(): Promise<Azurite> {
  const cwd = await tempDir('packsync-azurite-');
  const child = spawn(
    process.execPath,
    [
      MAIN,
      '--blobHost',
      '127.0.0.1',
      '--blobPort',
      '0',
      '--inMemoryPersistence',
      '--skipApiVersionCheck',
      '--disableTelemetry',
      '--silent',
    ],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`azurite did not start: ${out}`)), 30_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`azurite exited (${code}): ${out}`)));
  });
  return {
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${ACCOUNT};AccountKey=${KEY};BlobEndpoint=http://127.0.0.1:${port}/${ACCOUNT};`,
    accountKey: KEY,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Azurite for the tests of one describe block (or file): started before them, stopped after; call the getter inside a test. */
export function useAzurite(): () => Azurite {
  let azurite: Azurite | undefined;
  beforeAll(async () => {
    azurite = await startAzurite();
  }, 60_000);
  afterAll(async () => {
    await azurite?.stop();
  });
  return () => {
    if (!azurite) throw new Error('Azurite did not start');
    return azurite;
  };
}
