// ACECF received by DGII (aprobacioncomercial). (Being built.)
import type { SandboxApp, SandboxContext } from '../http/context.js';

export function commercialApprovalRoutes(_app: SandboxApp, _context: SandboxContext): void {
  // Routes are registered here.
}
