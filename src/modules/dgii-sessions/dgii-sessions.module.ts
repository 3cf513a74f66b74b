import type { Platform, ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import type { CompaniesService } from '../companies/index.js';
import { dgiiSessionRoutes } from './dgii-sessions.routes.js';
import { createDgiiSessionsService, type DgiiSessionsService } from './dgii-sessions.service.js';

export function dgiiSessionsModule(
  { db, clock, environment, masterKey, dgii }: Platform,
  { companies }: { companies: CompaniesService },
): ModuleParts & { dgiiSessions: DgiiSessionsService } {
  const dgiiSessions = createDgiiSessionsService({ db, clock, environment, masterKey, companies, dgii });
  return { dgiiSessions, routes: dgiiSessionRoutes(dgiiSessions) as AppRoute[] };
}
