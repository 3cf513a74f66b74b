// ANECF, range annulment (anulacionrangos). (Being built.)
import type { SandboxApp, SandboxContext } from '../http/context.js';

export function annulmentRoutes(_app: SandboxApp, _context: SandboxContext): void {
  // Routes are registered here.
}
