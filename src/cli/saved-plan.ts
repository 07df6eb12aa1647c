import { readFile, stat } from 'node:fs/promises';
import type { DesiredModel } from '../manifests/model.js';
import type { Plan } from '../plan/types.js';
import { PLAN_VERSION } from '../plan/types.js';
import { errorMessage } from '../util/errors.js';
import { UsageError } from './io.js';

export const SAVED_PLAN_FORMAT = 'packsync-plan/v1';

export interface SavedPlan {
  format: typeof SAVED_PLAN_FORMAT;
  path: string;
  plan: Plan;
  desired: DesiredModel;
}

const YAML_NAME = /\.ya?ml$/i;

/**
 * Reads a saved plan, or returns null when `file` is a manifest path (a directory, a YAML file, a
 * manifest written as JSON). What is a saved plan is told by its content, not by whether it parses:
 * a JSON object with `format`, `plan` or `desired`, or any other file that is not named *.yaml /
 * *.yml. A plan of another format, or a damaged one, is an error that says so, rather than a
 * manifest that lacks apiVersion and kind. `shown` names the file in messages.
 */
export async function readSavedPlan(file: string, shown = file): Promise<SavedPlan | null> {
  const st = await stat(file).catch(() => undefined);
  if (!st?.isFile()) return null;
  // A byte order mark (some Windows editors add one) is not part of the JSON.
  const text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  const looksJson = text.trimStart().startsWith('{');
  let data: unknown;
  let parseError: string | undefined;
  if (looksJson) {
    try {
      data = JSON.parse(text);
    } catch (e) {
      parseError = errorMessage(e);
    }
  }
  const obj = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  const claimsPlan = obj !== undefined && ('format' in obj || 'plan' in obj || 'desired' in obj);
  const manifest = obj !== undefined && !claimsPlan && ('apiVersion' in obj || 'kind' in obj);
  if (!claimsPlan && (manifest || YAML_NAME.test(file))) return null;

  const invalid = (why: string): UsageError => new UsageError(`${shown} is not a valid saved plan: ${why}`);
  if (!obj) throw invalid(parseError !== undefined ? `its JSON does not parse (${parseError})` : 'it is not a JSON object');
  const format = obj.format;
  if (format !== SAVED_PLAN_FORMAT) {
    if (typeof format === 'string' && format.startsWith('packsync-plan/'))
      throw new UsageError(`${shown}: unsupported plan format ${format} (this packsync writes ${SAVED_PLAN_FORMAT})`);
    throw invalid(
      format === undefined ? 'it has no "format" field' : `its "format" is ${JSON.stringify(format)}, not "${SAVED_PLAN_FORMAT}"`,
    );
  }
  const plan = obj.plan as Partial<Plan> | undefined;
  if (typeof plan !== 'object' || plan === null) throw invalid('it has no "plan"');
  if (plan.version !== PLAN_VERSION)
    throw invalid(`its plan version is ${JSON.stringify(plan.version)}, not ${JSON.stringify(PLAN_VERSION)}`);
  if (!Array.isArray(plan.objects) || !Array.isArray(plan.actions) || typeof plan.digests !== 'object' || plan.digests === null)
    throw invalid('its plan lacks objects, actions or digests');
  const desired = obj.desired as Partial<DesiredModel> | undefined;
  if (typeof desired !== 'object' || desired === null || typeof desired.root !== 'string') throw invalid('it has no "desired" model');
  return obj as unknown as SavedPlan;
}
