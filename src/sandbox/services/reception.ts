// e-CF reception (recepcion/api/facturaselectronicas). (Being built.)
import type { SandboxApp, SandboxContext } from '../http/context.js';

export function receptionRoutes(_app: SandboxApp, _context: SandboxContext): void {
  // Routes are registered here.
}
