/**
 * Pending creates whose key git no longer describes, and that no state entry records: a run was
 * interrupted between a create's call and its record, then the manifest left git (the change was
 * reverted). Without this the object the create made stayed live, unowned and never mentioned.
 * The intent's own natural key finds it again: every plan lists it as requiring pruning (the
 * intent kept, so a manifest that comes back adopts it as it is live); with --prune a flow or
 * deployment is deleted (a package forgotten) and the intent goes; an intent that made nothing is
 * dropped. Keys with an entry are prune's (plan-prune.ts); desired keys are their kind's.
 */
import { catalogNaturalKey, customNaturalKey } from './package-targets.js';
import type { Intent } from '../../state/inventory-types.js';
import type { Kind } from '../../manifests/model.js';
import type { PlanContext } from '../context.js';
import { flowsMadeBy, oldest, newest } from '../ownership.js';
import { OP } from '../ops.js';

interface Made {
  kind: Kind;
  id: string;
  what: string;
}

/** The creates whose object a plan can look up by the intent alone (an upload task's intent is dropped: planLeftoverUpload). */
const LOOKED_UP: ReadonlySet<string> = new Set([OP.createFlow, OP.importPackage, OP.createPackage, OP.addDeployment]);

export function planLeftoverIntents(ctx: PlanContext): void {
  const claimed = idsClaimedByThisPlan(ctx);
  for (const [key, intent] of ctx.pendingIntents()) {
    if (!LOOKED_UP.has(intent.op) && intent.op !== OP.tenantUpload) continue;
    if (ctx.entry(key) !== undefined || ctx.isDesired(key) || ctx.moves.has(key)) continue;
    // Outside the applied path (or, for an intent older than its file, any partial path) git may still describe it.
    if (!ctx.inScope(intent)) continue;
    if (intent.op === OP.tenantUpload) {
      planLeftoverUpload(ctx, key);
      continue;
    }
    const made = madeBy(ctx, intent);
    if (made && claimed.has(made.id)) continue;
    planLeftover(ctx, key, made);
  }
}

/**
 * An upload task cannot be deleted or undone through the API, and nothing else refers to it: the
 * pending record goes whatever the task became (a manifest that comes back finds the task live
 * and adopts it, plan-uploads.ts). Before, it stayed pending for ever.
 */
function planLeftoverUpload(ctx: PlanContext, key: string): void {
  const name = key.slice(key.indexOf('/') + 1);
  const drop = ctx.action(key, { op: OP.forget, dependsOn: [], description: `drop the pending upload of ${key}` });
  ctx.object('TenantUpload', name, 'forget', {
    reasons: [
      `an interrupted run's upload of ${key}, which left git: an upload is not undone through the API; its pending record is dropped`,
    ],
    actions: [drop],
  });
}

function planLeftover(ctx: PlanContext, key: string, made: Made | undefined): void {
  const kind = key.slice(0, key.indexOf('/')) as Kind;
  const name = key.slice(key.indexOf('/') + 1);
  const why = `an interrupted run's create of ${key}, which left git`;
  const drop = (dependsOn: string[]): string =>
    ctx.action(key, { op: OP.forget, dependsOn, description: `drop the pending create of ${key}` });
  if (!made) {
    ctx.object(kind, name, 'forget', {
      reasons: [`${why}, left nothing packsync can find live: its pending create is dropped`],
      actions: [drop([])],
    });
    return;
  }
  if (ctx.options.prune && made.kind !== 'Package') {
    const del =
      made.kind === 'Flow'
        ? ctx.action(key, { op: OP.deleteFlow, dependsOn: [], description: `delete ${made.what} (made by ${why})`, flowId: made.id })
        : ctx.action(key, {
            op: OP.deleteDeployment,
            dependsOn: [],
            description: `delete ${made.what} (made by ${why})`,
            deploymentId: made.id,
          });
    ctx.object(kind, name, 'delete', { reasons: [`made by ${why}`], actions: [del, drop([del])] });
    return;
  }
  if (ctx.options.prune) {
    // The API cannot delete packages: with --prune packsync stops managing it, as for any package that left git.
    ctx.object(kind, name, 'forget', { reasons: [`${made.what} made by ${why}; the API cannot delete packages`], actions: [drop([])] });
    return;
  }
  // Listed, the intent kept: if the manifest comes back, its kind's plan adopts the object from the
  // intent as it is live (a record with no spec would be read as a change of every field).
  const o = ctx.object(kind, name, 'orphan', {
    reasons: [
      `${made.what} made by ${why}; ${made.kind === 'Package' ? 'the API cannot delete packages: apply with --prune to stop tracking it' : 'apply with --prune to delete it'}`,
    ],
  });
  if (made.kind !== 'Package') o.requiresPruning = true;
}

/** The live object the intent's create made: matching its natural key, not there before, owned by no key. */
function madeBy(ctx: PlanContext, intent: Intent): Made | undefined {
  const fresh = <T extends { id: string }>(xs: readonly T[] | undefined): T[] =>
    (xs ?? []).filter((x) => !intent.knownIds.includes(x.id) && ctx.holdersOf(x.id).length === 0);
  const m = intent.match;
  if (intent.op === OP.createFlow) {
    const f = oldest(flowsMadeBy(ctx, intent));
    return f && { kind: 'Flow', id: f.id, what: `flow ${f.id} ("${f.name}")` };
  }
  if (intent.op === OP.addDeployment) {
    const d = ctx.deploymentsByFlowPackage.get(`${m['flowId'] ?? ''}|${m['packageId'] ?? ''}`);
    return d && fresh([d])[0] && { kind: 'Deployment', id: d.id, what: `deployment ${d.id}` };
  }
  const natural = intent.op === OP.importPackage || intent.op === OP.createPackage ? packageKeyOf(intent) : undefined;
  const p = natural === undefined ? undefined : newest(fresh(ctx.packagesByNaturalKey.get(natural)));
  return p && { kind: 'Package', id: p.id, what: `package ${p.id}` };
}

/** The natural key of the package an import or create intent looked for (the match its action wrote). */
function packageKeyOf(intent: Intent): string {
  const m = intent.match;
  return intent.op === OP.createPackage
    ? customNaturalKey(m['name'] ?? '', m['version'] ?? '')
    : catalogNaturalKey(m['appId'] ?? '', m['version'] ?? '', Number(m['scope'] ?? 1));
}

/** Live ids this plan already takes over for a key git describes (an intent or --adopt): never recorded twice. */
function idsClaimedByThisPlan(ctx: PlanContext): Set<string> {
  const ids = new Set<string>();
  for (const a of ctx.actions) if (a.op === OP.record) ids.add(a.entry.id);
  return ids;
}
