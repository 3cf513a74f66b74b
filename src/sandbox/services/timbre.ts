// the QR pages ConsultaTimbre and ConsultaTimbreFC. (Being built.)
import type { SandboxApp, SandboxContext } from '../http/context.js';

export function timbreRoutes(_app: SandboxApp, _context: SandboxContext): void {
  // Routes are registered here.
}
