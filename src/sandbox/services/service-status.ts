// DGII's status service (statusecf.dgii.gov.do; DT "Estatus Servicios"; research/dgii-protocol.md §1.2): no
// environment segment, an API key instead of a token (`Authorization: Apikey <key>`; DGII hands keys out, the
// sandbox takes any non-empty one). A service is "No Disponible" while a maintenance fault is set on it, or while a
// maintenance window of the environment is running; "Disponible" otherwise.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxApp, SandboxContext } from '../http/context.js';
import { inMaintenance } from '../http/faults.js';
import type { SandboxService } from '../http/sandbox-route.js';
import { queryParameter } from './directory.js';
import { inWindow, maintenanceWindows, type StatusEnvironment } from './service-status-windows.js';

const available = 'Disponible';
const unavailable = 'No Disponible';

/** The services obtenerestatus lists, with DGII's names for them (DT's example, in its order). */
const listedServices: readonly (readonly [SandboxService, string])[] = [
  ['autenticacion', 'Autenticación'],
  ['recepcion', 'Recepción'],
  ['consultaresultado', 'Consulta Resultado'],
  ['consultaestado', 'Consulta Estado'],
  ['consultadirectorio', 'Consulta Directorio'],
  ['consultatrackids', 'Consulta TrackIds'],
  ['aprobacioncomercial', 'Aprobación Comercial'],
  ['anulacionrangos', 'Anulación Rangos'],
  ['recepcionfc', 'Recepción FC'],
];

/** verificarestado's `ambiente`: 1 PreCertificación (TesteCF), 2 Producción (eCF), 3 Certificación (CerteCF). */
const environmentByNumber: Readonly<Record<string, StatusEnvironment>> = {
  '1': 'PreCertificacion',
  '2': 'Produccion',
  '3': 'Certificacion',
};

/** DT: obtenerestatus lists the pre-certification and production services. */
const listedEnvironments: readonly StatusEnvironment[] = ['PreCertificacion', 'Produccion'];

function hasApiKey(request: FastifyRequest): boolean {
  return /^apikey\s+\S+/i.test(request.headers.authorization ?? '');
}

async function statusOf(context: SandboxContext, service: SandboxService, environmentDown: boolean): Promise<string> {
  return environmentDown || (await inMaintenance(context, service)) ? unavailable : available;
}

async function allStatuses(
  context: SandboxContext,
): Promise<{ servicio: string; estatus: string; ambiente: StatusEnvironment }[]> {
  const windows = await maintenanceWindows(context.db);
  const now = context.clock.now();
  const statuses = [];
  for (const ambiente of listedEnvironments) {
    const down = inWindow(windows, ambiente, now);
    for (const [service, servicio] of listedServices)
      statuses.push({ servicio, estatus: await statusOf(context, service, down), ambiente });
  }
  return statuses;
}

async function environmentStatus(
  context: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const ambiente = environmentByNumber[queryParameter(request, 'ambiente')?.trim() ?? ''];
  if (ambiente === undefined) {
    // What ASP.NET answers a missing or unbindable parameter.
    return reply.code(400).send({
      type: 'https://tools.ietf.org/html/rfc7231#section-6.5.1',
      title: 'One or more validation errors occurred.',
      status: 400,
      errors: {
        ambiente: ['The value is not valid. Use 1 (PreCertificación), 2 (Producción) or 3 (Certificación).'],
      },
    });
  }
  const down = inWindow(await maintenanceWindows(context.db), ambiente, context.clock.now());
  const statuses = await Promise.all(listedServices.map(([service]) => statusOf(context, service, down)));
  return reply.send({ estado: statuses.every((status) => status === available) ? available : unavailable });
}

export function serviceStatusRoutes(app: SandboxApp, context: SandboxContext): void {
  const route = (path: string, handler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>) =>
    app.route({
      method: 'GET',
      url: `/api/estatusservicios/${path}`,
      config: { sandboxService: 'estatusservicios' },
      handler: async (request, reply) => (hasApiKey(request) ? handler(request, reply) : reply.code(401).send()),
    });
  route('obtenerestatus', async (_request, reply) => reply.send(await allStatuses(context)));
  route('obtenerventanasmantenimiento', async (_request, reply) =>
    reply.send({ ventanaMantenimientos: await maintenanceWindows(context.db) }),
  );
  route('verificarestado', (request, reply) => environmentStatus(context, request, reply));
}
