/**
 * Catalog releases (docs/api-model.md, "Releases"): new versions of catalog apps over virtual time,
 * and what the service does about them by itself. A release is per account (the fixtures are shared
 * by every key, the releases are not). It shows in the app's details (`versions`, newest first, with
 * its release time), the app list's `latestVersion` and `newVersionAvailable`/`latestVersion` of the
 * packages of that app. A flow with `startNewVersionsAutomatically` imports the version and adds a
 * deployment for it, started at wave 1, once the import's virtual minutes have passed; the running
 * deployments are stopped (`stopCurrentAndStartNew`, or no mode flag: chosen) or keep running
 * (`runAlongsideCurrent`), and deployments beyond `supersedenceHistoryCount` are removed, oldest first.
 */
import type { V1AppVersionViewModel } from '../api/wire/index.js';
import type { Account, FlowRec } from './account.js';
import { DURATIONS, newDeployment } from './account.js';
import { dotnetTime, parseDotnetTime } from './clock.js';
import { fixtureId } from './fixture-ids.js';
import type { CatalogApp } from './fixtures.js';
import { importedPackage } from './imported-package.js';
import { FLOW_FLAGS, PACKAGE_SOURCE } from './vocabulary.js';
import type { ReleaseRec } from './release-state.js';
import { compareVersions } from '../util/version-order.js';

/** The app's versions in this account, newest first: the catalog's and those released since. */
export function versionsOf(account: Account, app: CatalogApp): V1AppVersionViewModel[] {
  const mine = account.releases.releases.filter((r) => r.appId === app.id);
  if (mine.length === 0) return app.versions;
  const added = mine.map((r) => versionView(app, r.version, r.releasedAt));
  return [...added, ...app.versions].sort((a, b) => parseDotnetTime(b.createdDate) - parseDotnetTime(a.createdDate));
}

/**
 * The app's latest version in this account: the highest version (util/version-order.ts), the later
 * release first when two compare equal. Not simply the newest release: a fix published for an older
 * line (23.02 after 24.08) is not the app's latest (docs/api-model.md, "Releases").
 */
export function latestOf(versions: readonly V1AppVersionViewModel[]): V1AppVersionViewModel | undefined {
  let best: V1AppVersionViewModel | undefined;
  for (const v of versions) if (!best || compareVersions(v.version, best.version) > 0) best = v;
  return best;
}

/** The app's latest version's name in this account (see `latestOf`). */
export function latestVersionOf(account: Account, app: CatalogApp): string | undefined {
  return latestOf(versionsOf(account, app))?.version;
}

/**
 * A catalog package's `newVersionAvailable`/`latestVersion` as of now: a release after the import
 * shows on the package, as the service shows it (docs/api-model.md, "Releases"). Every view of a package uses it: the
 * API's reads and the admin state dump alike.
 */
export function withLatest<
  P extends { appId?: string | null; productVersion: string; source: number; newVersionAvailable: boolean; latestVersion: string | null },
>(account: Account, p: P): P {
  const app = p.appId ? account.fixtures.appsById.get(p.appId) : undefined;
  if (!app || p.source !== PACKAGE_SOURCE.catalog) return p;
  const latest = latestVersionOf(account, app) ?? p.latestVersion;
  return { ...p, latestVersion: latest, newVersionAvailable: latest !== null && compareVersions(latest, p.productVersion) > 0 };
}

function versionView(app: CatalogApp, version: string, releasedAt: string): V1AppVersionViewModel {
  return {
    id: fixtureId(0, 'app-version', `${app.id}@${version}`),
    version,
    createdDate: releasedAt,
    description: `${app.name} ${version}`,
    machineScope: app.machineScope,
    userScope: app.userScope,
    storeApp: false,
  };
}

/** Why a release cannot be published, or null. */
export function releaseProblem(account: Account, app: CatalogApp, version: string, releasedAtMs: number, nowMs: number): string | null {
  if (versionsOf(account, app).some((v) => v.version.toLowerCase() === version.toLowerCase()))
    return `${app.name} ${version} is already in the catalog.`;
  if (releasedAtMs > nowMs) return `releasedAt ${dotnetTime(releasedAtMs)} is in the future (the service's clock is ${dotnetTime(nowMs)}).`;
  return null;
}

/** Publishes a version now (released at `releasedAtMs`) and schedules the flows' reaction. */
export function publishRelease(
  account: Account,
  app: CatalogApp,
  version: string,
  at: { releasedAtMs: number; nowMs: number; scheduled?: boolean },
): ReleaseRec {
  const rec: ReleaseRec = {
    appId: app.id,
    app: app.name,
    version,
    releasedAt: dotnetTime(at.releasedAtMs),
    publishedAt: dotnetTime(at.nowMs),
    scheduled: at.scheduled ?? false,
  };
  account.releases.releases.push(rec);
  const importMs = (DURATIONS.importQueued + DURATIONS.importProcessing) * 1000;
  account.releases.reactions.push({ dueMs: at.nowMs + importMs, appId: app.id, version });
  account.touch();
  return rec;
}

