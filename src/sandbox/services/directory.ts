// DGII's directory of electronic receivers (consultadirectorio; DT "Consulta Directorio de Servicios";
// research/dgii-protocol.md §2): each authorised electronic taxpayer with the bases of its reception, approval and
// (optional) authentication services. The counterpart taxpayer is always listed, at this sandbox's own
// `/{env}/emisorreceptor`, as DGII lists its simulator in TesteCF.
//
// By RNC: in eCF (production) DGII answers one object instead of an array (research §2, V 1.8.1); the sandbox does
// the same so clients learn to normalise it. An RNC that is not in the directory gets `[]` (HTTP 200) in every
// environment: DGII does not document this case, and an empty list is what a client that normalises arrays
// already handles.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxApp, SandboxContext } from '../http/context.js';
import { unauthorized } from '../http/dgii-replies.js';
import { dgiiRoute } from '../http/sandbox-route.js';
import { sessionOf } from '../http/sessions.js';
import type { SandboxEnvironment } from '../state/schema.js';

export interface DirectoryEntry {
  nombre: string;
  rnc: string;
  urlRecepcion: string;
  urlAceptacion: string;
  urlOpcional: string;
}

/** Where this sandbox is reached, as the client reached it (scheme and host of the request). */
function ownBase(request: FastifyRequest, environment: SandboxEnvironment): string {
  return `${request.protocol}://${request.host}/${environment}/emisorreceptor`;
}

function counterpartEntry(
  context: SandboxContext,
  request: FastifyRequest,
  environment: SandboxEnvironment,
): DirectoryEntry {
  const base = ownBase(request, environment);
  return {
    nombre: context.counterpart.name,
    rnc: context.counterpart.rnc,
    urlRecepcion: base,
    urlAceptacion: base,
    urlOpcional: base,
  };
}

/** Registered, active electronic taxpayers that declared a reception URL, the counterpart first. */
async function directory(
  context: SandboxContext,
  request: FastifyRequest,
  environment: SandboxEnvironment,
  rnc?: string,
): Promise<DirectoryEntry[]> {
  let query = context.db
    .selectFrom('sandbox_taxpayers')
    .select(['name', 'rnc', 'reception_url', 'approval_url', 'authentication_url'])
    .where('electronic', '=', true)
    .where('active', '=', true)
    .where('reception_url', 'is not', null)
    .where('rnc', '!=', context.counterpart.rnc)
    .orderBy('rnc');
  if (rnc !== undefined) query = query.where('rnc', '=', rnc);
  const rows = await query.execute();
  const entries = rows.map((row) => ({
    nombre: row.name,
    rnc: row.rnc,
    urlRecepcion: row.reception_url ?? '',
    urlAceptacion: row.approval_url ?? '',
    urlOpcional: row.authentication_url ?? '',
  }));
  await withEnvironmentEntries(context, environment, entries, rnc);
  const withCounterpart = rnc === undefined || rnc === context.counterpart.rnc;
  return withCounterpart ? [counterpartEntry(context, request, environment), ...entries] : entries;
}

/**
 * The entries written for this environment alone replace the registry's URLs: certification's step 12 writes the
 * production ones (research/certification.md §1: "They go to the OFV directory"), which only eCF shows. A taxpayer
 * listed only there (no URL in the registry) is added.
 */
async function withEnvironmentEntries(
  context: SandboxContext,
  environment: SandboxEnvironment,
  entries: DirectoryEntry[],
  rnc: string | undefined,
): Promise<void> {
  let query = context.db
    .selectFrom('sandbox_directory_entries')
    .innerJoin('sandbox_taxpayers', 'sandbox_taxpayers.rnc', 'sandbox_directory_entries.rnc')
    .select([
      'sandbox_taxpayers.name',
      'sandbox_directory_entries.rnc',
      'sandbox_directory_entries.reception_url',
      'sandbox_directory_entries.approval_url',
      'sandbox_directory_entries.authentication_url',
    ])
    .where('sandbox_directory_entries.environment', '=', environment)
    .where('sandbox_taxpayers.electronic', '=', true)
    .where('sandbox_taxpayers.active', '=', true)
    .where('sandbox_directory_entries.rnc', '!=', context.counterpart.rnc);
  if (rnc !== undefined) query = query.where('sandbox_directory_entries.rnc', '=', rnc);
  for (const row of await query.execute()) {
    const entry = {
      nombre: row.name,
      rnc: row.rnc,
      urlRecepcion: row.reception_url,
      urlAceptacion: row.approval_url,
      urlOpcional: row.authentication_url,
    };
    const at = entries.findIndex((candidate) => candidate.rnc === row.rnc);
    if (at === -1) entries.push(entry);
    else entries[at] = entry;
  }
  entries.sort((a, b) => a.rnc.localeCompare(b.rnc));
}

/** A query parameter by name in any letter case (DGII's ASP.NET binds them so). */
export function queryParameter(request: FastifyRequest, name: string): string | undefined {
  const query = request.query as Record<string, string | string[] | undefined>;
  for (const [key, value] of Object.entries(query)) {
    if (key.toLowerCase() !== name.toLowerCase()) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

async function byRnc(
  context: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  environment: SandboxEnvironment,
): Promise<FastifyReply> {
  const rnc = queryParameter(request, 'RNC')?.trim() ?? '';
  if (rnc === '') {
    // ASP.NET's answer to a missing required parameter.
    return reply.code(400).send({
      type: 'https://tools.ietf.org/html/rfc7231#section-6.5.1',
      title: 'One or more validation errors occurred.',
      status: 400,
      errors: { RNC: ['The RNC field is required.'] },
    });
  }
  const entries = await directory(context, request, environment, rnc);
  const [only] = entries;
  if (environment === 'ecf' && only !== undefined) return reply.send(only);
  return reply.send(entries);
}

export function directoryRoutes(app: SandboxApp, context: SandboxContext): void {
  dgiiRoute(app, {
    method: 'GET',
    service: 'consultadirectorio',
    path: '/consultadirectorio/api/consultas/listado',
    handler: async (request, reply, environment) => {
      if ((await sessionOf(context, request, environment)) === undefined) return unauthorized(reply);
      return reply.send(await directory(context, request, environment));
    },
  });
  dgiiRoute(app, {
    method: 'GET',
    service: 'consultadirectorio',
    path: '/consultadirectorio/api/consultas/obtenerdirectorioporrnc',
    handler: async (request, reply, environment) => {
      if ((await sessionOf(context, request, environment)) === undefined) return unauthorized(reply);
      return byRnc(context, request, reply, environment);
    },
  });
}
