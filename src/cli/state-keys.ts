/**
 * State keys as people type them on the command line (`Kind/name`, superseded entries
 * `Kind/name#liveId`). A typo must never reach the inventory: every argument is checked, and an
 * unknown key names the closest one, because a `state rm` of the wrong key loses ownership silently.
 */
import type { Inventory } from '../state/inventory-types.js';
import { OBJECT_KINDS } from '../manifests/model.js';
import { isAuthoredKind } from '../manifests/kinds/index.js';
import type { Kind } from '../manifests/model.js';
import { didYouMean, suggestion } from '../manifests/suggest.js';
import { UsageError } from './io.js';
import { PacksyncError } from '../util/errors.js';

/** The `metadata.name` pattern of every schema in `schemas/v1`: a new key must be writable in a manifest. */
const MANIFEST_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export interface StateKey {
  key: string;
  kind: Kind;
  /** The part after `Kind/` (for a superseded entry, `name#liveId`). */
  name: string;
  /** True for `Kind/name#liveId`, an entry kept for a live object a newer one replaced. */
  superseded: boolean;
}

/** A key that is well formed but names nothing in the state, or names something that must not exist. */
export class StateKeyError extends PacksyncError<'STATE_KEY'> {
  constructor(message: string) {
    super('STATE_KEY', message);
  }
}

/** Parses `arg` (shown in errors as `label`); throws a usage error naming the argument. */
export function parseStateKey(arg: string, label: string): StateKey {
  const slash = arg.indexOf('/');
  const kindText = slash < 0 ? arg : arg.slice(0, slash);
  const name = slash < 0 ? '' : arg.slice(slash + 1);
  const kinds = `keys are Kind/name with Kind one of ${OBJECT_KINDS.join(', ')}`;
  if (slash < 0 || name === '') throw new UsageError(`${label} "${arg}" is not a state key: ${kinds}`);
  if (isAuthoredKind(kindText)) {
    throw new UsageError(
      `${label} "${arg}" is not a state key: a ${kindText} is never in the state, the objects it expands into are (see \`packsync render\`); ${kinds}`,
    );
  }
  const kind = OBJECT_KINDS.find((k) => k === kindText);
  if (!kind) {
    const close = didYouMean(kindText, OBJECT_KINDS);
    const hint = close === undefined ? '' : ` (did you mean "${close}/${name}"?)`;
    throw new UsageError(`${label} "${arg}" is not a state key: "${kindText}" is not a kind${hint}; ${kinds}`);
  }
  return { key: `${kind}/${name}`, kind, name, superseded: name.includes('#') };
}

/** A key a manifest could own: not superseded, and a valid `metadata.name`. */
export function checkManifestName(k: StateKey, label: string): void {
  if (k.superseded) {
    throw new UsageError(
      `${label} "${k.key}" is a superseded entry: it moves with its main key (${k.key.slice(0, k.key.indexOf('#'))}); forget it with \`packsync state rm\``,
    );
  }
  if (!MANIFEST_NAME.test(k.name)) {
    throw new UsageError(
      `${label} "${k.key}": "${k.name}" is not a valid metadata.name (lower-case letters, digits, '-' and '.', starting and ending with a letter or digit)`,
    );
  }
}

/** Every key the state knows: entries and pending intents. */
export function knownKeys(inv: Inventory): Set<string> {
  return new Set([...Object.keys(inv.objects), ...Object.keys(inv.intents)]);
}

/**
 * Throws when `k` names neither an entry nor a pending intent, with a did-you-mean when one is
 * close: a `StateKeyError` (`STATE_KEY`), or what `fail` makes of the message for a command whose
 * documented code differs (`promote`/`resume`: `GATE_NO_DEPLOYMENT`).
 */
export function requireKnown(
  inv: Inventory,
  k: StateKey,
  stateDir: string,
  fail: (message: string) => Error = (message) => new StateKeyError(message),
): void {
  const known = knownKeys(inv);
  if (known.has(k.key)) return;
  // Named as a person says it (`Deployment "zoomm"`), not by the argument's placeholder (`KEY "…"`
  // read as shouting); a superseded entry by its whole key, whose `#id` is part of what was typed.
  const subject = k.superseded ? `the superseded entry "${k.key}"` : `${k.kind} "${k.name}"`;
  if (known.size === 0) throw fail(`${subject} is not in the state: the state in ${stateDir} is empty`);
  throw fail(`${subject} is not in the state in ${stateDir}${suggestion(k.key, known)}; \`packsync state list\` shows every key`);
}
