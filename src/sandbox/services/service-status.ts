// service status and maintenance windows (estatusservicios). (Being built.)
import type { SandboxApp, SandboxContext } from '../http/context.js';

export function serviceStatusRoutes(_app: SandboxApp, _context: SandboxContext): void {
  // Routes are registered here.
}
