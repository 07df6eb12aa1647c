/**
 * Where an object is on the status page (docs/agent.md#links): `run --external-url URL` makes every
 * notification, card and commit status link to `URL#obj-Kind-name`. The page gives that id to the
 * object's first appearance (needs attention, else its rollout row); a whole revision's events
 * (`Source/…`) and commit statuses link to the health banner.
 */
export function objectAnchor(key: string | undefined): string {
  if (!key || key.startsWith('Source/')) return 'banner';
  return `obj-${key.replace(/[^A-Za-z0-9_.-]/g, '-')}`;
}

/** The absolute link, or undefined without `--external-url`. */
export function objectLink(externalUrl: string | undefined, key: string | undefined): string | undefined {
  if (!externalUrl) return undefined;
  const u = new URL(externalUrl);
  u.hash = objectAnchor(key);
  return u.toString();
}
