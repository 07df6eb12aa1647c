/**
 * What git says about a flow against what a live flow is: a flow packsync takes over (adopted, or
 * found by an interrupted create's intent) is recorded as it is live, never as git's spec, so a
 * live flow that differs from git is planned (replaced) rather than recorded as in sync.
 */
import { FLOW_FLAGS, INSTALLER_SCOPE } from '../../api/wire/index.js';
import type { V1FlowCreateViewModel } from '../../api/wire/index.js';
import type { LiveFlow } from '../../live/types.js';

/** Spec field (as flow specs store it), create-body field and live field, for the fields a live flow shows. */
const FIELDS = [
  ['app', 'appId'],
  ['patchGroup', 'patchGroupId'],
  ['scope', 'scope'],
  ['flags', 'flags'],
  ['supersedenceHistoryCount', 'supersedenceHistoryCount'],
  ['scriptTemplate', 'templateId'],
] as const;

/**
 * The fields git sets that the live flow has otherwise, as spec field, git's value, live value.
 * A field git leaves out is the service's default: whatever the live flow has is not a difference.
 */
export function liveFlowDiff(body: V1FlowCreateViewModel, live: LiveFlow): { field: string; from: unknown; to: unknown }[] {
  const out: { field: string; from: unknown; to: unknown }[] = [];
  for (const [field, wire] of FIELDS) {
    const want = body[wire];
    if (want === undefined) continue;
    const have = live[wire];
    if (have !== want) out.push({ field, from: have, to: want });
  }
  return out;
}

/** Git's spec with the live flow's values in place of the fields that differ: what the live flow is. */
export function liveSpec(spec: Record<string, unknown>, diff: readonly { field: string; from: unknown }[]): Record<string, unknown> {
  const out = { ...spec };
  for (const d of diff) out[d.field] = d.from;
  return out;
}

const SCOPE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(INSTALLER_SCOPE).map(([k, v]) => [v, k]));

/** Flow specs store API numbers (they are what the service compares); people read manifest words. */
export function flowFieldsInWords(
  fields: { field: string; from: unknown; to: unknown }[],
): { field: string; from: unknown; to: unknown }[] {
  return fields.map((f) => {
    if (f.field === 'scope') return { field: f.field, from: scopeWord(f.from), to: scopeWord(f.to) };
    if (f.field === 'flags') return { field: f.field, from: flagNames(f.from), to: flagNames(f.to) };
    return f;
  });
}

function scopeWord(v: unknown): unknown {
  return typeof v === 'number' ? (SCOPE_NAMES[v] ?? v) : v;
}

function flagNames(v: unknown): string[] {
  const mask = typeof v === 'number' ? v : 0;
  return Object.entries(FLOW_FLAGS)
    .filter(([, bit]) => (mask & bit) !== 0)
    .map(([n]) => n);
}
