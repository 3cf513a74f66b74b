// How the sandbox declares a DGII route: the environment segment first (testecf, certecf, ecf; any letter case, as
// DGII accepts), the service's own path after it, and the service's name for fault injection and the arrivals log.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxApp } from './context.js';
import { sandboxEnvironments, type SandboxEnvironment } from '../state/schema.js';

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

declare module 'fastify' {
  interface FastifyContextConfig {
    sandboxService?: SandboxService;
  }
  interface FastifyRequest {
    /** A fault the service must act out itself (accept then lose, reject), set by the fault hook. */
    sandboxFault?: 'accept_then_lose' | 'reject';
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
    config: { sandboxService: route.service },
    handler: async (request, reply) => {
      const environment = environmentOf((request.params as { env: string }).env);
      if (environment === undefined) return reply.code(404).send();
      return route.handler(request, reply, environment);
    },
  });
}
