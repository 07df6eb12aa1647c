/**
 * One live object, one manifest (docs/reconcile.md): two documents of one kind that the planner would
 * match to the same live object would fight over it (and an `--adopt` of the second used to hand
 * one live object to two keys, which a later `--prune` then deleted from under the first). Such a
 * pair is an error at the second document, naming the first. Only identities the manifests alone
 * decide are checked here; where the live state decides (a catalog app named once by name and
 * once by id, "latest" beside an explicit version), the planner refuses to give a live object
 * another key already owns.
 */
import type { Kind } from './model.js';
import { valueAt } from './paths.js';
import type { DocRecord } from './doc-record.js';
import type { Segment } from './yaml-types.js';

export interface Identity {
  /** Equal keys of one kind: the same live object. */
  key: string;
  /** Where the problem points, in the second document and in the first. */
  at: Segment[];
  rule: string;
  /** The message's tail after "KIND "first" (FILE:LINE:COL) ". */
  what: string;
}

type Report = (r: DocRecord, at: Segment[], rule: string, message: string) => void;

function str(data: unknown, segments: readonly Segment[]): string | undefined {
  const v = valueAt(data, segments);
  return typeof v === 'string' ? v : undefined;
}

function flowIdentity(r: DocRecord): Identity | undefined {
  // The planner finds a live flow by its display name: spec.name, or metadata.name without it.
  const display = str(r.data, ['spec', 'name']) ?? r.name;
  if (display === undefined) return undefined;
  const at: Segment[] = str(r.data, ['spec', 'name']) !== undefined ? ['spec', 'name'] : ['metadata', 'name'];
  return {
    key: display,
    at,
    rule: 'flow.duplicate',
    what: `already describes the live flow named "${display}"; a flow is found live by its name, so two manifests would fight over one flow: give one of them another spec.name`,
  };
}

function packageIdentity(r: DocRecord): Identity | undefined {
  return packageIdentityOf(r.data);
}

/** The live identity of a Package's data (`packsync update` checks a move against it too, update/run.ts). */
export function packageIdentityOf(data: unknown): Identity | undefined {
  const custom = ['spec', 'custom'];
  const name = str(data, [...custom, 'name']);
  const version = str(data, [...custom, 'version']);
  if (name !== undefined && version !== undefined) {
    return {
      key: `custom\u0000${name}\u0000${version}`,
      at: [...custom, 'version'],
      rule: 'package.duplicate',
      what: `already describes custom package "${name}" version ${version}; a custom package is found live by name and version, so two manifests would fight over one live package`,
    };
  }
  const c = ['spec', 'catalog'];
  const app = str(data, [...c, 'app']);
  if (app === undefined) return undefined;
  const v = str(data, [...c, 'version']);
  const vid = str(data, [...c, 'versionId']);
  const scope = str(data, [...c, 'scope']) ?? 'machine';
  // App names and version ids resolve case-insensitively; a version is matched as written.
  const which = v !== undefined ? `v\u0000${v}` : vid !== undefined ? `id\u0000${vid.toLowerCase()}` : 'latest';
  const words = v !== undefined ? `version ${v}` : vid !== undefined ? `version id ${vid}` : 'the latest version';
  return {
    key: `catalog\u0000${app.toLowerCase()}\u0000${which}\u0000${scope}`,
    at: [...c, v !== undefined ? 'version' : vid !== undefined ? 'versionId' : 'app'],
    rule: 'package.duplicate',
    what: `already imports catalog app "${app}" ${words} (${scope} scope); a catalog package is found live by app, version and scope, so two manifests would fight over one live package`,
  };
}

function uploadIdentity(r: DocRecord): Identity | undefined {
  const tenant = str(r.data, ['spec', 'tenant']);
  const pkg = str(r.data, ['spec', 'package']);
  if (tenant === undefined || pkg === undefined) return undefined;
  return {
    key: `${tenant.toLowerCase()}\u0000${pkg}`,
    at: ['spec', 'package'],
    rule: 'tenant-upload.duplicate',
    what: `already uploads package "${pkg}" to tenant "${tenant}"; an upload is found live by tenant and package, so two manifests would fight over one upload`,
  };
}

const IDENTITY: Partial<Record<Kind, (r: DocRecord) => Identity | undefined>> = {
  Flow: flowIdentity,
  Package: packageIdentity,
  TenantUpload: uploadIdentity,
};

/**
 * Reports the second of two schema-valid documents of one kind with one live identity. `unique`
 * says a document is the first of its name (a repeated name is reported once, as such).
 */
export function checkIdentities(records: readonly DocRecord[], unique: (r: DocRecord) => boolean, report: Report): void {
  const seen = new Map<string, DocRecord>();
  for (const r of records) {
    const identify = IDENTITY[r.kind];
    if (!identify || !r.valid || !unique(r)) continue;
    const id = identify(r);
    if (!id) continue;
    const slot = `${r.kind}\u0000${id.key}`;
    const first = seen.get(slot);
    if (!first) {
      seen.set(slot, r);
      continue;
    }
    const firstAt = identify(first)?.at ?? id.at;
    const p = first.doc.locate(firstAt, 'value');
    report(r, id.at, id.rule, `${r.kind} "${first.name ?? '?'}" (${first.doc.file}:${p.line}:${p.column}) ${id.what}`);
  }
}
