// Every group of DGII routes the sandbox serves, in one list.
import { counterpartRoutes } from './counterpart/counterpart-routes.js';
import type { SandboxApp, SandboxContext } from './http/context.js';
import { annulmentRoutes } from './services/annulment.js';
import { authenticationRoutes } from './services/authentication.js';
import { commercialApprovalRoutes } from './services/commercial-approval.js';
import { directoryRoutes } from './services/directory.js';
import { receptionRoutes } from './services/reception.js';
import { resultRoutes } from './services/results.js';
import { rfceRoutes } from './services/rfce.js';
import { serviceStatusRoutes } from './services/service-status.js';
import { timbreRoutes } from './services/timbre.js';

export const sandboxRouteGroups: readonly ((app: SandboxApp, context: SandboxContext) => void)[] = [
  authenticationRoutes,
  receptionRoutes,
  resultRoutes,
  rfceRoutes,
  annulmentRoutes,
  commercialApprovalRoutes,
  directoryRoutes,
  timbreRoutes,
  serviceStatusRoutes,
  counterpartRoutes,
];
