/**
 * The action ops, spelled once. The planner writes them, the applier dispatches on them, and they
 * are part of the plan's JSON (load-bearing: a saved plan and `docs/reconcile.md` name them), so a
 * value here never changes. Code says `OP.skipWave`, never the string: a misspelt op does not compile.
 */
export const OP = {
  importPackage: 'import-package',
  createPackage: 'create-package',
  uploadContent: 'upload-content',
  waitPackage: 'wait-package',
  createFlow: 'create-flow',
  deleteFlow: 'delete-flow',
  addDeployment: 'add-deployment',
  start: 'start',
  stop: 'stop',
  skipWave: 'skip-wave',
  updateContent: 'update-content',
  deleteDeployment: 'delete-deployment',
  tenantUpload: 'tenant-upload',
  waitUpload: 'wait-upload',
  gate: 'gate',
  record: 'record',
  forget: 'forget',
} as const;

export type ActionOp = (typeof OP)[keyof typeof OP];

/** Every op, in the table's order. */
export const ACTION_OPS: readonly ActionOp[] = Object.values(OP);

/** Ops that only follow the service's background work to its end: they write nothing themselves. */
export function isWaitOp(op: ActionOp): boolean {
  return op === OP.waitPackage || op === OP.waitUpload;
}
