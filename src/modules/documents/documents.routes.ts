import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  envelope,
  Envelope,
  envelopeExample,
  listEnvelope,
  ListEnvelope,
  listExample,
} from '../../platform/http/envelope.js';
import { problem, problemBody, problemCatalogue, ProblemError, unwrap } from '../../platform/http/problems.js';
import { signedEcfIllustration } from '../../platform/http/signed-xml-examples.js';
import { xmlOfBody } from '../../platform/http/xml-body.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { ecfExample } from '../catalogues/index.js';
import { artefactKinds } from './artefacts.js';
import {
  DocumentPreview,
  documentPreviewExample,
  DocumentView,
  documentViewExample,
  EcfDocumentBody,
  ListDocumentsQuery,
} from './documents.schema.js';
import type { DocumentsService } from './documents.service.js';
import { idempotencyKeyPattern, isSecondCreationUnderKey, type Idempotency } from './idempotency.js';
import type { SignedXmlIntake } from './signed-xml-intake.js';

const DocumentParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const ArtefactParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  type: Type.String({ enum: [...artefactKinds] }),
});
/** Archived bytes, sent as they are (never re-encoded: a signed XML must not change by one byte). */
const Bytes = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });
// Versions are PostgreSQL integers: a larger number is a 400 naming it, not a query PostgreSQL refuses.
const ArtefactQuery = Type.Object(
  { version: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })) },
  { additionalProperties: false },
);

const CreateHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: idempotencyKeyPattern.source,
      description:
        'Any printable ASCII, up to 255 characters: the same key and body replay the first response without creating anything.',
    }),
  ),
});

const SignedXmlBody = Type.Unsafe<unknown>({
  description:
    'The signed e-CF: the raw XML (Content-Type application/xml, the exact bytes to archive), or JSON {"xml": "<ECF>…</ECF>"}.',
});

