/**
 * Manifest files are UTF-8 text. Decoding leniently (`readFile(f, 'utf8')`) turns a Latin-1 "é"
 * into U+FFFD without a word, so a mangled publisher name would be uploaded, and it lets a binary
 * file through to the YAML parser, whose messages then quote the garbage. Both are reported
 * instead, at the line and column of the first offending byte.
 */
import { isUtf8 } from 'node:buffer';

export type Decoded = { ok: true; text: string } | { ok: false; line: number; column: number; message: string };

/** Offset of the first byte that does not start or continue a well-formed UTF-8 sequence, or -1. */
export function invalidUtf8Offset(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) {
      n = 1;
      min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      min = 0x10000;
    } else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const x = b[i + k];
      if (x === undefined || (x & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (x & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return i;
    i += n + 1;
  }
  return -1;
}

/** 1-based line and column (in characters) of a byte offset whose prefix is valid UTF-8. */
function position(b: Uint8Array, offset: number): { line: number; column: number } {
  const before = Buffer.from(b.buffer, b.byteOffset, offset).toString('utf8');
  const lines = before.split('\n');
  return { line: lines.length, column: [...(lines[lines.length - 1] ?? '')].length + 1 };
}

export function decodeManifest(b: Uint8Array): Decoded {
  if (
    (b[0] === 0xff && b[1] === 0xfe) ||
    (b[0] === 0xfe && b[1] === 0xff) ||
    (b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff)
  ) {
    return { ok: false, line: 1, column: 1, message: 'the file is UTF-16 or UTF-32 encoded (byte order mark); manifests must be UTF-8' };
  }
  const bad = isUtf8(b) ? -1 : invalidUtf8Offset(b);
  const nul = b.indexOf(0);
  if (nul >= 0 && (bad < 0 || nul < bad)) {
    return { ok: false, ...position(b, nul), message: 'the file contains a NUL byte: it is binary, not YAML text' };
  }
  if (bad >= 0) {
    return {
      ok: false,
      ...position(b, bad),
      message: `the file is not valid UTF-8 (byte 0x${b[bad]!.toString(16).padStart(2, '0')}); save it as UTF-8`,
    };
  }
  return {
    ok: true,
    text: Buffer.from(b.buffer, b.byteOffset, b.length)
      .toString('utf8')
      .replace(/^\uFEFF/, ''),
  };
}
