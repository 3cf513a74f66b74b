// POST /documentos/:id/entregar: deliver a document to its buyer again (buyer-delivery.service.ts).
import { Type } from 'typebox';
import { Envelope, envelope, envelopeExample } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { DocumentView, documentViewExample } from '../documents/index.js';
import type { BuyerDeliveryService } from './buyer-delivery.service.js';

const DocumentParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const DeliverBody = Type.Union([
  Type.Object(
    {
      correo: Type.Optional(
        Type.String({
          format: 'email',
          maxLength: 254,
          description: "Send it by e-mail to this address instead of the buyer's receiver or CorreoComprador.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

const deliveringExample = {
  ...documentViewExample,
  status: 'accepted',
  entrega: {
    canal: null,
    status: 'pending',
    attempts: 0,
    lastError: null,
    reason: null,
    destino: null,
    acuseRecibo: null,
    messageId: null,
    nextAttemptAt: '2026-11-27T14:31:00.000Z',
    deliveredAt: null,
    updatedAt: '2026-11-27T14:31:00.000Z',
  },
};

export function buyerDeliveryRoutes(service: BuyerDeliveryService) {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/v1/documentos/:id/entregar',
      alias: '/api/v1/documents/:id/deliver',
      auth: { kind: 'apiKey', scope: 'documents:send' },
      docs: {
        operationId: 'deliverDocument',
        summary: 'Deliver an accepted document to its buyer again (202); follow `entrega` on GET /documentos/:id',
        description:
          "Every document DGII accepts goes to its buyer by itself (unless the company turned that off): types 31, 33, 34 and 44 to the buyer's electronic receiver when DGII's directory lists the buyer, with the receiver's signed ARECF kept as the arecf-xml artefact; anyone else with a CorreoComprador by e-mail with the PDF and the signed XML. This route delivers again: after `failed` or `not_received`, when the buyer has joined the directory, or by e-mail to the address `correo` names. Its attempts count from zero and an open failed job closes. A document DGII has not accepted, or a replacement of an NCF issued in contingency (it goes to DGII only), answers 409 `document_not_deliverable`.",
        tags: ['Sending'],
        examples: {
          request: { correo: 'cuentas.por.pagar@cliente.example' },
          response: envelopeExample(deliveringExample),
        },
      },
      schema: { params: DocumentParams, body: DeliverBody, response: { 202: Envelope(ref(DocumentView)) } },
      handler: async (request, reply) =>
        reply.code(202).send(
          envelope(
            request,
            unwrap(
              await service.deliver(companyOf(request.principal), request.params.id, {
                correo: request.body?.correo,
              }),
            ),
          ),
        ),
    }),
  ];
}
