import { createHash } from 'node:crypto';

/**
 * Deterministic ids for simulator fixtures: the same seed, kind and name always give the same
 * UUID, so examples and docs can name fixture objects (patch groups have no list operation).
 */
export function fixtureId(seed: number, kind: string, name: string): string {
  const h = createHash('sha256').update(`seed:${seed}:${kind}:${name}`).digest('hex');
  const variant = ((parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
