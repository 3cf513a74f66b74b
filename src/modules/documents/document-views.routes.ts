// Derived views of a document (SPEC §4.2): normalizado, impresion, cronologia. Strictly company-scoped: another
// company's document id answers 404, the same as an id that does not exist.
import { Type } from 'typebox';
import { componentExample, Envelope, envelope, envelopeExample } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import {
  PrintQuery,
  printableExample,
  printableResponses,
  replyPrintable,
  type PrintingService,
} from '../printing/index.js';
import { DocumentTimeline, NormalizedDocument } from './document-views.schema.js';
import type { DocumentsService } from './documents.service.js';

const DocumentParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export function documentViewRoutes(documents: DocumentsService, printing: PrintingService) {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/v1/documentos/:id/normalizado',
      alias: '/api/v1/documents/:id/normalized',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: {
        operationId: 'getNormalizedDocument',
        summary:
          'The DGII-shaped model rebuilt from the archived signed XML, with its integrity: SHA-256 still as recorded, signature still valid',
        tags: ['Documents'],
        examples: { response: envelopeExample(componentExample(NormalizedDocument)) },
      },
      schema: { params: DocumentParams, response: { 200: Envelope(ref(NormalizedDocument)) } },
      handler: async (request) =>
        envelope(request, unwrap(await documents.normalized(companyOf(request.principal), request.params.id))),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/documentos/:id/impresion',
      alias: '/api/v1/documents/:id/printable',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: {
        operationId: 'getPrintableDocument',
        summary:
          'The printed representation (RI): its data as JSON (issuer, buyer, lines, totals, security code, signature date, QR URL, legends), or its PDF with Accept: application/pdf',
        description:
          "One resource in two media types. JSON is the default; `Accept: application/pdf` answers the PDF DGII reviews in certification step 5, read from the signed XML only, on the paper `formato` names (else the company's), with the company's logo and footer note. Its bytes are deterministic: the ETag is their SHA-256 and If-None-Match answers 304. An Accept that allows neither answers 406.",
        tags: ['Documents'],
        examples: { response: printableExample },
      },
      schema: { params: DocumentParams, querystring: PrintQuery, response: printableResponses },
      handler: (request, reply) => {
        const companyId = companyOf(request.principal);
        return replyPrintable(request, reply, {
          printing,
          printable: () => documents.printable(companyId, request.params.id),
          settings: () => printing.settingsOf(companyId, true),
        });
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/documentos/:id/cronologia',
      alias: '/api/v1/documents/:id/timeline',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: {
        operationId: 'getDocumentTimeline',
        summary: 'Every state change and event of the document, oldest first, with time and cause',
        tags: ['Documents'],
        examples: { response: envelopeExample(componentExample(DocumentTimeline)) },
      },
      schema: { params: DocumentParams, response: { 200: Envelope(ref(DocumentTimeline)) } },
      handler: async (request) =>
        envelope(request, unwrap(await documents.timeline(companyOf(request.principal), request.params.id))),
    }),
  ];
}
