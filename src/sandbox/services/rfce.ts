// RFCE reception (recepcionfc) and query (consultarfce). (Being built.)
import type { SandboxApp, SandboxContext } from '../http/context.js';

export function rfceRoutes(_app: SandboxApp, _context: SandboxContext): void {
  // Routes are registered here.
}
