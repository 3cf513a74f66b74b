// How the sandbox declares a DGII route: the environment segment first (testecf, certecf, ecf; any letter case, as
// DGII accepts), the service's own path after it, and the service's name for fault injection and the arrivals log.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxApp } from './context.js';
import { sandboxEnvironments, type SandboxDocumentFaultMode, type SandboxEnvironment } from '../state/schema.js';

/** DGII's services by their path segment, the unit faults are injected into. */
export const sandboxServices = [
  'autenticacion',
  'recepcion',
  'consultaresultado',
  'consultaestado',
  'consultatrackids',
  'recepcionfc',
  'consultarfce',
  'anulacionrangos',
  'aprobacioncomercial',
  'consultadirectorio',
  'consultatimbre',
  'consultatimbrefc',
  'estatusservicios',
  'emisorreceptor',
] as const;
export type SandboxService = (typeof sandboxServices)[number];

export function isSandboxService(value: string): value is SandboxService {
  return (sandboxServices as readonly string[]).includes(value);
}

/**
 * Single routes a fault can be aimed at alone, as `service.route`: the counterpart's receiver-standard routes
 * (`/fe/<route>/...`). A client authenticates before it posts an e-CF, so a fault meant for the reception must be
 * able to leave the seed and token routes alone; a fault on the whole service still hits them all.
 */
export const sandboxRouteTargets = [
  'emisorreceptor.autenticacion',
  'emisorreceptor.recepcion',
  'emisorreceptor.aprobacioncomercial',
] as const;
export type SandboxRouteTarget = (typeof sandboxRouteTargets)[number];

/** What a fault may name as its `service`: a whole service or one of its routes. */
export const sandboxFaultTargets = [...sandboxServices, ...sandboxRouteTargets] as const;
export type SandboxFaultTarget = (typeof sandboxFaultTargets)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    sandboxService?: SandboxService;
    /** The route's own fault target, when faults can be aimed at it alone. */
    sandboxRoute?: SandboxRouteTarget;
  }
  interface FastifyRequest {
    /** A fault the service must act out itself (accept then lose, reject, ...), set by the fault hook. */
    sandboxFault?: SandboxDocumentFaultMode;
  }
}

export interface DgiiRouteRequest extends FastifyRequest {
  params: { env: string };
}

export type DgiiHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  environment: SandboxEnvironment,
) => Promise<unknown>;

export interface DgiiRoute {
  method: 'GET' | 'POST';
  service: SandboxService;
  /** The name a fault can aim at this route alone by. */
  routeTarget?: SandboxRouteTarget;
  /** Below the environment segment, e.g. `/recepcion/api/facturaselectronicas`. */
  path: string;
  handler: DgiiHandler;
}

export function environmentOf(segment: string): SandboxEnvironment | undefined {
  const lower = segment.toLowerCase();
  return (sandboxEnvironments as readonly string[]).includes(lower) ? (lower as SandboxEnvironment) : undefined;
}

/** Registers a route under `/:env`; an unknown environment segment is a 404, as an unknown path is. */
export function dgiiRoute(app: SandboxApp, route: DgiiRoute): void {
  app.route({
    method: route.method,
    url: `/:env${route.path}`,
    config: { sandboxService: route.service, sandboxRoute: route.routeTarget },
    handler: async (request, reply) => {
      const environment = environmentOf((request.params as { env: string }).env);
      if (environment === undefined) return reply.code(404).send();
      return route.handler(request, reply, environment);
    },
  });
}
