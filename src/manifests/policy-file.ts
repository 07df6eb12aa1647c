/**
 * The rollout policy file (`--policy FILE`, docs/policy.md). It belongs to the operator, not to the
 * repository it governs (like `--trusted-keys`: trust never comes from what is being checked), so it
 * is read from the path given, never from the manifests. Every problem is reported at once, with
 * FILE:LINE:COL.
 *
 *   approvals:
 *     required: 2            # distinct trusted signers
 *     when:
 *       tenantsAbove: 10     # only for changes that reach more tenants than this (default 0: any that reaches a tenant)
 */
import { readFile } from 'node:fs/promises';
import type { Problem } from './model.js';
import { parseYamlFile } from './yaml-source.js';
import type { Segment } from './yaml-types.js';

export interface RolloutPolicy {
  approvals?: { required: number; tenantsAbove: number };
}

export type PolicyLoad = { ok: true; policy: RolloutPolicy } | { ok: false; problems: Problem[] };

const TOP = new Set(['apiVersion', 'kind', 'approvals']);

export async function loadPolicyFile(path: string, shown: string = path): Promise<PolicyLoad> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    return { ok: false, problems: [problemAt(shown, { line: 1, column: 1 }, '', `cannot read the policy file: ${why}`)] };
  }
  return parsePolicy(shown, text);
}

export function parsePolicy(file: string, text: string): PolicyLoad {
  const parsed = parseYamlFile(file, text);
  if (parsed.problems.length > 0) return { ok: false, problems: parsed.problems };
  const doc = parsed.documents[0];
  if (!doc || parsed.documents.length > 1 || !isMap(doc.value))
    return {
      ok: false,
      problems: [problemAt(file, { line: 1, column: 1 }, '', 'a policy file is one YAML mapping, e.g. `approvals: { required: 2 }`')],
    };
  const problems: Problem[] = [];
  const say = (at: Segment[], message: string, mode: 'key' | 'value' = 'value'): void => {
    problems.push(problemAt(file, doc.locate(at, mode), `/${at.join('/')}`, message));
  };
  const top = doc.value;
  for (const k of Object.keys(top)) if (!TOP.has(k)) say([k], `unknown field "${k}" (a policy file has: approvals)`, 'key');
  if (top.apiVersion !== undefined && top.apiVersion !== 'packsync.dev/v1') say(['apiVersion'], 'apiVersion must be packsync.dev/v1');
  if (top.kind !== undefined && top.kind !== 'Policy') say(['kind'], 'kind must be Policy');
  const policy: RolloutPolicy = {};
  if (top.approvals !== undefined) {
    const a = approvals(top.approvals, say);
    if (a) policy.approvals = a;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, policy };
}

function approvals(value: unknown, say: (at: Segment[], message: string, mode?: 'key' | 'value') => void): RolloutPolicy['approvals'] {
  if (!isMap(value)) {
    say(['approvals'], 'approvals must be a mapping: { required: N, when: { tenantsAbove: M } }');
    return undefined;
  }
  for (const k of Object.keys(value))
    if (k !== 'required' && k !== 'when') say(['approvals', k], `unknown field "${k}" (approvals has: required, when)`, 'key');
  const required = value.required;
  const okRequired = Number.isInteger(required) && (required as number) >= 1 && (required as number) <= 20;
  if (!okRequired) say(['approvals', 'required'], 'approvals.required must be a whole number of distinct signers, 1 to 20');
  let tenantsAbove = 0;
  if (value.when !== undefined) {
    if (!isMap(value.when)) say(['approvals', 'when'], 'approvals.when must be a mapping: { tenantsAbove: M }');
    else {
      for (const k of Object.keys(value.when))
        if (k !== 'tenantsAbove') say(['approvals', 'when', k], `unknown field "${k}" (when has: tenantsAbove)`, 'key');
      // Absent (`when: {}`, or only a misspelt key, told once above) is the default, 0.
      const t = value.when.tenantsAbove;
      if (t !== undefined && (!Number.isInteger(t) || (t as number) < 0))
        say(['approvals', 'when', 'tenantsAbove'], 'approvals.when.tenantsAbove must be a whole number, 0 or more');
      else if (t !== undefined) tenantsAbove = t as number;
    }
  }
  return okRequired ? { required: required as number, tenantsAbove } : undefined;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function problemAt(file: string, p: { line: number; column: number }, pointer: string, message: string): Problem {
  return { file, line: p.line, column: p.column, pointer, rule: 'policy.invalid', message, severity: 'error' };
}
