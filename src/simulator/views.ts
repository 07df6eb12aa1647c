/**
 * The public (wire) views of the simulator's records: the internal bookkeeping fields (due times,
 * upload progress, planned failures) stripped, and a list's shorter package view.
 */
import type { V1DeploymentViewModel, V1FlowViewModel, V1PackageDetailsViewModel, V1TaskViewModel } from '../api/wire/index.js';
import type { DeploymentRec, FlowRec, PackageRec, TaskRec } from './account.js';

export function packageView(p: PackageRec): V1PackageDetailsViewModel {
  const { createdMs: _c, dueMs: _d, uploads: _u, failure: _f, ...view } = p;
  return view;
}

export function listPackageView(
  p: PackageRec,
): Omit<
  V1PackageDetailsViewModel,
  | 'errorDetails'
  | 'issues'
  | 'outputFormats'
  | 'sourceType'
  | 'installCommand'
  | 'uninstallCommand'
  | 'scriptTemplateId'
  | 'detectionRules'
  | 'files'
> {
  const {
    createdMs: _c,
    dueMs: _d,
    uploads: _u,
    failure: _fl,
    errorDetails: _e,
    issues: _i,
    outputFormats: _o,
    sourceType: _s,
    installCommand: _ic,
    uninstallCommand: _uc,
    scriptTemplateId: _t,
    detectionRules: _r,
    files: _f,
    ...view
  } = p;
  return view;
}

export function deploymentView(d: DeploymentRec): V1DeploymentViewModel {
  const { waveStartedMs: _w, contentDueMs: _c, refreshedAt: _r, runs: _runs, waveEnteredMs: _e, ...view } = d;
  return view;
}

export function taskView(t: TaskRec): V1TaskViewModel {
  const { dueMs: _d, failure: _f, ...view } = t;
  return view;
}

export function flowView(f: FlowRec, deploymentCount: number): V1FlowViewModel {
  const { waves: _w, ...view } = f;
  return { ...view, deploymentCount };
}
