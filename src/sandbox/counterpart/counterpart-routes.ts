// The counterpart taxpayer: DGII's `emisorreceptor` simulator (DT "Comunicación Emisor-Receptor"; research/
// dgii-protocol.md §6.4). Under `/{env}/emisorreceptor` it is a receiver like any taxpayer's (the four `/fe/...`
// routes of the standard) and, on request, an issuer and a buyer that sends e-CFs and commercial approvals to a
// taxpayer's receiver (`/api/emision/...`).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { leaf, writeXmlDocument } from '../../fiscal/xml/xml-writer.js';
import type { SandboxApp, SandboxContext } from '../http/context.js';
import { messageError } from '../http/dgii-replies.js';
import { wantsXml } from '../http/reply-format.js';
import { dgiiRoute, type SandboxRouteTarget } from '../http/sandbox-route.js';
import type { SandboxEnvironment } from '../state/schema.js';
import { acknowledgementOf, type AcknowledgementAnswer } from './counterpart-acknowledgements.js';
import { receiveApproval } from './counterpart-approval-receiver.js';
import { sendApproval } from './counterpart-approval-sender.js';
import { issueCounterpartSeed, validateCounterpartSeed } from './counterpart-authentication.js';
import { isTypeSentToReceiver } from './counterpart-documents.js';
import { emitEcf } from './counterpart-issuer.js';
import { httpUrl } from './counterpart-outbound.js';
import { receiveEcf } from './counterpart-receiver.js';

const base = '/emisorreceptor';
const taxpayerId = /^(\d{9}|\d{11})$/;

function wantsJson(request: FastifyRequest): boolean {
  return /json/i.test(request.headers.accept ?? '');
}

/** The JSON body's string fields (DGII's models are strings; numbers are taken as their text). */
function fieldsOf(body: unknown): Record<string, string | undefined> {
  if (typeof body !== 'object' || body === null) return {};
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(body)) {
    out[name.toLowerCase()] =
      typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : undefined;
  }
  return out;
}

/** An optional URL: absent or empty means "not given"; anything else must be http(s). */
function optionalUrl(value: string | undefined): { ok: true; url: URL | undefined } | { ok: false } {
  if (value === undefined || value === '') return { ok: true, url: undefined };
  const url = httpUrl(value);
  return url === undefined ? { ok: false } : { ok: true, url };
}

async function emission(
  context: SandboxContext,
  environment: SandboxEnvironment,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const fields = fieldsOf(request.body);
  const rnc = fields['rnc'] ?? '';
  const type = (fields['tipoencf'] ?? '').replace(/^E/i, '');
  const reception = httpUrl(fields['urlrecepcion']);
  const authentication = optionalUrl(fields['urlautenticacion']);
  if (!taxpayerId.test(rnc))
    return messageError(reply, 400, 'El campo rnc es requerido: un RNC de 9 dígitos o una cédula de 11.');
  if (!isTypeSentToReceiver(type))
    return messageError(
      reply,
      400,
      'Tipo de comprobantes 32, 41, 43, 45, 46 y 47 no aplican para ser enviados a otro contribuyente; tipoEncf es 31, 33, 34 o 44.',
    );
  if (reception === undefined) return messageError(reply, 400, 'El campo urlRecepcion es requerido: una URL http(s).');
  if (!authentication.ok) return messageError(reply, 400, 'El campo urlAutenticacion debe ser una URL http(s).');
  const sent = await emitEcf(context, environment, {
    rnc,
    type,
    receptionBase: reception,
    authenticationBase: authentication.url,
  });
  // DT: the simulator answers with the e-CF it sent; a JSON client gets it with what became of it.
  if (!wantsJson(request)) return reply.type('application/xml; charset=utf-8').send(sent.xml);
  return reply.send({ rnc, encf: sent.encf, estado: sent.state, mensajes: sent.messages, xml: sent.xml });
}