export function documentRoutes(documents: DocumentsService, idempotency: Idempotency, intake: SignedXmlIntake) {
  /**
   * The answer to a key whose document was stored but whose first answer was lost (the database went away between
   * the two): the document as it is now, kept as the key's answer from here on.
   */
  async function replayCreated(
    companyId: string,
    key: string,
    documentId: string,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const body = envelope(request, unwrap(await documents.get(companyId, documentId)));
    await idempotency.complete(companyId, key, 201, body);
    return reply.header('idempotency-replayed', 'true').code(201).send(body);
  }

  return [
    defineRoute({
      method: 'POST',
      url: '/api/v1/documentos/xml-firmado',
      alias: '/api/v1/documents/signed-xml',
      auth: { kind: 'apiKey', scope: 'documents:create' },
      xmlBody: true,
      docs: {
        operationId: 'submitSignedXml',
        summary:
          'Hand in an e-CF signed elsewhere: its signature and schema are checked, its e-NCF claimed, its bytes archived as received',
        tags: ['Documents'],
        examples: { request: { xml: signedEcfIllustration }, response: envelopeExample(documentViewExample) },
      },
      schema: { body: SignedXmlBody, response: { 201: Envelope(ref(DocumentView)) } },
      handler: async (request, reply) => {
        const companyId = companyOf(request.principal);
        const xml = xmlOfBody(request.body);
        if (xml === undefined) {
          throw problem('validation_failed', 'Send the signed XML as application/xml, or as JSON {"xml": "…"}.', [
            { pointer: '/xml', in: 'body', code: 'missing', detail: 'The signed XML is required.' },
          ]);
        }
        const id = unwrap(await intake.intake(companyId, xml));
        return reply.code(201).send(envelope(request, unwrap(await documents.get(companyId, id))));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/documentos/vista-previa',
      alias: '/api/v1/documents/preview',
      auth: { kind: 'apiKey', scope: 'documents:create' },
      docs: {
        operationId: 'previewDocument',
        summary:
          'Check an e-CF from JSON as creation would, and show its totals: nothing is numbered, signed or stored',
        description:
          "The body POST /documentos takes (without an e-NCF: none is taken), composed and checked by the same code: the Emisor from the company profile, Totales and each line's MontoItem computed from the lines where left out, the model of its type, the fiscal rules and DGII's tolerance. An e-CF with errors is answered 200 with valid false and its findings at the fields; a body that is not JSON, or not an object, is a 4xx problem as for creation. Idempotency-Key plays no part: nothing is recorded.",
        tags: ['Documents'],
        examples: { request: ecfExample('31'), response: envelopeExample(documentPreviewExample) },
      },
      schema: { body: ref(EcfDocumentBody), response: { 200: Envelope(ref(DocumentPreview)) } },
      handler: async (request) =>
        envelope(request, unwrap(await documents.preview(companyOf(request.principal), request.body))),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/documentos',
      alias: '/api/v1/documents',
      auth: { kind: 'apiKey', scope: 'documents:create' },
      docs: {
        operationId: 'createDocument',
        summary: 'Validate, number, sign and archive an e-CF from JSON (nothing is sent to DGII)',
        tags: ['Documents'],
        examples: { request: ecfExample('31'), response: envelopeExample(documentViewExample) },
      },
      schema: { body: ref(EcfDocumentBody), headers: CreateHeaders, response: { 201: Envelope(ref(DocumentView)) } },
      handler: async (request, reply) => {
        const companyId = companyOf(request.principal);
        const key = request.headers['idempotency-key'];
        if (key === undefined)
          return reply.code(201).send(envelope(request, unwrap(await documents.create(companyId, request.body))));

        const claim = await idempotency.claim(companyId, key, request.body);
        if (claim.kind === 'different_body')
          throw problem(
            'idempotency_key_reused',
            `Idempotency-Key ${key} was first used with another body: use a new key for a new document.`,
          );
        if (claim.kind === 'in_flight')
          throw problem(
            'idempotency_in_flight',
            `The request with Idempotency-Key ${key} is still being processed: ask again shortly.`,
          );
        // The stored first answer goes out as it was, whatever its status: the typed reply knows only the 201.
        const replay = reply as unknown as FastifyReply;
        if (claim.kind === 'replay') {
          void replay.header('idempotency-replayed', 'true');
          if (claim.status >= 400) void replay.type('application/problem+json');
          return replay.code(claim.status).send(claim.body);
        }
        if (claim.kind === 'created') return replayCreated(companyId, key, claim.documentId, request, replay);
        let result: Awaited<ReturnType<DocumentsService['create']>>;
        try {
          result = await documents.create(companyId, request.body, key);
        } catch (error) {
          // Another request under the same key stored its document first (it took over a claim it thought
          // abandoned): that document is the answer, and this one's number is burned.
          const first = isSecondCreationUnderKey(error) ? await idempotency.documentOf(companyId, key) : undefined;
          if (first !== undefined) return replayCreated(companyId, key, first, request, replay);
          await idempotency.release(companyId, key);
          throw error;
        }
        if (!result.ok) {
          // The refusal is the first response too: the same request gets it again, without being judged again.
          await idempotency.complete(
            companyId,
            key,
            problemCatalogue[result.failure.code].status,
            problemBody(result.failure, request.url.split('?')[0] ?? '/', request.id),
          );
          throw new ProblemError(result.failure);
        }
        const body = envelope(request, result.value);
        await idempotency.complete(companyId, key, 201, body);
        return reply.code(201).send(body);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/documentos',
      alias: '/api/v1/documents',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: {
        operationId: 'listDocuments',
        summary: "List the company's documents, newest first",
        tags: ['Documents'],
        examples: { response: listExample([documentViewExample]) },
      },
      schema: { querystring: ListDocumentsQuery, response: { 200: ListEnvelope(ref(DocumentView)) } },
      handler: async (request) => {
        const page = unwrap(await documents.list(companyOf(request.principal), request.query));
        return listEnvelope(request, page.items, page.nextCursor);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/documentos/:id',
      alias: '/api/v1/documents/:id',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: {
        operationId: 'getDocument',
        summary: 'One document: state, e-NCF, totals, security code, QR URL, artefacts',
        tags: ['Documents'],
        examples: {
          response: envelopeExample({
            ...documentViewExample,
            status: 'accepted',
            dgii: {
              route: 'reception',
              attempts: 1,
              trackId: '5f6a1c2e-8b7d-4e3f-9a01-2b3c4d5e6f70',
              estado: 'Aceptado',
              codigo: '1',
              mensajes: [],
              secuenciaUtilizada: true,
              sentAt: '2026-11-27T14:31:02.000Z',
              finalAt: '2026-11-27T14:31:09.000Z',
            },
            updatedAt: '2026-11-27T14:31:09.000Z',
          }),
        },
      },
      schema: { params: DocumentParams, response: { 200: Envelope(ref(DocumentView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await documents.get(companyOf(request.principal), request.params.id))),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/documentos/:id/artefactos/:type',
      alias: '/api/v1/documents/:id/artifacts/:type',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: {
        operationId: 'getDocumentArtefact',
        summary: 'Download an artefact (source-json, source-xml, signed-xml, rfce-xml, acecf-xml) exactly as archived',
        tags: ['Documents'],
        examples: {
          response: {
            'application/xml': signedEcfIllustration,
            'application/json': '{"Encabezado":{"IdDoc":{"TipoeCF":"31"}}}',
          },
        },
      },
      schema: {
        params: ArtefactParams,
        querystring: ArtefactQuery,
        response: {
          200: {
            description: 'The archived bytes; X-Content-SHA256 is their SHA-256 (hex).',
            content: { 'application/xml': { schema: Bytes }, 'application/json': { schema: Bytes } },
          },
        },
      },
      handler: async (request, reply) => {
        const artefact = unwrap(
          await documents.artefact(
            companyOf(request.principal),
            request.params.id,
            request.params.type,
            request.query.version,
          ),
        );
        return reply
          .type(artefact.contentType)
          .header('x-content-sha256', artefact.sha256)
          .header('x-artefact-version', String(artefact.version))
          .send(artefact.bytes);
      },
    }),
  ];
}
