// The receiver standard every electronic taxpayer exposes (SPEC §4.9; DT "Estándar de comunicación
// Emisor-Receptor"; research/dgii-protocol.md §6): `/{environment}/{service}/fe/...`, case-insensitive, answered in
// DGII's style (never problem+json), XML in as multipart `xml` or application/xml, at most 5 MB. The environment
// segment must be this instance's; the service segment names the receiving company (its receiver_segment, else its
// RNC; `emisorreceptor` is the local test path). The integrator's API key plays no part here.
import multipart from '@fastify/multipart';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { FiscalEnvironment } from '../../config.js';
import { environmentSegment } from '../../fiscal/environment.js';
import { messageError, sendDgiiReply } from '../../platform/http/dgii-reply.js';
import { toFailure } from '../../platform/http/error-mapping.js';
import { ProblemError } from '../../platform/http/problems.js';
import {
  defineRoute,
  registerRoutes,
  type App,
  type AppRoute,
  type CatalogueEntry,
} from '../../platform/http/route.js';
import {
  signedAcecfIllustration,
  signedEcfIllustration,
  signedSeedIllustration,
} from '../../platform/http/signed-xml-examples.js';
import { maxXmlUploadBytes, readXmlUpload } from '../../platform/http/xml-upload.js';
import type { Failure, Result } from '../../platform/result.js';
import type { ReceivedService } from '../received/index.js';
import type { ReceiverAuth } from './receiver-auth.js';

const seedExample =
  '<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsd="http://www.w3.org/2001/XMLSchema" ' +
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><valor>OzLRAMIUqrt79zNrOze9c7gN…</valor>' +
  '<fecha>2026-11-27T10:30:00.9730000-04:00</fecha></SemillaModel>';
const arecfExample =
  '<?xml version="1.0" encoding="utf-8"?><ARECF><DetalleAcusedeRecibo><Version>1.0</Version>' +
  '<RNCEmisor>130123454</RNCEmisor><RNCComprador>999999992</RNCComprador><eNCF>E310000004343</eNCF>' +
  '<Estado>0</Estado><FechaHoraAcuseRecibo>27-11-2026 10:30:00</FechaHoraAcuseRecibo></DetalleAcusedeRecibo>' +
  '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#">…</Signature></ARECF>';
const tokenExample = {
  token: 'vDprTo1Tnkunt3U-BjUbZQpo2qWVZkkPMGPdt7N2mzI',
  expira: '2026-11-27T15:30:00Z',
  expedido: '2026-11-27T14:30:00Z',
};

/** The local test path's service segment (SPEC §4.9). */
export const localServiceSegment = 'emisorreceptor';

export interface ReceiverCompany {
  id: string;
  rnc: string;
}

export interface ReceiverDeps {
  environment: FiscalEnvironment;
  auth: ReceiverAuth;
  received: ReceivedService;
  /** The company a service segment names (lower-case), able to receive; undefined: none. */
  companyOf(serviceSegment: string): Promise<ReceiverCompany | undefined>;
  /** The buyer's ACECF about one of the company's own e-CF (modules/documents, commercial approvals). */
  receiveApproval(
    companyId: string,
    xml: Buffer,
  ): Promise<Result<{ documentId: string; decision: 'approved' | 'rejected' }>>;
}

/**
 * A signed seed or ACECF is a few KB (a handful of elements and one certificate: DGII's samples are 3-5 KB); 64 KB
 * leaves room for a certificate chain. Larger, it is not one, and is refused before any parser reads it: these two
 * routes read what they are sent on the event loop, where a 5 MB document of elements side by side costs seconds.
 */
export const maxSignedMessageBytes = 64 * 1024;

function tooLargeFor(reply: FastifyReply, xml: Buffer, what: string): boolean {
  if (xml.byteLength <= maxSignedMessageBytes) return false;
  void messageError(
    reply,
    413,
    `${what} no excede ${String(maxSignedMessageBytes)} bytes; se recibieron ${String(xml.byteLength)}.`,
  );
  return true;
}

const Segments = Type.Object({ environment: Type.String({ maxLength: 64 }), service: Type.String({ maxLength: 128 }) });
const XmlUploadBody = Type.Unsafe<unknown>({
  description:
    'multipart/form-data with the XML file in the field `xml`, or the raw XML as application/xml; at most 5 MB.',
});
const tags = ['Receiver (DGII standard)'];
const XmlText = Type.Unsafe<string | Buffer>({ type: 'string', description: 'XML text.' });
const ReceiverToken = Type.Object({
  token: Type.String(),
  expira: Type.String({ description: 'yyyy-MM-ddTHH:mm:ssZ' }),
  expedido: Type.String({ description: 'yyyy-MM-ddTHH:mm:ssZ' }),
});
const DgiiMessage = Type.Object({ mensaje: Type.String() });
const xmlResponse = (description: string) => ({
  200: { description, content: { 'application/xml': { schema: XmlText } } },
});

