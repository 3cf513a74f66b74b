// consultaresultado, consultaestado and consultatrackids. (Being built.)
import type { SandboxApp, SandboxContext } from '../http/context.js';

export function resultRoutes(_app: SandboxApp, _context: SandboxContext): void {
  // Routes are registered here.
}