async function approval(
  context: SandboxContext,
  environment: SandboxEnvironment,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const fields = fieldsOf(request.body);
  const rnc = fields['rnc'] ?? '';
  const encf = fields['encf'] ?? '';
  const estado = fields['estadoaprobacion'] ?? '';
  const target = httpUrl(fields['urlaprobacioncomercial']);
  const authentication = optionalUrl(fields['urlautenticacion']);
  if (!taxpayerId.test(rnc)) return messageError(reply, 400, 'El campo rnc es requerido: el RNC del emisor del e-CF.');
  if (!/^E\d{12}$/.test(encf))
    return messageError(reply, 400, 'El campo encf es requerido: un e-NCF de 13 caracteres.');
  if (estado !== '1' && estado !== '2')
    return messageError(reply, 400, 'El campo estadoAprobacion es 1 (e-CF Aceptado) o 2 (e-CF Rechazado).');
  if (target === undefined)
    return messageError(reply, 400, 'El campo urlAprobacionComercial es requerido: una URL http(s).');
  if (!authentication.ok) return messageError(reply, 400, 'El campo urlAutenticacion debe ser una URL http(s).');
  const sent = await sendApproval(context, environment, {
    rnc,
    encf,
    estado,
    approvalBase: target,
    authenticationBase: authentication.url,
  });
  if (!sent.ok) return messageError(reply, 400, sent.mensaje);
  // DT: the simulator answers with the ACECF it sent; a JSON client gets it with what became of it.
  if (!wantsJson(request)) return reply.type('application/xml; charset=utf-8').send(sent.xml);
  return reply.send({
    rnc,
    encf,
    estado: sent.state,
    codigoHttp: sent.httpStatus,
    mensajes: sent.messages,
    xml: sent.xml,
  });
}

function acknowledgementXml(answer: AcknowledgementAnswer): string {
  return writeXmlDocument({
    name: 'RespuestaConsultaAcuseRecibo',
    content: [
      leaf('rnc', answer.rnc),
      leaf('encf', answer.encf),
      leaf('estado', answer.estado),
      ...answer.mensajes.map((mensaje) => leaf('mensajes', mensaje)),
    ],
  });
}

async function acknowledgement(
  context: SandboxContext,
  environment: SandboxEnvironment,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const query = fieldsOf(request.query);
  const rnc = query['rnc'] ?? '';
  const encf = query['encf'] ?? '';
  if (!taxpayerId.test(rnc) || !/^E\d{12}$/.test(encf))
    return messageError(reply, 400, 'Los parámetros Rnc y Encf son requeridos.');
  const answer = await acknowledgementOf(context, environment, rnc, encf);
  if (answer === undefined) return messageError(reply, 404, `No se encontró un envío del e-NCF ${encf} al RNC ${rnc}.`);
  if (wantsXml(request)) return reply.type('application/xml; charset=utf-8').send(acknowledgementXml(answer));
  return reply.send(answer);
}

export function counterpartRoutes(app: SandboxApp, context: SandboxContext): void {
  const route = (
    method: 'GET' | 'POST',
    path: string,
    handle: (environment: SandboxEnvironment, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>,
    routeTarget?: SandboxRouteTarget,
  ): void => {
    dgiiRoute(app, {
      method,
      service: 'emisorreceptor',
      routeTarget,
      path: `${base}${path}`,
      handler: (request, reply, environment) => handle(environment, request, reply),
    });
  };

  route(
    'GET',
    '/fe/autenticacion/api/semilla',
    (environment, _request, reply) => issueCounterpartSeed(context, environment, reply),
    'emisorreceptor.autenticacion',
  );
  route(
    'POST',
    '/fe/autenticacion/api/validacioncertificado',
    (environment, request, reply) => validateCounterpartSeed(context, environment, request, reply),
    'emisorreceptor.autenticacion',
  );
  route(
    'POST',
    '/fe/recepcion/api/ecf',
    (environment, request, reply) => receiveEcf(context, environment, request, reply),
    'emisorreceptor.recepcion',
  );
  route(
    'POST',
    '/fe/aprobacioncomercial/api/ecf',
    (environment, request, reply) => receiveApproval(context, environment, request, reply),
    'emisorreceptor.aprobacioncomercial',
  );
  route('POST', '/api/emision/emisioncomprobantes', (environment, request, reply) =>
    emission(context, environment, request, reply),
  );
  route('GET', '/api/emision/consultaacuserecibo', (environment, request, reply) =>
    acknowledgement(context, environment, request, reply),
  );
  route('POST', '/api/emision/envioaprobacioncomercial', (environment, request, reply) =>
    approval(context, environment, request, reply),
  );
}
