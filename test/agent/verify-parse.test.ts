/** The small parsers verification relies on: principal patterns, gpg status lines, key listings, raw objects. */
import { describe, expect, it } from 'vitest';
import { parseKeyList } from '../../src/agent/source/verify-keys.js';
import { parseGpgStatus, parseObject, principalMatches } from '../../src/agent/source/verify-signature.js';

describe('verification parsers', () => {
  it('matches allowed_signers principals exactly, by pattern, and honours negation', () => {
    expect(principalMatches('alice@example.com', 'Alice@Example.com')).toBe(true);
    expect(principalMatches('bob@example.com', 'alice@example.com')).toBe(false);
    expect(principalMatches('bob@example.com,alice@example.com', 'alice@example.com')).toBe(true);
    expect(principalMatches('*@example.com', 'alice@example.com')).toBe(true);
    expect(principalMatches('*@example.com', 'alice@example.com.evil.org')).toBe(false);
    expect(principalMatches('*@example.com,!mallory@example.com', 'mallory@example.com')).toBe(false);
    expect(principalMatches('alice@example.com', 'alicexexample.com')).toBe(false);
  });

  it('reads the primary fingerprint from VALIDSIG and unknown keys from NO_PUBKEY', () => {
    expect(
      parseGpgStatus(
        '[GNUPG:] GOODSIG ACCE5A9E580B4A5B Alice <a@x>\n[GNUPG:] VALIDSIG SUBFPR 2026-01-01 1 0 4 0 22 8 00 0B06CE118963FFC16C8B1B78ACCE5A9E580B4A5B\n',
      ),
    ).toEqual({ validFpr: '0B06CE118963FFC16C8B1B78ACCE5A9E580B4A5B', noPubkey: null, badSig: null });
    expect(parseGpgStatus('[GNUPG:] ERRSIG 97AA228F890F3835 22 8 00 1 9 X\n[GNUPG:] NO_PUBKEY 97AA228F890F3835\n').noPubkey).toBe(
      '97AA228F890F3835',
    );
  });

  it('lists primary keys with their uid emails, not subkeys', () => {
    const keys = parseKeyList(
      [
        'pub:u:255:22:AAAA:1:::u:::scSC::::::',
        'fpr:::::::::PRIMARY1:',
        'uid:u::::1::H::Alice \\x3a A <Alice@Example.com>::::',
        'sub:u:255:18:BBBB:1::::::e::',
        'fpr:::::::::SUBKEY1:',
      ].join('\n'),
    );
    expect(keys).toEqual([{ fingerprint: 'PRIMARY1', uids: [{ uid: 'Alice : A <Alice@Example.com>', email: 'alice@example.com' }] }]);
  });

  it('tells unsigned, SSH and OpenPGP objects apart and reads committer and tagger', () => {
    const commit =
      'tree t\nauthor A <a@x> 1 +0000\ncommitter C <C@X> 1 +0000\ngpgsig -----BEGIN SSH SIGNATURE-----\n U1NIU0lH\n -----END SSH SIGNATURE-----\n\nmsg -----BEGIN PGP SIGNATURE-----\n';
    expect(parseObject(commit, 'commit')).toEqual({ signerEmail: 'c@x', format: 'ssh' });
    // A signature-looking message is not a signature.
    expect(parseObject('tree t\ncommitter C <c@x> 1 +0000\n\n-----BEGIN PGP SIGNATURE-----\n', 'commit')).toEqual({
      signerEmail: 'c@x',
      format: null,
    });
    expect(
      parseObject('object o\ntype commit\ntag r\ntagger T <t@x> 1 +0000\n\nrelease\n-----BEGIN PGP SIGNATURE-----\nx\n', 'tag'),
    ).toEqual({ signerEmail: 't@x', format: 'openpgp' });
  });
});
