/**
 * Incomplete list answers never duplicate (docs/reconcile.md, "Reading the live state"): an object the
 * state owns that a list answer leaves out is read by its id before anything is planned. A 404 confirms
 * it is gone (the plan then says so, or creates it again); any other failure fails the pass. A list that
 * comes back empty while the state owns objects is therefore never taken at face value. Ids compare
 * case-insensitively (GUIDs): an answer in upper case still matches what the state recorded.
 */
import { errorCode } from '../util/errors.js';

export const lowerId = (id: string): string => id.toLowerCase();

/** The listed objects with lower-case ids, plus every owned id the list left out that a read by id still finds. */
export async function withOwned<T extends { id: string }>(
  listed: readonly T[],
  ownedIds: readonly string[],
  read: (id: string) => Promise<T>,
): Promise<T[]> {
  const out = listed.map((x) => (x.id === lowerId(x.id) ? x : { ...x, id: lowerId(x.id) }));
  const seen = new Set(out.map((x) => x.id));
  const missing = [...new Set(ownedIds.map(lowerId))].filter((id) => !seen.has(id));
  for (const id of missing) {
    try {
      const found = await read(id);
      out.push({ ...found, id: lowerId(found.id) });
    } catch (e) {
      if (errorCode(e) === 'API_NOT_FOUND') continue;
      throw e;
    }
  }
  return out;
}