/**
 * Brings an account to virtual time `now`: scheduled releases, the flows' reactions to releases, then
 * the account's own transitions. Every request and admin call settles through here.
 */
export function settleAccount(account: Account, now: number): void {
  tickReleases(account, now);
  settleReleases(account, account.fixtures.appsById, now);
  account.settle(now);
}

/** Carries out the flows' reactions due by `now`, in the order they became due. */
function settleReleases(account: Account, apps: ReadonlyMap<string, CatalogApp>, now: number): void {
  const state = account.releases;
  if (state.reactions.length === 0) return;
  const due = state.reactions.filter((r) => r.dueMs <= now).sort((a, b) => a.dueMs - b.dueMs);
  if (due.length === 0) return;
  state.reactions = state.reactions.filter((r) => r.dueMs > now);
  for (const r of due) {
    const app = apps.get(r.appId);
    // Only the app's latest version is started: a release for an older line never rolls a flow back.
    if (!app || latestVersionOf(account, app) !== r.version) continue;
    for (const flow of account.flows.values()) {
      if (flow.deleted || flow.appId !== app.id || (flow.flags & FLOW_FLAGS.startNewVersionsAutomatically) === 0) continue;
      startNewVersion(account, { flow, app, version: r.version, at: r.dueMs });
    }
  }
  account.touch();
}

/** What the service does in one flow for a new version: import, add, start at wave 1, supersede. */
function startNewVersion(account: Account, o: { flow: FlowRec; app: CatalogApp; version: string; at: number }): void {
  const { flow, at } = o;
  const previous = account.deploymentsOf(flow.id).sort((a, b) => parseDotnetTime(a.created) - parseDotnetTime(b.created));
  if (previous.some((d) => d.version === o.version)) return;
  const scope = previous[0] ? account.packages.get(previous[0].packageId) : undefined;
  const pkg = importedPackage(o.app, o.version, {
    now: at,
    machine: scope?.machineScope ?? true,
    user: scope?.userScope ?? false,
    latest: latestVersionOf(account, o.app) ?? o.version,
  });
  pkg.state = 'Completed';
  pkg.dueMs = null;
  pkg.downloadAvailable = true;
  pkg.outputFormats = ['IntuneWin', 'PSADT', 'SourceFiles'];
  account.addPackage(pkg);
  const d = newDeployment(flow, pkg.id, o.version, at);
  account.addDeployment(d);
  account.setStatus(d, 'Running', at);
  account.enterWave(d, 1, at, flow.waves);
  const alongside = (flow.flags & FLOW_FLAGS.runAlongsideCurrent) !== 0 && (flow.flags & FLOW_FLAGS.stopCurrentAndStartNew) === 0;
  if (!alongside) for (const p of previous) if (p.status === 'Running') account.setStatus(p, 'Stopped', at);
  const keep = flow.supersedenceHistoryCount ?? 0;
  for (const p of previous.slice(0, Math.max(0, previous.length - keep))) account.removeDeployment(p);
}

/** The next version of `v`: its last number plus one (`24.08` → `24.09`, `8.7.1` → `8.7.2`), keeping its width. */
export function nextVersion(v: string): string {
  const m = /^(.*?)(\d+)(\D*)$/.exec(v);
  if (!m) return `${v}.1`;
  const [, head = '', num = '0', tail = ''] = m;
  const bumped = String(Number(num) + 1).padStart(num.length, '0');
  return `${head}${bumped}${tail}`;
}

/**
 * `--release-every`: one release per tick of virtual time since the account first settled, the app
 * chosen by the seed and the tick (deterministic), its next version released at the tick.
 */
function tickReleases(account: Account, now: number): void {
  const state = account.releases;
  const apps = account.fixtures.apps;
  if (state.everyMs === undefined || state.everyMs <= 0 || apps.length === 0) return;
  state.originMs ??= now;
  while (state.originMs + (state.ticks + 1) * state.everyMs <= now) {
    state.ticks++;
    const at = state.originMs + state.ticks * state.everyMs;
    const app = apps[pick(account.fixtures.seed, state.ticks, apps.length)]!;
    let version = nextVersion(latestVersionOf(account, app) ?? '1.0');
    while (releaseProblem(account, app, version, at, at)) version = nextVersion(version);
    publishRelease(account, app, version, { releasedAtMs: at, nowMs: at, scheduled: true });
  }
}

function pick(seed: number, tick: number, n: number): number {
  let h = (seed * 2654435761 + tick * 40503) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x45d9f3b) >>> 0;
  h ^= h >>> 16;
  return (h >>> 0) % n;
}