function unauthorized(reply: FastifyReply): FastifyReply {
  void reply.header('www-authenticate', 'Bearer');
  return messageError(
    reply,
    401,
    'Se requiere un token válido de este receptor (Authorization: Bearer), obtenido en /fe/autenticacion/api/validacioncertificado.',
  );
}

export function receiverRoutes(deps: ReceiverDeps) {
  const segment = environmentSegment[deps.environment];

  /** The company the path names, or the 404 already sent. */
  async function companyFor(request: FastifyRequest, reply: FastifyReply): Promise<ReceiverCompany | undefined> {
    const { environment, service } = request.params as { environment: string; service: string };
    const company = environment === segment ? await deps.companyOf(service) : undefined;
    if (company === undefined) {
      request.log.info({ environment, service }, 'receiver route for no receiving company here');
      void messageError(reply, 404, `No hay un receptor en /${environment}/${service}.`);
    }
    return company;
  }

  /** The uploaded XML, or the refusal already sent (logged: nothing else is kept of refused input). */
  async function uploadOf(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ xml: Buffer; filename: string } | undefined> {
    const upload = await readXmlUpload(request, { allowXmlBody: true });
    if (upload.ok) return upload;
    request.log.info({ status: upload.status, mensaje: upload.mensaje }, 'receiver upload refused');
    void messageError(reply, upload.status, upload.mensaje);
    return undefined;
  }

  /** A POST's company, token (per RECEIVER_AUTH_MODE) and upload, or the refusal already sent. */
  async function admittedUpload(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ company: ReceiverCompany; upload: { xml: Buffer; filename: string } } | undefined> {
    const company = await companyFor(request, reply);
    if (company === undefined) return undefined;
    if (!(await deps.auth.admits(company.id, request.headers.authorization))) {
      unauthorized(reply);
      return undefined;
    }
    const upload = await uploadOf(request, reply);
    return upload === undefined ? undefined : { company, upload };
  }

  const post = { xmlBody: true as const, bodyLimit: maxXmlUploadBytes, auth: { kind: 'public' as const } };
  return [
    defineRoute({
      method: 'GET',
      url: '/:environment/:service/fe/autenticacion/api/semilla',
      auth: { kind: 'public' },
      docs: {
        operationId: 'receiverSeed',
        summary: 'A one-time seed (SemillaModel) to sign for a receiver token',
        tags,
        examples: { response: { 'application/xml': seedExample } },
      },
      schema: {
        params: Segments,
        response: xmlResponse('SemillaModel: valor and fecha, to be signed whole and sent back.'),
      },
      handler: async (request, reply) => {
        const company = await companyFor(request, reply);
        if (company === undefined) return reply;
        return reply.type('application/xml; charset=utf-8').send(await deps.auth.issueSeed(company.id));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/:environment/:service/fe/autenticacion/api/validacioncertificado',
      ...post,
      docs: {
        operationId: 'receiverValidateCertificate',
        summary:
          'Exchange the signed seed for a receiver token valid one hour ({token, expira, expedido}, JSON or XML by Accept)',
        tags,
        examples: {
          request: signedSeedIllustration,
          response: {
            'application/json': tokenExample,
            'application/xml': `<?xml version="1.0" encoding="utf-8"?><RespuestaAutenticacion><token>${tokenExample.token}</token><expira>${tokenExample.expira}</expira><expedido>${tokenExample.expedido}</expedido></RespuestaAutenticacion>`,
          },
        },
      },
      schema: {
        params: Segments,
        body: XmlUploadBody,
        consumes: ['application/xml'],
        response: {
          200: {
            description: 'The token, as JSON or (Accept: application/xml) as RespuestaAutenticacion XML.',
            content: { 'application/json': { schema: ReceiverToken }, 'application/xml': { schema: XmlText } },
          },
        },
      },
      handler: async (request, reply) => {
        const company = await companyFor(request, reply);
        if (company === undefined) return reply;
        const upload = await uploadOf(request, reply);
        if (upload === undefined || tooLargeFor(reply, upload.xml, 'Una semilla firmada')) return reply;
        const checked = await deps.auth.validateSeed(company.id, upload.xml);
        if (!checked.ok) {
          request.log.info({ mensaje: checked.mensaje }, 'receiver seed refused');
          return messageError(reply, 400, checked.mensaje);
        }
        return sendDgiiReply(request, reply, 200, 'RespuestaAutenticacion', { ...checked.token });
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/:environment/:service/fe/recepcion/api/ecf',
      ...post,
      docs: {
        operationId: 'receiverReceiveEcf',
        summary: 'Receive an e-CF from another taxpayer; answers its signed acknowledgement (ARECF)',
        tags,
        examples: { request: signedEcfIllustration, response: { 'application/xml': arecfExample } },
      },
      schema: {
        params: Segments,
        body: XmlUploadBody,
        consumes: ['application/xml'],
        response: xmlResponse(
          'The ARECF signed by the receiving company: Estado 0, or 1 with CodigoMotivoNoRecibido 1 to 4.',
        ),
      },
      handler: async (request, reply) => {
        const admitted = await admittedUpload(request, reply);
        if (admitted === undefined) return reply;
        const { company, upload } = admitted;
        const reception = await deps.received.receive(company, upload.xml, upload.filename);
        if (reception.kind === 'unreadable') {
          request.log.info({ detail: reception.message }, 'receiver e-CF refused: unreadable');
          return messageError(reply, 400, `El archivo enviado no es un e-CF legible: ${reception.message}`);
        }
        if (reception.kind === 'no_certificate') {
          request.log.error(
            { companyId: company.id },
            'receiver cannot sign its ARECF: the company has no certificate',
          );
          return messageError(reply, 503, 'El receptor no puede firmar el acuse de recibo en este momento.');
        }
        return reply.type('application/xml; charset=utf-8').send(reception.arecf);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/:environment/:service/fe/aprobacioncomercial/api/ecf',
      ...post,
      docs: {
        operationId: 'receiverReceiveApproval',
        summary:
          "Receive a buyer's commercial approval or rejection (ACECF) of one of the company's e-CF: 200 recorded, 400 not",
        tags,
        examples: {
          request: signedAcecfIllustration,
          response: { 'application/json': { mensaje: 'Aprobación comercial recibida.' } },
        },
      },
      schema: {
        params: Segments,
        body: XmlUploadBody,
        consumes: ['application/xml'],
        response: { 200: { description: 'Recorded.', content: { 'application/json': { schema: DgiiMessage } } } },
      },
      handler: async (request, reply) => {
        const admitted = await admittedUpload(request, reply);
        if (admitted === undefined) return reply;
        const { company, upload } = admitted;
        if (tooLargeFor(reply, upload.xml, 'Un ACECF firmado')) return reply;
        const result = await deps.receiveApproval(company.id, upload.xml);
        if (!result.ok) {
          request.log.info({ code: result.failure.code, detail: result.failure.detail }, 'receiver ACECF refused');
          return messageError(reply, 400, result.failure.detail);
        }
        return reply.code(200).send({
          mensaje:
            result.value.decision === 'approved' ? 'Aprobación comercial recibida.' : 'Rechazo comercial recibido.',
        });
      },
    }),
  ];
}

/**
 * What is refused before a handler runs, in DGII's style: too large, a type it cannot read, a broken body, text the
 * service never stores (a NUL in a path segment: platform/http/input-screen.ts).
 */
function dgiiStyleError(
  error: FastifyError | ProblemError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const refused = error instanceof ProblemError ? toFailure(error) : undefined;
  const status =
    refused?.status ??
    (error instanceof ProblemError ||
    error.statusCode === undefined ||
    error.statusCode < 400 ||
    error.statusCode >= 500
      ? 500
      : error.statusCode);
  if (status === 413)
    return messageError(reply, 413, `El archivo excede el tamaño máximo de ${String(maxXmlUploadBytes)} bytes.`);
  if (status === 415)
    return messageError(reply, 415, 'Se espera multipart/form-data con el archivo en el campo xml, o application/xml.');
  if (status < 500) {
    request.log.info({ err: error }, 'receiver request refused');
    return messageError(
      reply,
      status,
      refused === undefined ? 'La solicitud no pudo leerse.' : inSpanish(refused.failure),
    );
  }
  request.log.error({ err: error }, 'receiver request failed');
  return messageError(reply, 500, 'Error interno del receptor.');
}

/** A refusal of the service's edge (platform/http/input-screen.ts), said in the receiver's language: where, and why. */
function inSpanish(failure: Failure): string {
  const first = failure.errors?.[0];
  if (first === undefined) return 'La solicitud no es válida.';
  const why =
    first.code === 'forbidden_character'
      ? 'contiene U+0000 (NUL), que no se acepta'
      : first.code === 'too_deep'
        ? 'anida más niveles de los aceptados'
        : first.detail;
  return `La solicitud no es válida: ${first.in} ${first.pointer} ${why}.`;
}

/**
 * Registers the receiver routes in their own scope: multipart is read there only (the rest of the API takes JSON),
 * and errors answer in DGII's style.
 */
export async function registerReceiverRoutes(app: App, deps: ReceiverDeps, catalogue: CatalogueEntry[]): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(multipart);
    scope.setErrorHandler(dgiiStyleError);
    registerRoutes(scope as unknown as App, receiverRoutes(deps) as AppRoute[], catalogue);
  });
}
