/** Packages: create, read, and the content upload's file list. */
import type { PackageState, SourceType } from './codes.js';
import type { Timestamp, Uuid } from './scalars.js';

export interface MemDetectionRule {
  type: 'file' | 'registry' | 'msi' | 'script';
  path?: string;
  fileName?: string;
  is32Bit?: boolean;
  /** Intune operator number (see DETECTION_OPERATORS); names accepted on input. */
  operator?: number;
  targetVersion?: string;
  keyPath?: string;
  valueName?: string;
  productCode?: string;
  scriptContent?: string;
  description?: string;
}

export interface V1PackageCreateViewModel {
  name: string;
  sourceType: SourceType;
  publisher?: string;
  version?: string;
  installCommand?: string;
  uninstallCommand?: string;
  userContext?: boolean;
  runAnalysis?: boolean;
  scriptTemplateId?: Uuid;
  logoData?: string;
  detectionRules?: MemDetectionRule[];
}

export interface ImportInfo {
  app: { publisher: string; name: string; description: string };
  program: { installCommand: string; uninstallCommand: string };
}

export interface V1PackageViewModel {
  id: Uuid;
  appId: Uuid | null;
  created: Timestamp;
  productName: string;
  manufacturer: string;
  productVersion: string;
  state: PackageState;
  fullProductName: string;
  fileName: string;
  size: number;
  downloadAvailable: boolean;
  newVersionAvailable: boolean;
  latestVersion: string | null;
  source: number;
  isCustom: boolean;
  userScope: boolean;
  machineScope: boolean;
  importInfo: ImportInfo | null;
}

export interface V1PackageIssueViewModel {
  code: string;
  message: string;
  severity: 'Info' | 'Warning' | 'Error';
}

export interface UploadFileInfoViewModel {
  /** Path relative to the content root, forward slashes. */
  fileName: string;
  fileSize: number;
}

export interface UploadPackageContentFinalizeViewModel {
  files: UploadFileInfoViewModel[];
}

export interface V1PackageDetailsViewModel extends V1PackageViewModel {
  errorDetails: string | null;
  issues: V1PackageIssueViewModel[];
  outputFormats: string[];
  sourceType: SourceType | null;
  installCommand: string | null;
  uninstallCommand: string | null;
  scriptTemplateId: Uuid | null;
  detectionRules: MemDetectionRule[];
  files: UploadFileInfoViewModel[];
}
