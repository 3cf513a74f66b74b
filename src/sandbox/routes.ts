// Every group of DGII routes the sandbox serves, in one list.
import type { SandboxApp, SandboxContext } from './http/context.js';
import { authenticationRoutes } from './services/authentication.js';

export const sandboxRouteGroups: readonly ((app: SandboxApp, context: SandboxContext) => void)[] = [authenticationRoutes];
