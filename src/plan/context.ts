/**
 * Shared state of one planning pass: indexes over the live state and the inventory, and the
 * accumulators for objects and actions. Pure: built from values, no I/O.
 */
import type {
  ConfigurationTemplateViewModel,
  V1AppViewModel,
  V1DeploymentViewModel,
  V1PackageViewModel,
  V1TenantViewModel,
} from '../api/wire/index.js';
import type { Intent, Inventory, InventoryEntry } from '../state/inventory-types.js';
import type { DeploymentManifest, Kind, SourcePosition } from '../manifests/model.js';
import type { LiveFlow, LiveState } from '../live/types.js';
import type { GateReport } from './gates/promotion.js';
import type { WindowsSpec } from '../manifests/model.js';
import type { WindowState } from './windows/window-types.js';
import { NameIndex } from '../live/resolve.js';
import type { PatchGroupName } from '../api/operations.js';
import { packageNaturalKey } from '../live/identity.js';
import type { Change, IdRef, ObjectPlan, PlanAction, PlanOptions, PlanScope } from './types.js';
import { OP } from './ops.js';
import { StateIndex } from './state-index.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type NewAction = DistributiveOmit<PlanAction, 'id' | 'key'>;

/** How a dependent object can reach a referenced object's live id, and when it is ready. */
export interface RefState {
  /** Live id now, or a key whose id the applier will have recorded. */
  ref: IdRef | null;
  /** Action that must finish before the object can be used (create, upload, wait). */
  readyAfter: string | null;
  /** Set when the object cannot be used this pass (error, conflict, suspended without an id). */
  blockedBy: string | null;
  /** True when this pass creates a new live object (dependents are new too). */
  isNew: boolean;
  /**
   * A flow replacement's delete of the old flow waits on these actions; dependents add the
   * actions that must land on the new flow first (create before delete, docs/reconcile.md).
   */
  replaces?: string[];
}

export class PlanContext {
  readonly apps: NameIndex<V1AppViewModel>;
  readonly templates: NameIndex<ConfigurationTemplateViewModel>;
  readonly tenants: NameIndex<V1TenantViewModel>;
  readonly packagesById = new Map<string, V1PackageViewModel>();
  readonly flowsById = new Map<string, LiveFlow>();
  /** Live packages by natural key (see `packageNaturalKey`), for adoption and intent lookups. */
  readonly packagesByNaturalKey = new Map<string, V1PackageViewModel[]>();
  readonly flowsByName = new Map<string, LiveFlow[]>();
  readonly deploymentsByFlowPackage = new Map<string, V1DeploymentViewModel>();
  readonly deploymentsById = new Map<string, V1DeploymentViewModel>();
  readonly objects: ObjectPlan[] = [];
  readonly actions: PlanAction[] = [];
  /** Promotion gate reports, one per running deployment with `promotion` (plan-promotion.ts). */
  readonly gates: GateReport[] = [];
  /** Change windows (docs/policy.md): each Flow manifest's `spec.windows` by name, and each governed deployment's state this pass. */
  readonly flowWindows = new Map<string, WindowsSpec>();
  /** The desired deployments, for a flow replacement that must wait while one of them would start through a closed window. */
  desiredDeployments: readonly DeploymentManifest[] = [];
  readonly windows: WindowState[] = [];
  /** Packages and flows planned so far, by manifest name (lookups need no `Kind/name` string). */
  readonly packageRefs = new Map<string, RefState>();
  readonly flowRefs = new Map<string, RefState>();
  /** The state's indexes (entries, intents, owners by live id, superseded entries): plan/state-index.ts. */
  private readonly state: StateIndex;
  /** Old key → new key, for renames detected this pass (prune leaves old keys alone). */
  readonly moves = new Map<string, string>();
  /** State keys whose fate a flow replacement decides this pass (destroyed with the old flow): prune leaves them alone. */
  readonly replaced = new Set<string>();
  /**
   * Flows made by a replacement git abandoned → the kept flow their deployments go back to, and the
   * actions the flow's delete waits on (each deployment's record pushes its own).
   */
  readonly abandoned = new Map<string, { kept: string; after: string[] }>();
  /** Superseded keys a revert restores this pass (their entry becomes the main key's): prune leaves them alone. */
  readonly reused = new Set<string>();
  /** Flow id → the deployment entries on it (any key, superseded too); built on first use (replacements are rare). */
  private onFlow: Map<string, { key: string; id: string }[]> | undefined;
  /** Patch groups by name (`patchGroups`); built on first use, as a plan that names none never asks. */
  private patchGroupIndex: NameIndex<PatchGroupName> | undefined;
  private seq = 0;
  private stamp: string | undefined;
  private file: string | undefined;

