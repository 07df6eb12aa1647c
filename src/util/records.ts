/** A JSON object: not null, not an array (what JSON.parse gives for `{…}`). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
