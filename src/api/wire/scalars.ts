/** Scalar aliases every resource group uses; strings on the wire, named for what they carry. */

/** A GUID in the canonical 8-4-4-4-12 form. */
export type Uuid = string;
/** ISO 8601 with offset, .NET `DateTimeOffset` style: `2026-02-18T21:12:10.3492918+00:00`. */
export type Timestamp = string;
