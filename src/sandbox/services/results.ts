// consultaresultado (by trackId), consultaestado (by e-NCF) and consultatrackids (every trackId of an e-NCF), in the
// shapes DGII answers them (research/dgii-protocol.md §1.2, §2). Every one needs a session; a document is shown
// only to a session delegated for its issuer (consultaestado: or for its buyer), otherwise it is "not found".
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxApp, SandboxContext } from '../http/context.js';
import { unauthorized } from '../http/dgii-replies.js';
import { dgiiRoute } from '../http/sandbox-route.js';
import { isDelegated, sessionOf } from '../http/sessions.js';
import type { SandboxEnvironment } from '../state/schema.js';
import {
  documentByTrackId,
  documentsFor,
  estados,
  mayView,
  missingParameters,
  queryParameter,
  shownCode,
  standingVerdict,
  usReceptionDate,
  type StoredDocument,
} from './reception-documents.js';

async function resultByTrackId(
  context: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  environment: SandboxEnvironment,
): Promise<FastifyReply> {
  const session = await sessionOf(context, request, environment);
  if (session === undefined) return unauthorized(reply);
  const trackId = queryParameter(request, 'trackid');
  if (trackId === undefined) return reply.code(400).send(missingParameters(['trackid']));
  const document = await documentByTrackId(context, environment, trackId);
  if (document === undefined || !(await mayView(context, session.certificateSha256, document))) {
    return reply.send({
      trackId,
      codigo: '0',
      estado: estados[0],
      rnc: null,
      encf: null,
      secuenciaUtilizada: false,
      fechaRecepcion: null,
      mensajes: [],
    });
  }
  const codigo = shownCode(context, document);
  const decided = codigo !== 3;
  return reply.send({
    trackId,
    // Observed in real answers: codigo is a string, the key is lower-case encf (§2).
    codigo: String(codigo),
    estado: estados[codigo],
    rnc: document.rnc_emisor,
    encf: document.encf,
    secuenciaUtilizada: decided && document.secuencia_utilizada,
    fechaRecepcion: usReceptionDate(document.received_at),
    mensajes: decided ? document.messages : [],
  });
}

/** An amount as a JSON number written exactly as the document wrote it (DT shows montoTotal as a number). */
function jsonAmount(amount: string | null | undefined): string {
  return amount !== null && amount !== undefined && /^\d+(\.\d+)?$/.test(amount) ? amount : 'null';
}

function estadoBody(
  codigo: 0 | 1 | 2 | 4,
  rncEmisor: string,
  encf: string,
  document: StoredDocument | undefined,
): string {
  const text = (value: string | null | undefined) => JSON.stringify(value ?? null);
  const fields: [string, string][] = [
    ['codigo', String(codigo)],
    ['estado', text(estados[codigo])],
    ['rncEmisor', text(rncEmisor)],
    ['ncfElectronico', text(encf)],
    ['montoTotal', jsonAmount(document?.monto_total)],
    ['totalITBIS', jsonAmount(document?.total_itbis)],
    ['fechaEmision', text(document?.fecha_emision)],
    ['fechaFirma', text(document?.fecha_firma)],
    ['rncComprador', text(document?.rnc_comprador)],
    ['codigoSeguridad', text(document?.security_code)],
    ['idExtranjero', text(document?.id_extranjero)],
  ];
  return `{${fields.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
}

async function statusOfEncf(
  context: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  environment: SandboxEnvironment,
): Promise<FastifyReply> {
  const session = await sessionOf(context, request, environment);
  if (session === undefined) return unauthorized(reply);
  const rncEmisor = queryParameter(request, 'rncemisor');
  const encf = queryParameter(request, 'ncfelectronico');
  const missing = [
    rncEmisor === undefined ? 'rncemisor' : undefined,
    encf === undefined ? 'ncfelectronico' : undefined,
  ].filter((name): name is string => name !== undefined);
  if (rncEmisor === undefined || encf === undefined) return reply.code(400).send(missingParameters(missing));
  const rncComprador = queryParameter(request, 'rnccomprador');
  const codigoSeguridad = queryParameter(request, 'codigoseguridad');

  const document = standingVerdict(context, await documentsFor(context, environment, rncEmisor, encf));
  const visible =
    document !== undefined &&
    (await mayView(context, session.certificateSha256, document, true)) &&
    (rncComprador === undefined || rncComprador === document.rnc_comprador) &&
    (codigoSeguridad === undefined || codigoSeguridad === document.security_code);
  const body = visible
    ? estadoBody(document.outcome, rncEmisor, encf, document)
    : estadoBody(0, rncEmisor, encf, undefined);
  return reply.type('application/json; charset=utf-8').send(body);
}

async function trackIdsOfEncf(
  context: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  environment: SandboxEnvironment,
): Promise<FastifyReply> {
  const session = await sessionOf(context, request, environment);
  if (session === undefined) return unauthorized(reply);
  const rncEmisor = queryParameter(request, 'rncemisor');
  const encf = queryParameter(request, 'encf');
  const missing = [rncEmisor === undefined ? 'rncemisor' : undefined, encf === undefined ? 'encf' : undefined].filter(
    (name): name is string => name !== undefined,
  );
  if (rncEmisor === undefined || encf === undefined) return reply.code(400).send(missingParameters(missing));
  // DT: the session must be delegated for the issuer, "de lo contrario, no podrá obtener los datos".
  if (!(await isDelegated(context, session.certificateSha256, rncEmisor))) return reply.send([]);
  const documents = await documentsFor(context, environment, rncEmisor, encf, 'ecf');
  return reply.send(
    documents.map((document) => ({
      trackId: document.track_id,
      estado: estados[shownCode(context, document)],
      fechaRecepcion: usReceptionDate(document.received_at),
    })),
  );
}

export function resultRoutes(app: SandboxApp, context: SandboxContext): void {
  dgiiRoute(app, {
    method: 'GET',
    service: 'consultaresultado',
    path: '/consultaresultado/api/consultas/estado',
    handler: (request, reply, environment) => resultByTrackId(context, request, reply, environment),
  });
  dgiiRoute(app, {
    method: 'GET',
    service: 'consultaestado',
    path: '/consultaestado/api/consultas/estado',
    handler: (request, reply, environment) => statusOfEncf(context, request, reply, environment),
  });
  dgiiRoute(app, {
    method: 'GET',
    service: 'consultatrackids',
    path: '/consultatrackids/api/trackids/consulta',
    handler: (request, reply, environment) => trackIdsOfEncf(context, request, reply, environment),
  });
}
