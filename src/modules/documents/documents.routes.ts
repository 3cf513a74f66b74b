import { Type } from 'typebox';
import { Envelope, envelope, ListEnvelope, listEnvelope } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { DocumentView, EcfDocumentBody, ListDocumentsQuery } from './documents.schema.js';
import type { DocumentsService } from './documents.service.js';

const DocumentParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const ArtefactParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), type: Type.String({ enum: ['source-json', 'source-xml', 'signed-xml'] }) });
/** Archived bytes, sent as they are (never re-encoded: a signed XML must not change by one byte). */
const Bytes = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });
const ArtefactQuery = Type.Object({ version: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false });

function companyOf(principal: { companyId: string } | undefined): string {
  // The auth hook guarantees a principal on apiKey routes.
  if (principal === undefined) throw new Error('apiKey route reached without a principal');
  return principal.companyId;
}

export function documentRoutes(documents: DocumentsService) {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/v1/documentos',
      alias: '/api/v1/documents',
      auth: { kind: 'apiKey', scope: 'documents:create' },
      docs: { operationId: 'createDocument', summary: 'Validate, number, sign and archive an e-CF from JSON (nothing is sent to DGII)', tags: ['Documents'] },
      schema: { body: ref(EcfDocumentBody), response: { 201: Envelope(ref(DocumentView)) } },
      handler: async (request, reply) => {
        const created = unwrap(await documents.create(companyOf(request.principal), request.body));
        return reply.code(201).send(envelope(request, created));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/documentos',
      alias: '/api/v1/documents',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: { operationId: 'listDocuments', summary: "List the company's documents, newest first", tags: ['Documents'] },
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
      docs: { operationId: 'getDocument', summary: 'One document: state, e-NCF, totals, security code, QR URL, artefacts', tags: ['Documents'] },
      schema: { params: DocumentParams, response: { 200: Envelope(ref(DocumentView)) } },
      handler: async (request) => envelope(request, unwrap(await documents.get(companyOf(request.principal), request.params.id))),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/documentos/:id/artefactos/:type',
      alias: '/api/v1/documents/:id/artifacts/:type',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: { operationId: 'getDocumentArtefact', summary: 'Download an artefact (source-json, source-xml, signed-xml) exactly as archived', tags: ['Documents'] },
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
        const artefact = unwrap(await documents.artefact(companyOf(request.principal), request.params.id, request.params.type, request.query.version));
        return reply
          .type(artefact.contentType)
          .header('x-content-sha256', artefact.sha256)
          .header('x-artefact-version', String(artefact.version))
          .send(artefact.bytes);
      },
    }),
  ];
}
