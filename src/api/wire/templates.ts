/** Script templates (PSADT configuration templates) that packages and flows refer to by id. */
import type { Timestamp, Uuid } from './scalars.js';

export interface ConfigurationTemplateViewModel {
  id: Uuid;
  created: Timestamp;
  updated: Timestamp;
  name: string;
  enabled: boolean;
  organizationId: Uuid | null;
  organizationName: string | null;
  shared: boolean;
  flags: number;
  scriptSourceId: Uuid;
  scriptSource: { id: Uuid; name: string };
  hasBannerImage: boolean;
  hasLogoImage: boolean;
}

export interface InstallationScriptViewModel {
  flags: number;
  companyName: string;
  logFileDirectory: string;
  psadtInstallationProgress: { show: boolean; statusMessage: string };
}

export interface ConfigurationTemplateDetailsViewModel extends ConfigurationTemplateViewModel {
  scriptTemplate: InstallationScriptViewModel;
}
