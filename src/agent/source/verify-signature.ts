/**
 * One signature check, done by git itself (`git verify-commit --raw` / `git verify-tag --raw`)
 * with the verification settings given per call on the command line, so neither the user's git
 * config nor the repository's own `.git/config` can point git at another key list or program.
 * Git proves the signature is good and the key trusted; packsync then binds the key to the
 * committer (or tagger): the SSH principal, or an OpenPGP uid email, must be that person's email.
 */
import { execFile } from 'node:child_process';
import type { TrustedKeys } from './verify-keys.js';
import { gpgEnv } from './verify-keys.js';

export interface Verdict {
  ok: boolean;
  /** The commit (or tag) that was checked. */
  object: string;
  /** SSH principal, or `uid (FINGERPRINT)` for OpenPGP; null when unsigned or unknown. */
  signer: string | null;
  /** Why it was refused (empty when ok). */
  why: string;
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs git in `cwd` with a minimal environment: no global or system config, the isolated keyring. */
export function runGit(keys: TrustedKeys, cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<GitResult> {
  const config: string[] = ['-c', 'gpg.minTrustLevel=undefined', '-c', 'core.fsmonitor=false'];
  // Unset formats point at programs that are not there: a signature of that kind fails loudly.
  config.push('-c', `gpg.ssh.allowedSignersFile=${keys.allowedSignersFile ?? '/nonexistent/packsync-no-allowed-signers'}`);
  if (keys.sshKeygenProgram) config.push('-c', `gpg.ssh.program=${keys.sshKeygenProgram}`);
  config.push(
    '-c',
    `gpg.program=${keys.gpgProgram ?? '/nonexistent/packsync-no-gpg'}`,
    '-c',
    `gpg.openpgp.program=${keys.gpgProgram ?? '/nonexistent/packsync-no-gpg'}`,
  );
  const home = keys.gnupgHome ?? cwd;
  const childEnv = { ...gpgEnv(env, home), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' };
  return new Promise((resolve) => {
    execFile(keys.gitProgram, [...config, ...args], { cwd, env: childEnv, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 128) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

interface Signed {
  signerEmail: string | null;
  /** 'ssh' | 'openpgp' | null (unsigned) */
  format: 'ssh' | 'openpgp' | 'x509' | null;
}

/** Reads the committer (or tagger) email and the kind of signature from the raw object. */
export function parseObject(raw: string, kind: 'commit' | 'tag'): Signed {
  const headerEnd = raw.indexOf('\n\n');
  const header = headerEnd >= 0 ? raw.slice(0, headerEnd) : raw;
  const person = new RegExp(`^${kind === 'commit' ? 'committer' : 'tagger'} [^<]*<([^>]*)>`, 'm').exec(header)?.[1]?.toLowerCase() ?? null;
  // Commits carry the signature in a `gpgsig` header; tags append it to the message.
  const sigText = kind === 'commit' ? (/^gpgsig(?:-sha256)? (.*)$/m.exec(header)?.[1] ?? '') : raw;
  const format = /-----BEGIN SSH SIGNATURE-----/.test(sigText)
    ? 'ssh'
    : /-----BEGIN PGP SIGNATURE-----/.test(sigText)
      ? 'openpgp'
      : /-----BEGIN SIGNED MESSAGE-----/.test(sigText)
        ? 'x509'
        : null;
  return { signerEmail: person, format };
}

const SSH_GOOD = /^Good "git" signature for (.+) with (\S+) key (SHA256:\S+)/m;
const SSH_KEY = /signature with (\S+) key (SHA256:\S+)/m;

/** Checks one commit (`kind: 'commit'`) or one annotated tag (`kind: 'tag'`, given by ref). */
export async function verifyObject(
  keys: TrustedKeys,
  cwd: string,
  kind: 'commit' | 'tag',
  object: string,
  env: NodeJS.ProcessEnv,
): Promise<Verdict> {
  const name = kind === 'commit' ? `commit ${object}` : `tag ${object}`;
  const raw = await runGit(keys, cwd, ['cat-file', kind, object], env);
  if (raw.code !== 0) return { ok: false, object, signer: null, why: `${name} cannot be read: ${clip(raw.stderr)}` };
  const info = parseObject(raw.stdout, kind);
  const who = kind === 'commit' ? 'committed' : 'tagged';
  if (info.format === null) return { ok: false, object, signer: null, why: `${name} is not signed` };
  if (info.format === 'x509')
    return { ok: false, object, signer: null, why: `${name} has an X.509 signature; only SSH and OpenPGP signatures can be trusted` };
  if (info.format === 'ssh' && !keys.allowedSignersFile)
    return { ok: false, object, signer: null, why: `${name} has an SSH signature but --trusted-keys has no allowed_signers file` };
  if (info.format === 'openpgp' && !keys.gnupgHome)
    return { ok: false, object, signer: null, why: `${name} has an OpenPGP signature but --trusted-keys has no *.asc key` };
  const res = await runGit(keys, cwd, [kind === 'commit' ? 'verify-commit' : 'verify-tag', '--raw', object], env);
  const out = `${res.stdout}\n${res.stderr}`;
  const email = info.signerEmail ?? '(no email)';
  if (info.format === 'ssh') {
    const good = SSH_GOOD.exec(out);
    if (res.code !== 0 || !good) {
      const key = SSH_KEY.exec(out);
      if (key && /No principal matched/i.test(out))
        return {
          ok: false,
          object,
          signer: null,
          why: `${name} is signed by SSH key ${key[2] ?? ''}, which is not in the trusted allowed_signers`,
        };
      return { ok: false, object, signer: null, why: `${name} has an SSH signature that does not verify: ${clip(out)}` };
    }
    const principal = good[1]!;
    if (!principalMatches(principal, email))
      return {
        ok: false,
        object,
        signer: principal,
        why: `${name} is signed by ${principal} (SSH key ${good[3] ?? ''}) but ${who} by ${email}`,
      };
    return { ok: true, object, signer: principal, why: '' };
  }
  const status = parseGpgStatus(out);
  if (status.noPubkey)
    return {
      ok: false,
      object,
      signer: null,
      why: `${name} is signed by OpenPGP key ${status.noPubkey}, which is not among the trusted keys`,
    };
  if (status.badSig) return { ok: false, object, signer: null, why: `${name} has a bad OpenPGP signature (key ${status.badSig})` };
  if (res.code !== 0 || !status.validFpr)
    return { ok: false, object, signer: null, why: `${name} has an OpenPGP signature that does not verify: ${clip(out)}` };
  const key = keys.openpgpKeys.find((k) => k.fingerprint === status.validFpr);
  if (!key)
    return {
      ok: false,
      object,
      signer: null,
      why: `${name} is signed by OpenPGP key ${status.validFpr}, which is not among the trusted keys`,
    };
  const uid = key.uids.find((u) => u.email === email);
  const signer = `${(uid ?? key.uids[0])?.uid ?? '(no uid)'} (${key.fingerprint})`;
  if (!uid) return { ok: false, object, signer, why: `${name} is signed by ${signer} but ${who} by ${email}` };
  return { ok: true, object, signer, why: '' };
}

interface GpgStatus {
  validFpr: string | null;
  noPubkey: string | null;
  badSig: string | null;
}

/** The `[GNUPG:]` status lines `verify-* --raw` prints: VALIDSIG's last field is the primary key. */
export function parseGpgStatus(out: string): GpgStatus {
  const s: GpgStatus = { validFpr: null, noPubkey: null, badSig: null };
  for (const line of out.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] !== '[GNUPG:]') continue;
    if (f[1] === 'VALIDSIG') s.validFpr = (f[f.length - 1] ?? '').toUpperCase();
    if (f[1] === 'NO_PUBKEY') s.noPubkey = f[2] ?? '?';
    if (f[1] === 'BADSIG') s.badSig = f[2] ?? '?';
  }
  return s;
}

/** allowed_signers principals: a comma-separated list of patterns (`*`, `?`); `!` negates. */
export function principalMatches(principals: string, email: string): boolean {
  const target = email.toLowerCase();
  let matched = false;
  for (const p of principals.split(',').map((x) => x.trim().toLowerCase())) {
    if (!p) continue;
    const negated = p.startsWith('!');
    const pattern = negated ? p.slice(1) : p;
    const re = new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
    if (re.test(target)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** Git's output in a status message: one line, bounded, printable. */
function clip(s: string): string {
  return (
    s
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('gpg:'))
      .join('; ')
      .replace(/[^\x20-\x7e]/g, '?')
      .slice(0, 300) || 'no output'
  );
}
