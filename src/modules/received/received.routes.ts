import { Type } from 'typebox';
import {
  Envelope,
  envelope,
  envelopeExample,
  listEnvelope,
  ListEnvelope,
  listExample,
} from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import {
  PrintQuery,
  printableExample,
  printableResponses,
  replyPrintable,
  type PrintingService,
} from '../printing/index.js';
import { ref } from '../../platform/http/schema-ref.js';
import { receivedArtefactKinds } from './artefacts.js';
import { ReceivedWithResponseView } from './outgoing-response.schema.js';
import { ListReceivedQuery, ReceivedDocumentView, receivedExample } from './received.schema.js';
import { signedEcfIllustration } from '../../platform/http/signed-xml-examples.js';
import type { ReceivedService } from './received.service.js';

const ReceivedParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const ArtefactParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  type: Type.String({ enum: [...receivedArtefactKinds] }),
});
/** Archived bytes, sent as they are (never re-encoded: a signed XML must not change by one byte). */
const Bytes = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });

export function receivedRoutes(received: ReceivedService, printing: PrintingService) {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/v1/recibidos',
      alias: '/api/v1/received',
      auth: { kind: 'apiKey', scope: 'received:read' },
      docs: {
        operationId: 'listReceivedDocuments',
        summary: 'List the e-CF other taxpayers sent to the company, newest first',
        tags: ['Received documents'],
        examples: { response: listExample([receivedExample]) },
      },
      schema: { querystring: ListReceivedQuery, response: { 200: ListEnvelope(ref(ReceivedDocumentView)) } },
      handler: async (request) => {
        const page = unwrap(await received.list(companyOf(request.principal), request.query));
        return listEnvelope(request, page.items, page.nextCursor);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/recibidos/:id',
      alias: '/api/v1/received/:id',
      auth: { kind: 'apiKey', scope: 'received:read' },
      docs: {
        operationId: 'getReceivedDocument',
        summary:
          'One received document: issuer, e-NCF, amounts, the ARECF answered, timeline, and the commercial response with its deliveries',
        tags: ['Received documents'],
        examples: {
          response: envelopeExample({
            ...receivedExample,
            commercialResponse: null,
            timeline: [
              {
                at: '2026-11-27T14:30:00.000Z',
                type: 'received',
                status: 'received',
                cause: 'e-CF E310000004343 from 130123454 received; ARECF Estado 0 (e-CF Recibido) answered',
                correlationId: '5b7c2f0e-3d1a-4c8e-9f6b-2a4d8e1c7b90',
              },
            ],
          }),
        },
      },
      schema: { params: ReceivedParams, response: { 200: Envelope(ref(ReceivedWithResponseView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await received.get(companyOf(request.principal), request.params.id))),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/recibidos/:id/impresion',
      alias: '/api/v1/received/:id/printable',
      auth: { kind: 'apiKey', scope: 'received:read' },
      docs: {
        operationId: 'getReceivedPrintable',
        summary:
          'The printed representation of a received e-CF, read from the signed XML its issuer sent: JSON data, or its PDF with Accept: application/pdf',
        description:
          "As GET /api/v1/documentos/{id}/impresion, for an e-CF another taxpayer issued: the paper is the company's default (or `formato`), without the company's logo or note (the document is not its own). One answered 'not received' has no printed representation (409).",
        tags: ['Received documents'],
        examples: { response: printableExample },
      },
      schema: { params: ReceivedParams, querystring: PrintQuery, response: printableResponses },
      handler: (request, reply) => {
        const companyId = companyOf(request.principal);
        return replyPrintable(request, reply, {
          printing,
          printable: () => received.printable(companyId, request.params.id),
          settings: () => printing.settingsOf(companyId, false),
        });
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/recibidos/:id/artefactos/:type',
      alias: '/api/v1/received/:id/artifacts/:type',
      auth: { kind: 'apiKey', scope: 'received:read' },
      docs: {
        operationId: 'getReceivedArtefact',
        summary: 'Download an artefact (received-xml, arecf-xml, acecf-xml) exactly as archived',
        tags: ['Received documents'],
        examples: { response: { 'application/xml': signedEcfIllustration } },
      },
      schema: {
        params: ArtefactParams,
        response: {
          200: {
            description: 'The archived bytes; X-Content-SHA256 is their SHA-256 (hex).',
            content: { 'application/xml': { schema: Bytes } },
          },
        },
      },
      handler: async (request, reply) => {
        const artefact = unwrap(
          await received.artefact(companyOf(request.principal), request.params.id, request.params.type),
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
