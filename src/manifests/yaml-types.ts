/** The shapes of a parsed manifest document with positions (docs/architecture.md, "manifests"), apart from the parser so position helpers can use them without importing it. */
export type Segment = string | number;

export interface Position {
  line: number;
  column: number;
}

/** Positions by `locatedKey`: a Map, or a cached document's compact form (manifests/cached-load.ts). */
export interface Located {
  get(key: string): Position | undefined;
}

/** A path located while parsing: its segments, and its key in `ParsedDocument.located` (`locatedKey`). */
export interface PrelocatedPath {
  segments: readonly Segment[];
  key: string;
}

/** Where to point for a path: at the value, at the key holding it, or at the mapping that owns it. */
export type LocateMode = 'value' | 'key' | 'container';

export interface ParsedDocument {
  /** Display path of the file (relative to the loaded root). */
  file: string;
  /** 0-based index of the document in its file. */
  index: number;
  /** The document as plain data; undefined when YAML errors made it unusable. */
  value: unknown;
  /** Position of the document's first node. */
  start: Position;
  /** True when the YAML parser reported no error for this document. */
  ok: boolean;
  /** Positions located while parsing (`ParseOptions.prelocate`), by `locatedKey`. */
  located: Located;
  locate: (segments: readonly Segment[], mode: LocateMode) => Position;
  /** The source text of the scalar at `segments` (e.g. `24.10` where the data says 24.1). */
  sourceText: (segments: readonly Segment[]) => string | undefined;
}
