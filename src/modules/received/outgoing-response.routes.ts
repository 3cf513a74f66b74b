import { Type } from 'typebox';
import { Envelope, envelope, envelopeExample } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { CommercialResponseRequest, ReceivedWithResponseView } from './outgoing-response.schema.js';
import { receivedExample } from './received.schema.js';
import type { OutgoingResponses } from './outgoing-response.service.js';

const ReceivedParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export function outgoingResponseRoutes(responses: OutgoingResponses) {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/v1/recibidos/:id/respuesta-comercial',
      alias: '/api/v1/received/:id/commercial-response',
      auth: { kind: 'apiKey', scope: 'documents:send' },
      docs: {
        operationId: 'respondCommercially',
        summary:
          'Approve or reject a received e-CF commercially: signs an ACECF and delivers it to the issuer and DGII (202)',
        description:
          "Only for a received document acknowledged with ARECF Estado 0 (else 409 `received_not_accepted`) whose type takes a commercial approval (else 422 `acecf_not_applicable`). The ACECF is built from the e-CF (RNCEmisor, eNCF, FechaEmision, MontoTotal), signed with the company's certificate, checked against DGII's ACECF.xsd and archived as the `acecf-xml` artefact; then jobs deliver those bytes to the issuer's receiver (its `aprobacioncomercial` URL from DGII's directory, authenticating with its seed flow when it offers one) and to DGII's ACECF service, each with its own state, retries and timeline events. A commercial response is made once: the same request again answers 200 with the response already made; a different one is 409 `commercial_response_exists` naming the first decision.",
        tags: ['Received documents'],
        examples: {
          request: { decision: 'approved' },
          response: envelopeExample({
            ...receivedExample,
            commercialStatus: 'approved',
            commercialResponse: {
              decision: 'approved',
              reason: null,
              fechaHoraAprobacionComercial: '27-11-2026 10:45:00',
              createdAt: '2026-11-27T14:45:00.000Z',
              deliveries: [
                {
                  target: 'issuer',
                  status: 'pending',
                  attempts: 0,
                  lastError: null,
                  url: 'https://fe.distribuidora-ejemplo.com.do/fe/aprobacioncomercial/api/ecf',
                  nextAttemptAt: null,
                  deliveredAt: null,
                  answer: null,
                },
              ],
            },
          }),
        },
      },
      schema: {
        params: ReceivedParams,
        body: CommercialResponseRequest,
        response: { 200: Envelope(ref(ReceivedWithResponseView)), 202: Envelope(ref(ReceivedWithResponseView)) },
      },
      handler: async (request, reply) => {
        const made = unwrap(await responses.respond(companyOf(request.principal), request.params.id, request.body));
        return reply.code(made.created ? 202 : 200).send(envelope(request, made.view));
      },
    }),
  ];
}
