import { readFile } from 'node:fs/promises';
import type { DesiredModel } from '../manifests/model.js';
import type { Plan } from '../plan/types.js';
import { PLAN_VERSION } from '../plan/types.js';
import { UsageError } from './io.js';

export const SAVED_PLAN_FORMAT = 'packsync-plan/v1';

export interface SavedPlan {
  format: typeof SAVED_PLAN_FORMAT;
  path: string;
  plan: Plan;
  desired: DesiredModel;
}

/** Reads a saved plan, or returns null when the file is not one (then it is a manifest path). */
export async function readSavedPlan(file: string): Promise<SavedPlan | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return null;
  }
  if (!text.trimStart().startsWith('{')) return null;
  let data: Partial<SavedPlan>;
  try {
    data = JSON.parse(text) as Partial<SavedPlan>;
  } catch {
    return null;
  }
  if (data.format !== SAVED_PLAN_FORMAT) return null;
  if (data.plan?.version !== PLAN_VERSION || !data.desired) throw new UsageError(`${file}: saved plan of an unknown version`);
  return data as SavedPlan;
}
