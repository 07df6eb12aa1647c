/** HTML escaping shared by the status page and its sections (one module, so no section imports the page). */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attributes alike. */
export function esc(v: string | number | null | undefined): string {
  return String(v ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}