  /** Whether git describes a key (a key it does not is pruned or kept); every key unless told. */
  readonly isDesired: (key: string) => boolean;
  readonly scope: PlanScope | undefined;
  /** Deployment manifests' identity hashes, made while the reads were in flight (`preparePlan`); for this desired set only. */
  readonly identityHashes: ReadonlyMap<DeploymentManifest, string> | undefined;

  constructor(
    readonly live: LiveState,
    readonly inventory: Inventory,
    readonly options: PlanOptions,
    readonly now: Date,
    pass: {
      isDesired?: (key: string) => boolean;
      scope?: PlanScope | undefined;
      index?: StateIndex | undefined;
      identityHashes?: ReadonlyMap<DeploymentManifest, string> | undefined;
    } = {},
  ) {
    const isDesired = (this.isDesired = pass.isDesired ?? ((): boolean => true));
    this.scope = pass.scope;
    this.identityHashes = pass.identityHashes;
    // An index built while the reads were in flight, when it is of this inventory and desired set.
    this.state =
      pass.index && pass.index.inventory === inventory && pass.index.isDesired === isDesired
        ? pass.index
        : StateIndex.build(inventory, isDesired);
    this.apps = new NameIndex(
      'catalog app',
      live.apps,
      (a) => [a.name],
      (a) => ({ name: a.name, detail: a.id }),
    );
    this.templates = new NameIndex(
      'script template',
      live.templates,
      (t) => [t.name],
      (t) => ({ name: t.name, detail: t.id }),
    );
    this.tenants = new NameIndex(
      'tenant',
      live.tenants,
      (t) => [t.defaultDomain, t.displayName],
      (t) => ({ name: t.defaultDomain, detail: `${t.displayName}, ${t.id}` }),
    );
    for (const p of live.packages) {
      this.packagesById.set(p.id, p);
      const k = packageNaturalKey(p);
      const same = this.packagesByNaturalKey.get(k);
      if (same) same.push(p);
      else this.packagesByNaturalKey.set(k, [p]);
    }
    for (const f of live.flows) {
      if (f.deleted) continue;
      this.flowsById.set(f.id, f);
      const same = this.flowsByName.get(f.name);
      if (same) same.push(f);
      else this.flowsByName.set(f.name, [f]);
    }
    for (const d of live.deployments) {
      this.deploymentsByFlowPackage.set(`${d.flowId}|${d.packageId}`, d);
      this.deploymentsById.set(d.id, d);
    }
  }

  /** Patch groups by name, from the list read when a manifest names one (LiveState.patchGroups): built on first use. */
  get patchGroups(): NameIndex<PatchGroupName> {
    return (this.patchGroupIndex ??= new NameIndex(
      'patch group',
      this.live.patchGroups ?? [],
      (g) => [g.name],
      (g) => ({ name: g.name, detail: g.id }),
    ));
  }

  entry(key: string): InventoryEntry | undefined {
    return this.state.entries.get(key);
  }

  /** Every state entry by key, in the inventory's order. */
  allEntries(): ReadonlyMap<string, InventoryEntry> {
    return this.state.entries;
  }

  intent(key: string): Intent | undefined {
    return this.state.intents.get(key);
  }

  /** Every pending create of the state (an interrupted run's), by key. */
  pendingIntents(): ReadonlyMap<string, Intent> {
    return this.state.intents;
  }

  /** The state key owning a live id (superseded entries excluded). */
  ownerOf(id: string): string | undefined {
    return this.state.owners.get(id);
  }

  /** Every state key recording live id `id` (main and superseded), sorted; empty when none. */
  holdersOf(id: string): readonly string[] {
    const keys = this.state.shared.get(id);
    if (keys) return keys;
    const one = this.state.keyOf(id);
    return one !== undefined ? [one] : [];
  }

  /** Ids recorded under more than one state key, with those keys (sorted). */
  sharedIds(): ReadonlyMap<string, readonly string[]> {
    return this.state.shared;
  }

  /** The state key owning a live id, a superseded entry's when no main key owns it. */
  stateKeyOf(id: string): string | undefined {
    return this.state.keyOf(id);
  }

