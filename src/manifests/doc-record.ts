import type { Kind } from './model.js';
import type { ParsedDocument } from './yaml-types.js';

/** A document whose kind is known, after schema validation. */
export interface DocRecord {
  doc: ParsedDocument;
  kind: Kind;
  /** `metadata.name` when it is a string. */
  name: string | undefined;
  data: Record<string, unknown>;
  /** The document passed its kind's schema. */
  valid: boolean;
  prefix: string;
}
