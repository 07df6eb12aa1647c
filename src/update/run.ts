/**
 * `packsync update`'s decisions (docs/manifests.md, "Version policy"): for each catalog Package with an
 * `update` policy, the version to move to. Reads the catalog once (one list read, one detail read per
 * followed app) and the service's clock; writes nothing.
 */
import type { PacksyncApi } from '../api/operations.js';
import type { V1AppViewModel } from '../api/wire/index.js';
import { loadManifests } from '../manifests/load.js';
import type { PackageManifest, Problem } from '../manifests/model.js';
import { parseDuration } from '../manifests/promotion-values.js';
import { chooseVersion } from './versions.js';
import type { CatalogVersion } from './versions.js';

export interface UpdateChange {
  /** `Package/seven-zip`. */
  key: string;
  name: string;
  /** The manifest file, relative to the path given, and absolute. */
  file: string;
  absFile: string;
  app: string;
  from: string;
  to: string;
  /** Release time of the new version (ISO). */
  releasedAt: string;
  /** The policy's group, or the package's name. */
  group: string;
  grouped: boolean;
}

export interface UpdatePlan {
  changes: UpdateChange[];
  problems: Problem[];
  /** Catalog reads made: one list plus one per followed app. */
  reads: number;
}

const followed = (m: PackageManifest): boolean => m.spec.catalog?.update !== undefined && typeof m.spec.catalog.version === 'string';

export async function planUpdates(path: string, root: string, api: PacksyncApi): Promise<UpdatePlan> {
  const loaded = await loadManifests(path);
  if (!loaded.desired) return { changes: [], problems: loaded.problems, reads: 0 };
  const errors = loaded.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) return { changes: [], problems: loaded.problems, reads: 0 };
  const packages = loaded.desired.packages.filter(followed);
  if (packages.length === 0) return { changes: [], problems: [], reads: 0 };
  const catalog = (await api.searchApps({ disablePaging: true })).items;
  let reads = 1;
  const versionsByApp = new Map<string, CatalogVersion[]>();
  const problems: Problem[] = [];
  const changes: UpdateChange[] = [];
  for (const m of packages) {
    const c = m.spec.catalog!;
    const app = findApp(catalog, c.app);
    if (!app) {
      problems.push(problemAt(m, 'update.unknown-app', `catalog app "${c.app}" was not found`));
      continue;
    }
    let versions = versionsByApp.get(app.id);
    if (!versions) {
      versions = (await api.getApp(app.id)).versions.map((v) => ({
        version: v.version,
        releasedMs: Date.parse(v.createdDate.replace(/(\.\d{3})\d+/, '$1')),
      }));
      versionsByApp.set(app.id, versions);
      reads++;
    }
    const now = api.serviceTime?.() ?? new Date();
    const policy = c.update!;
    const choice = chooseVersion(c.version!, versions, policy, {
      nowMs: now.getTime(),
      minAgeMs: policy.minAge ? parseDuration(policy.minAge) : 0,
    });
    for (const s of choice.unknownSkips)
      problems.push(problemAt(m, 'update.unknown-skip', `skip "${s}" is not a version of ${app.name}`, 'warning'));
    if (choice.noneOnTrack) {
      problems.push(
        problemAt(
          m,
          'update.track',
          `track "${policy.track ?? 'latest'}" matches no version of ${app.name}; there are ${choice.noneOnTrack.join(', ')}`,
        ),
      );
      continue;
    }
    if (!choice.next) continue;
    changes.push({
      key: `Package/${m.metadata.name}`,
      name: m.metadata.name,
      file: m.source.file,
      absFile: resolveIn(root, m.source.file),
      app: app.name,
      from: c.version!,
      to: choice.next.version,
      releasedAt: new Date(choice.next.releasedMs).toISOString(),
      group: policy.group ?? m.metadata.name,
      grouped: policy.group !== undefined,
    });
  }
  return { changes, problems, reads };
}

function findApp(catalog: readonly V1AppViewModel[], nameOrId: string): V1AppViewModel | undefined {
  const key = nameOrId.toLowerCase();
  return catalog.find((a) => a.id.toLowerCase() === key) ?? catalog.find((a) => a.name.toLowerCase() === key);
}

function problemAt(m: PackageManifest, rule: string, message: string, severity: Problem['severity'] = 'error'): Problem {
  return { file: m.source.file, line: m.source.line, column: m.source.column, pointer: '/spec/catalog/update', rule, message, severity };
}

function resolveIn(root: string, file: string): string {
  return file.startsWith('/') ? file : `${root.replace(/\/$/, '')}/${file}`;
}
