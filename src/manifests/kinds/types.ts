/**
 * What one manifest kind is, in one place (docs/architecture.md, "Manifest kinds"). Every layer asks
 * the registry in `index.ts` instead of keeping its own table or `if … else` chain over kinds, so a
 * new kind is a descriptor file, a schema and one registry line.
 */
import type { AnySchemaObject } from 'ajv/dist/2020.js';
import type { DocRecord } from '../doc-record.js';
import type { GeneratedDocument } from '../generated-document.js';
import type { AuthoredKind, BaselineSummary, DesiredModel, ObjectKind, Problem } from '../model.js';

/** An object kind: it is found live, planned, applied and kept in the state under `Kind/name`. */
export interface ObjectKindSpec<K extends ObjectKind = ObjectKind> {
  kind: K;
  /** `Packages`: how messages name several. */
  plural: string;
  /** Its JSON Schema, as shipped in `schemas/v1/`. */
  schema: AnySchemaObject;
  /** The `DesiredModel` list its manifests go to. */
  desired: keyof Omit<DesiredModel, 'root' | 'baselines'>;
  /**
   * Spec fields that name another manifest by `metadata.name` (`flow` → `Flow`): the loader checks
   * they resolve, `state mv` rewrites them in the state entries that name a renamed key.
   */
  references: Readonly<Record<string, ObjectKind>>;
  /**
   * Fields the planner checks against the live state (catalog apps, templates, tenants, waves): the
   * loader keeps their positions so a plan error names FILE:LINE:COL (manifests/positions.ts).
   */
  liveFields: readonly string[];
  /** How the planner finds its live object, in words (docs and messages). */
  foundLiveBy: string;
  /** Order in which the planner and export visit kinds (lower first: referenced kinds before referrers). */
  order: number;
}

/**
 * An authored kind: written in git, never planned itself. `expand` runs before validation and turns
 * one valid document into object-kind documents (manifests/expand.ts), which are then validated,
 * planned, applied, moved and pruned like hand-written ones.
 */
export interface AuthoredKindSpec<K extends AuthoredKind = AuthoredKind> {
  kind: K;
  plural: string;
  schema: AnySchemaObject;
  /** The object kinds it expands into, for messages ("expands into Packages, Flows, Deployments"). */
  expandsInto: readonly ObjectKind[];
  /** Its generated documents (checked like parsed ones afterwards) and its own problems. */
  expand: (r: AuthoredRecord, ctx: ExpandContext) => Expansion;
}

/** A valid document of an authored kind, as the schema check leaves it. */
export type AuthoredRecord = Omit<DocRecord, 'kind'> & { kind: AuthoredKind };

export interface Expansion {
  /** Generated object documents, in a stable order, each to be checked like a parsed one. */
  documents: GeneratedDocument[];
  problems: Problem[];
  baselines: BaselineSummary[];
}

export interface ExpandContext {
  /** The object records read from files: a generated key one of them has is an error at both. */
  handWritten: readonly DocRecord[];
  /** The time exceptions expire against (the service's clock when the plan has it). */
  now: Date;
}
