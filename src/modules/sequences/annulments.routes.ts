// Annulments of unused e-NCF (/api/v1/secuencias/anulaciones): request (202), list, the burned numbers awaiting
// one, read, retry.
import { Type } from 'typebox';
import {
  envelope,
  Envelope,
  envelopeExample,
  listEnvelope,
  ListEnvelope,
  listExample,
} from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import {
  AnnulmentParams,
  AnnulmentView,
  BurnedSpan,
  ListAnnulmentsQuery,
  RequestAnnulment,
} from './annulments.schema.js';
import type { AnnulmentsService } from './annulments.service.js';

const annulmentExample = {
  id: 'anl_dfAp0mf16vJ3tDZBrjXY',
  status: 'pending',
  total: 9,
  spans: [{ ecfType: '34', from: 'E340000000002', to: 'E340000000010', count: 9, kind: 'unissued' }],
  attempts: 0,
  dgii: { estado: null, codigo: null, mensajes: [] },
  createdAt: '2026-11-27T14:30:00.000Z',
  updatedAt: '2026-11-27T14:30:00.000Z',
};

export function annulmentRoutes(annulments: AnnulmentsService) {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/v1/secuencias/anulaciones',
      alias: '/api/v1/sequences/annulments',
      auth: { kind: 'apiKey', scope: 'sequences:manage' },
      docs: {
        operationId: 'requestAnnulment',
        summary: 'Ask DGII to annul unused e-NCF (202): an ANECF is signed and sent by a job',
        description:
          "Every span must lie inside one of the company's ranges and hold only unused numbers: burned ones, and/or the whole rest of a range never handed out (from its next number to its last, which stops the range from handing them out). A used number, a number inside an active offline block or one already in an open request answers 422 `annulment_invalid` naming the span. Beyond that, only what one ANECF cannot carry is refused (422, with its pointer): more than 10 types, 10,000 ranges of a type or 9,999,999,999 numbers. Follow the request with GET; DGII's answer makes it `accepted` (the numbers count as annulled), `rejected` (they are given back) or `failed`.",
        tags: ['Sequences'],
        examples: {
          request: { ranges: [{ ecfType: '34', from: 'E340000000002', to: 'E340000000010' }] },
          response: envelopeExample(annulmentExample),
        },
      },
      schema: { body: ref(RequestAnnulment), response: { 202: Envelope(ref(AnnulmentView)) } },
      handler: async (request, reply) =>
        reply
          .code(202)
          .send(envelope(request, unwrap(await annulments.request(companyOf(request.principal), request.body)))),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/secuencias/anulaciones',
      alias: '/api/v1/sequences/annulments',
      auth: { kind: 'apiKey', scope: 'sequences:read' },
      docs: {
        operationId: 'listAnnulments',
        summary: 'Annulment requests, newest first',
        tags: ['Sequences'],
        examples: { response: listExample([annulmentExample]) },
      },
      schema: { querystring: ListAnnulmentsQuery, response: { 200: ListEnvelope(ref(AnnulmentView)) } },
      handler: async (request) => {
        const page = unwrap(await annulments.list(companyOf(request.principal), request.query));
        return listEnvelope(request, page.items, page.nextCursor);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/secuencias/anulaciones/quemadas',
      alias: '/api/v1/sequences/annulments/burned',
      auth: { kind: 'apiKey', scope: 'sequences:read' },
      docs: {
        operationId: 'listBurnedNumbers',
        summary:
          'Numbers consumed by failures that still await annulment, grouped into contiguous spans ready to annul',
        tags: ['Sequences'],
        examples: {
          response: envelopeExample([
            {
              ecfType: '32',
              from: 'E320000000460',
              to: 'E320000000501',
              count: 42,
              causes: ['allocation alc_IJfpiUehnPLfkkyCRy2u cancelled'],
            },
          ]),
        },
      },
      schema: { response: { 200: Envelope(Type.Array(ref(BurnedSpan))) } },
      handler: async (request) => envelope(request, await annulments.burned(companyOf(request.principal))),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/secuencias/anulaciones/:id',
      alias: '/api/v1/sequences/annulments/:id',
      auth: { kind: 'apiKey', scope: 'sequences:read' },
      docs: {
        operationId: 'getAnnulment',
        summary: "An annulment request: its spans, its state and DGII's answer",
        tags: ['Sequences'],
        examples: {
          response: envelopeExample({
            ...annulmentExample,
            status: 'accepted',
            attempts: 1,
            dgii: { estado: 'Aceptado', codigo: '1', mensajes: [] },
            updatedAt: '2026-11-27T14:31:12.000Z',
          }),
        },
      },
      schema: { params: AnnulmentParams, response: { 200: Envelope(ref(AnnulmentView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await annulments.get(companyOf(request.principal), request.params.id))),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/secuencias/anulaciones/:id/reintentar',
      alias: '/api/v1/sequences/annulments/:id/retry',
      auth: { kind: 'apiKey', scope: 'sequences:manage' },
      docs: {
        operationId: 'retryAnnulment',
        summary: 'Send a failed annulment again (202): the same signed ANECF',
        description: 'Only `failed` requests; others answer 409 `annulment_not_retryable`.',
        tags: ['Sequences'],
        examples: { response: envelopeExample({ ...annulmentExample, attempts: 3 }) },
      },
      schema: { params: AnnulmentParams, response: { 202: Envelope(ref(AnnulmentView)) } },
      handler: async (request, reply) =>
        reply
          .code(202)
          .send(envelope(request, unwrap(await annulments.retry(companyOf(request.principal), request.params.id)))),
    }),
  ];
}
