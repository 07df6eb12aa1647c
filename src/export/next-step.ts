/**
 * The `Next:` line an export ends with: the path to validate and adopt. plan and apply read only
 * the folder they are given, with it as the root: content paths (relative to the repository root)
 * and references to owned objects (defined elsewhere in the repository) resolve only when the
 * whole repository is given. When the manifests of the owned objects referred to lie outside even
 * that (an export into a folder beside the managed one, no repository around both), no path
 * validates: the line says where they are and that the files belong with them.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { isInside } from '../api/content-files.js';
import type { Inventory } from '../state/inventory-types.js';
import type { ExportedFiles } from './export-manifests.js';

export interface NextStepInput {
  out: Pick<ExportedFiles, 'contentDirs' | 'refersToOwned' | 'ownedRefs'>;
  /** `--out`, absolute, and its repository root. */
  dir: string;
  root: string;
  inventory: Inventory;
  /** How a path is named to the operator (relative to the working directory). */
  shown: (abs: string) => string;
}

export async function nextStep(i: NextStepInput): Promise<string> {
  const whole = i.root !== i.dir && (i.out.contentDirs.length > 0 || i.out.refersToOwned);
  const target = whole ? i.root : i.dir;
  const outside = await definedOutside(i, target);
  if (outside.length > 0) {
    const where = outside.map((o) => `${o.key} in ${o.file}`).join(', ');
    return `Next: ${i.shown(i.dir)} refers to objects packsync owns whose manifests are outside ${i.shown(target)} (${where}): move the exported files into the repository that defines them, then run packsync validate and packsync apply --adopt on that repository.`;
  }
  const next = i.shown(target);
  return `Next: packsync validate ${next} && packsync apply ${next} --adopt`;
}

/**
 * The owned objects referred to whose manifest file, as the inventory recorded it (absolute, or
 * relative to the git root it was applied from), is not under `target`. An entry without a file
 * is not named: where it is defined is not known.
 */
async function definedOutside(i: NextStepInput, target: string): Promise<{ key: string; file: string }[]> {
  const out: { key: string; file: string }[] = [];
  for (const key of i.out.ownedRefs) {
    const file = i.inventory.objects[key]?.file;
    if (file === undefined) continue;
    const inside = isAbsolute(file) ? isInside(target, file) : await exists(join(target, file));
    if (!inside) out.push({ key, file: isAbsolute(file) ? i.shown(file) : file });
  }
  return out;
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}
