// Where each fault can land. A transport fault (5xx, reset, timeout, slow, maintenance) hits any route of the
// service or route it names. A document fault is acted out by the service on what it was sent, so it is taken only
// by a route that acts it out: otherwise a `reject` meant for the counterpart's reception would be spent, doing
// nothing, on the seed request a client makes first.
import { sandboxDocumentFaultModes, type SandboxDocumentFaultMode, type SandboxFaultMode } from '../state/schema.js';
import {
  sandboxFaultTargets,
  type SandboxFaultTarget,
  type SandboxRouteTarget,
  type SandboxService,
} from './sandbox-route.js';

const keepOrReject: readonly SandboxDocumentFaultMode[] = ['accept_then_lose', 'reject'];

/** The document faults each receiving service (or route) acts out; every other one acts out none. */
const actedOut: Partial<Record<SandboxFaultTarget, readonly SandboxDocumentFaultMode[]>> = {
  recepcion: keepOrReject,
  recepcionfc: keepOrReject,
  anulacionrangos: keepOrReject,
  aprobacioncomercial: keepOrReject,
  'emisorreceptor.recepcion': sandboxDocumentFaultModes,
  'emisorreceptor.aprobacioncomercial': keepOrReject,
};

/** Where a fault that stops a request is logged as an arrival too: the services (and route) that receive documents. */
export const receivingTargets: ReadonlySet<SandboxFaultTarget> = new Set([
  'recepcion',
  'recepcionfc',
  'anulacionrangos',
  'aprobacioncomercial',
  'emisorreceptor.recepcion',
]);

export function isDocumentFault(mode: SandboxFaultMode): mode is SandboxDocumentFaultMode {
  return (sandboxDocumentFaultModes as readonly string[]).includes(mode);
}

/** A route, by its fault names: the service's, and its own when faults can be aimed at it alone. */
export interface FaultedRoute {
  service: SandboxService;
  route: SandboxRouteTarget | undefined;
}

/** The name that says what a route acts out and whether it logs arrivals: its own, else its service's. */
export function actingTarget(route: FaultedRoute): SandboxFaultTarget {
  return route.route ?? route.service;
}

/** Whether a fault aimed at `target` with `mode` hits this route. */
export function faultHits(route: FaultedRoute, target: string, mode: SandboxFaultMode): boolean {
  if (target !== route.service && target !== route.route) return false;
  return !isDocumentFault(mode) || (actedOut[actingTarget(route)]?.includes(mode) ?? false);
}

/** Whether some route named by `target` (the service itself or one of its routes) can act `mode` out. */
export function canActOut(target: SandboxFaultTarget, mode: SandboxFaultMode): boolean {
  if (!isDocumentFault(mode)) return true;
  return sandboxFaultTargets.some(
    (name) => (name === target || name.startsWith(`${target}.`)) && (actedOut[name]?.includes(mode) ?? false),
  );
}
