// the counterpart taxpayer (emisorreceptor). (Being built.)
import type { SandboxApp, SandboxContext } from '../http/context.js';

export function counterpartRoutes(_app: SandboxApp, _context: SandboxContext): void {
  // Routes are registered here.
}
