// the directory of electronic receivers (consultadirectorio). (Being built.)
import type { SandboxApp, SandboxContext } from '../http/context.js';

export function directoryRoutes(_app: SandboxApp, _context: SandboxContext): void {
  // Routes are registered here.
}
