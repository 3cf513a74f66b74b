import type { Platform, ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import type { CompaniesService } from '../companies/index.js';
import { controlPlaneJobs } from './control-plane.jobs.js';
import { controlPlaneRoutes } from './control-plane.routes.js';
import { controlPlaneSchemas } from './control-plane.schema.js';
import { createControlPlaneService, type ControlPlaneService } from './control-plane.service.js';

export function controlPlaneModule(
  { db, clock }: Platform,
  needs: { companies: CompaniesService; companyChanged: (companyId: string) => void | Promise<void> },
): ModuleParts & { controlPlane: ControlPlaneService } {
  const controlPlane = createControlPlaneService({ db, ...needs });
  const jobs = controlPlaneJobs({ db, clock });
  return {
    controlPlane,
    schemas: controlPlaneSchemas,
    routes: controlPlaneRoutes(controlPlane) as AppRoute[],
    jobs: Object.values(jobs),
  };
}
