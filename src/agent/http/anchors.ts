/**
 * Where an object is on the status page (docs/agent.md#links): `run --external-url URL` makes every
 * notification, card and commit status link to `URL#obj-Kind-name`. The page gives that id to the
 * object's first appearance (needs attention, its rollout row, its row under "Started by the
 * service", else its newest row of the recent events), so the object of an event has it while the
 * event is on the page: at the latest, the event's own row. A whole revision's events (`Source/…`)
 * and commit statuses link to the health banner. `@` is kept (a fragment may hold it): the service's
 * rollout `Flow/seven-zip@24.09` and a flow named `seven-zip-24.09` must not share an id.
 */
export function objectAnchor(key: string | undefined): string {
  if (!key || key.startsWith('Source/')) return 'banner';
  return `obj-${key.replace(/[^A-Za-z0-9_.@-]/g, '-')}`;
}

/** The absolute link, or undefined without `--external-url`. */
export function objectLink(externalUrl: string | undefined, key: string | undefined): string | undefined {
  if (!externalUrl) return undefined;
  const u = new URL(externalUrl);
  u.hash = objectAnchor(key);
  return u.toString();
}