  /** The deployment entries of the state on a live flow (what its delete destroys). */
  deploymentEntriesOn(flowId: string): readonly { key: string; id: string }[] {
    if (!this.onFlow) {
      this.onFlow = new Map();
      for (const [key, e] of this.state.entries) {
        if (e.kind !== 'Deployment' || e.flowId === undefined) continue;
        const list = this.onFlow.get(e.flowId);
        if (list) list.push({ key, id: e.id });
        else this.onFlow.set(e.flowId, [{ key, id: e.id }]);
      }
    }
    return this.onFlow.get(flowId) ?? [];
  }

  /**
   * Two manifests of this plan that resolve to one live identity (a catalog app named by name in one
   * Package and by id in another, a tenant named by domain in one TenantUpload and by name in
   * another): the first key to claim it keeps it; the second learns the first's key.
   */
  claimIdentity(identity: string, key: string): string | undefined {
    const first = this.identities.get(identity);
    if (first !== undefined && first !== key) return first;
    this.identities.set(identity, key);
    return undefined;
  }

  private readonly identities = new Map<string, string>();

  /** Superseded entries kept for a main key (a revert reuses them). */
  superseded(key: string): readonly [string, InventoryEntry][] {
    return this.state.supersededOf.get(key) ?? [];
  }

  /**
   * A rename (docs/reconcile.md): the live object `id` is owned by a key that left git (and lies in this
   * apply's scope); returns that key once, and remembers the move so prune leaves it alone.
   */
  claimMove(newKey: string, id: string): { from: string; entry: InventoryEntry } | undefined {
    const from = this.state.owners.get(id);
    if (!from || from === newKey || this.moves.has(from) || this.isDesired(from)) return undefined;
    const entry = this.state.entries.get(from);
    if (!entry || !this.inScope(entry)) return undefined;
    this.moves.set(from, newKey);
    return { from, entry };
  }

  /** Notes the manifest file of the object being planned; every record written for it carries it. */
  setFile(file: string | undefined): void {
    this.file = file;
  }

  /** Whether a state entry came from a file under the applied path (prune and moves stay inside it). */
  inScope(e: Pick<InventoryEntry, 'file'>): boolean {
    const sc = this.scope;
    if (!sc) return true;
    if (e.file === undefined) return sc.whole;
    if (sc.single) return e.file === sc.path;
    return sc.path === '' || e.file === sc.path || e.file.startsWith(sc.path.endsWith('/') ? sc.path : `${sc.path}/`);
  }

  /** Adds an action and returns its id; ids are stable for the same inputs (sequence order). */
  action(key: string, a: NewAction): string {
    const id = `${String(++this.seq).padStart(4, '0')}:${key}:${a.op}`;
    // The argument is always a fresh literal: completing it in place saves a copy per action.
    const full = a as PlanAction;
    full.id = id;
    full.key = key;
    if (this.file !== undefined) {
      if ('record' in full && !full.key.includes('#')) full.record.file = this.file;
      else if (full.op === OP.record && full.entry.superseded === undefined) full.entry.file = this.file;
    }
    this.actions.push(full);
    return id;
  }

  object(
    kind: Kind,
    name: string,
    change: Change,
    init: Partial<Omit<ObjectPlan, 'key' | 'kind' | 'name' | 'change'>> & { source?: SourcePosition } = {},
    /** Always `${kind}/${name}`; callers that built it already pass it, saving a string per object. */
    key = `${kind}/${name}`,
  ): ObjectPlan {
    const reasons = init.reasons ?? [];
    const fields = init.fields ?? [];
    const actions = init.actions ?? [];
    const { error, source } = init;
    // One literal per shape instead of spreading optional parts in: at 100k objects the spreads
    // (and the objects that then grew out-of-line property stores) were over a tenth of a plan.
    // Key order stays key, kind, name, change, reasons, fields, actions, error, source.
    const o: ObjectPlan = error
      ? source
        ? { key, kind, name, change, reasons, fields, actions, error, source }
        : { key, kind, name, change, reasons, fields, actions, error }
      : source
        ? { key, kind, name, change, reasons, fields, actions, source }
        : { key, kind, name, change, reasons, fields, actions };
    this.objects.push(o);
    return o;
  }

  /** `now` as ISO text, computed once per plan (every record action carries it). */
  timestamp(): string {
    return (this.stamp ??= this.now.toISOString());
  }
}

export function idOf(ref: IdRef | null): string | undefined {
  return ref && 'id' in ref ? ref.id : undefined;
}
