/**
 * The trusted keys for commit signature verification (`--trusted-keys DIR`): an SSH
 * `allowed_signers` file and/or OpenPGP `*.asc` public keys. Trust comes only from this directory,
 * never from the repository being verified nor from the user's own keyring: the `*.asc` keys are
 * imported into a keyring packsync owns (`<state-dir>/gnupg`, recreated at every start).
 * Anything missing or unreadable is refused at startup, so a typo never turns into "verify nothing".
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, chmod, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { PacksyncError } from '../../util/errors.js';

const run = promisify(execFile);

/** A misconfigured verification: the agent refuses to start (exit 1). */
export class VerifyConfigError extends PacksyncError<'VERIFY_CONFIG'> {
  constructor(message: string) {
    super('VERIFY_CONFIG', message);
  }
}

export interface OpenPgpKey {
  /** Primary key fingerprint (upper-case hex). */
  fingerprint: string;
  uids: { uid: string; email: string | null }[];
}

export interface TrustedKeys {
  dir: string;
  /** Absolute path of `allowed_signers`, when the directory has one. */
  allowedSignersFile: string | null;
  /** The isolated keyring holding the `*.asc` keys, when the directory has any. */
  gnupgHome: string | null;
  openpgpKeys: OpenPgpKey[];
  /** Absolute paths of the programs git is told to use (`gpg.program`, `gpg.ssh.program`). */
  gpgProgram: string | null;
  sshKeygenProgram: string | null;
  gitProgram: string;
}

/** Finds an executable on PATH, or null. */
export async function findProgram(name: string, path: string | undefined): Promise<string | null> {
  for (const d of (path ?? '').split(delimiter)) {
    if (!d) continue;
    const p = join(d, name);
    const ok = await access(p, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (ok) return p;
  }
  return null;
}

export interface LoadTrustedKeysOptions {
  dir: string;
  /** Where the isolated keyring lives (recreated). */
  gnupgHome: string;
  env: NodeJS.ProcessEnv;
}

export async function loadTrustedKeys(o: LoadTrustedKeysOptions): Promise<TrustedKeys> {
  const dir = resolve(o.dir);
  const st = await stat(dir).catch(() => null);
  if (!st?.isDirectory()) throw new VerifyConfigError(`--trusted-keys ${dir} is not a readable directory`);
  const names = await readdir(dir).catch((e: unknown) => {
    throw new VerifyConfigError(`--trusted-keys ${dir} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  });
  const ascFiles = names.filter((n) => n.endsWith('.asc')).sort();
  const allowed = names.includes('allowed_signers') ? join(dir, 'allowed_signers') : null;
  if (!allowed && ascFiles.length === 0)
    throw new VerifyConfigError(`--trusted-keys ${dir} holds no allowed_signers file and no *.asc key: nothing could ever be trusted`);

  const gitProgram = await findProgram('git', o.env.PATH);
  if (!gitProgram) throw new VerifyConfigError('git is not installed (on PATH): it is needed to verify commit signatures');
  let sshKeygenProgram: string | null = null;
  if (allowed) {
    const text = await readFile(allowed, 'utf8').catch((e: unknown) => {
      throw new VerifyConfigError(`${allowed} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
    });
    if (!text.split('\n').some((l) => l.trim() && !l.trim().startsWith('#')))
      throw new VerifyConfigError(`${allowed} is empty: add lines "<principal> <key type> <public key>"`);
    sshKeygenProgram = await findProgram('ssh-keygen', o.env.PATH);
    if (!sshKeygenProgram)
      throw new VerifyConfigError(
        'ssh-keygen is not installed (on PATH): it is needed to verify SSH signatures (allowed_signers in --trusted-keys)',
      );
  }
  let gpgProgram: string | null = null;
  let gnupgHome: string | null = null;
  let openpgpKeys: OpenPgpKey[] = [];
  if (ascFiles.length > 0) {
    gpgProgram = await findProgram('gpg', o.env.PATH);
    if (!gpgProgram)
      throw new VerifyConfigError('gpg is not installed (on PATH): it is needed to verify OpenPGP signatures (*.asc in --trusted-keys)');
    gnupgHome = o.gnupgHome;
    // A fresh keyring every start: a key removed from the directory is no longer trusted.
    await rm(gnupgHome, { recursive: true, force: true });
    await mkdir(gnupgHome, { recursive: true, mode: 0o700 });
    await chmod(gnupgHome, 0o700);
    const env = gpgEnv(o.env, gnupgHome);
    for (const f of ascFiles) {
      const file = join(dir, f);
      await readFile(file).catch((e: unknown) => {
        throw new VerifyConfigError(`${file} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
      });
      await run(gpgProgram, ['--batch', '--no-autostart', '--quiet', '--import', file], { env }).catch((e: unknown) => {
        throw new VerifyConfigError(`${file} is not an OpenPGP public key gpg can import: ${firstLine(e)}`);
      });
    }
    openpgpKeys = parseKeyList(
      (await run(gpgProgram, ['--batch', '--no-autostart', '--with-colons', '--fixed-list-mode', '--list-keys'], { env })).stdout,
    );
    if (openpgpKeys.length === 0) throw new VerifyConfigError(`the *.asc files in ${dir} hold no OpenPGP public key`);
  }
  return { dir, allowedSignersFile: allowed, gnupgHome, openpgpKeys, gpgProgram, sshKeygenProgram, gitProgram };
}

/** The environment for gpg and for git calling gpg: only the isolated keyring, never ~/.gnupg. */
export function gpgEnv(env: NodeJS.ProcessEnv, gnupgHome: string): Record<string, string> {
  return { PATH: env.PATH ?? '/usr/bin:/bin', HOME: gnupgHome, GNUPGHOME: gnupgHome, LC_ALL: 'C' };
}

/** `gpg --with-colons --list-keys`: primary fingerprints and their user ids. */
export function parseKeyList(text: string): OpenPgpKey[] {
  const keys: OpenPgpKey[] = [];
  let current: OpenPgpKey | null = null;
  let expectPrimaryFpr = false;
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f[0] === 'pub') {
      current = { fingerprint: '', uids: [] };
      keys.push(current);
      expectPrimaryFpr = true;
    } else if (f[0] === 'sub') {
      expectPrimaryFpr = false;
    } else if (f[0] === 'fpr' && current && expectPrimaryFpr) {
      current.fingerprint = (f[9] ?? '').toUpperCase();
      expectPrimaryFpr = false;
    } else if (f[0] === 'uid' && current) {
      const uid = unescapeColons(f[9] ?? '');
      current.uids.push({ uid, email: /<([^>]+)>/.exec(uid)?.[1]?.toLowerCase() ?? (uid.includes('@') ? uid.toLowerCase() : null) });
    }
  }
  return keys.filter((k) => k.fingerprint);
}

function unescapeColons(s: string): string {
  return s.replace(/\\x([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
}

function firstLine(e: unknown): string {
  const err = e as { stderr?: string; message?: string };
  const text = (err.stderr && err.stderr.trim()) || err.message || String(e);
  return (
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim()
      .slice(0, 200) ?? 'failed'
  );
}
