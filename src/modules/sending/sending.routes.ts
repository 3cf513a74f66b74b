// Sending and tracking with DGII (SPEC §4.3): enviar, actualizar-estado, reintentar, trabajos-fallidos, and the
// operators' /internal/health/dgii.
import { Type } from 'typebox';
import {
  Envelope,
  envelope,
  envelopeExample,
  ListEnvelope,
  listEnvelope,
  listExample,
} from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { DocumentParams, FailedJobView, ListFailedJobsQuery, SendAnswer } from './sending.schema.js';
import type { SendingService } from './sending.service.js';

const queuedExample = {
  id: 'doc_ebhJdvnWMDXrZRIjCpH0',
  eNCF: 'E310000000001',
  status: 'queued',
  changed: true,
  detail: 'queued for DGII (POST enviar)',
  trackId: null,
};
const failedJobExample = {
  id: 'job_7f3KpQ2xWm9LtR4vB1sN',
  kind: 'document.send',
  documentId: 'doc_ebhJdvnWMDXrZRIjCpH0',
  reason: 'DGII did not answer within 30 s, 8 attempts',
  attempts: 8,
  open: true,
  openedAt: '2026-11-27T16:02:11.000Z',
  closedAt: null,
  closedBecause: null,
};
const dgiiHealthExample = {
  environment: 'TEST',
  availability: { kind: 'available' },
  breakers: [
    { environment: 'testecf', service: 'recepcion', state: 'closed', consecutiveFailures: 0, opensUntil: null },
  ],
  pending: { reception: 0, statusPolls: 2 },
};

export function sendingRoutes(sending: SendingService) {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/v1/documentos/:id/enviar',
      alias: '/api/v1/documents/:id/send',
      auth: { kind: 'apiKey', scope: 'documents:send' },
      docs: {
        operationId: 'sendDocument',
        summary: 'Queue a signed document for DGII (202); follow it with GET /documentos/:id',
        description:
          "A `signed` document becomes `queued`, its send due at once, in one transaction; the worker sends the archived signed bytes (a type 32 under DOP 250,000 as an RFCE) and the document moves to `in_process`, then to DGII's verdict. A document already queued, on its way or final answers 202 too, with `changed: false` and its current state: nothing is queued twice. A document in `send_failed` or `not_found` answers 409 `document_not_sendable`: use `reintentar`, which checks it is safe to send again.",
        tags: ['Sending'],
        examples: { response: envelopeExample(queuedExample) },
      },
      schema: { params: DocumentParams, response: { 202: Envelope(ref(SendAnswer)) } },
      handler: async (request, reply) =>
        reply
          .code(202)
          .send(envelope(request, unwrap(await sending.send(companyOf(request.principal), request.params.id)))),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/documentos/:id/actualizar-estado',
      alias: '/api/v1/documents/:id/refresh-status',
      auth: { kind: 'apiKey', scope: 'documents:send' },
      docs: {
        operationId: 'refreshDocumentStatus',
        summary: 'Ask DGII now where the document stands',
        description:
          'For a document `in_process`, asks DGII for the verdict of its trackId now instead of waiting for the next poll. For a send whose outcome was uncertain, asks DGII about the e-NCF now. Other states answer as they are (`changed: false`).',
        tags: ['Sending'],
        examples: {
          response: envelopeExample({
            ...queuedExample,
            status: 'accepted',
            changed: true,
            detail: 'DGII: Aceptado',
            trackId: '5f6a1c2e-8b7d-4e3f-9a01-2b3c4d5e6f70',
          }),
        },
      },
      schema: { params: DocumentParams, response: { 200: Envelope(ref(SendAnswer)) } },
      handler: async (request) =>
        envelope(request, unwrap(await sending.refresh(companyOf(request.principal), request.params.id))),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/documentos/:id/reintentar',
      alias: '/api/v1/documents/:id/retry',
      auth: { kind: 'apiKey', scope: 'documents:send' },
      docs: {
        operationId: 'retryDocument',
        summary:
          'Queue again a document that failed, that DGII has no record of, or that DGII rejected without consuming its e-NCF (202)',
        description:
          'Eligible: `send_failed`, `not_found`, and `rejected` when DGII said the e-NCF was not consumed (secuenciaUtilizada false). Any other state answers 409 `document_not_retryable` with the reason.',
        tags: ['Sending'],
        examples: {
          response: envelopeExample({ ...queuedExample, detail: 'queued for DGII again (POST reintentar)' }),
        },
      },
      schema: { params: DocumentParams, response: { 202: Envelope(ref(SendAnswer)) } },
      handler: async (request, reply) =>
        reply
          .code(202)
          .send(envelope(request, unwrap(await sending.retry(companyOf(request.principal), request.params.id)))),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/trabajos-fallidos',
      alias: '/api/v1/failed-jobs',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: {
        operationId: 'listFailedJobs',
        summary: 'Fiscal jobs that ran out of attempts, newest first (filter open)',
        description: 'A job closes when its document reaches a final state.',
        tags: ['Sending'],
        examples: { response: listExample([failedJobExample]) },
      },
      schema: { querystring: ListFailedJobsQuery, response: { 200: ListEnvelope(ref(FailedJobView)) } },
      handler: async (request) => {
        const page = unwrap(await sending.failedJobs(companyOf(request.principal), request.query));
        return listEnvelope(request, page.items, page.nextCursor);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/internal/health/dgii',
      auth: { kind: 'ops' },
      docs: {
        operationId: 'dgiiHealth',
        summary:
          "DGII's availability, the circuit breakers and the documents pending, for this instance's environment; sends nothing",
        tags: ['Operations'],
        examples: { response: { 'application/json': dgiiHealthExample } },
      },
      schema: { response: { 200: Type.Object({}, { additionalProperties: true }) } },
      handler: async () => sending.health(),
    }),
  ];
}
