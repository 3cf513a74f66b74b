import { Type, type Static } from 'typebox';
import { ref } from '../../platform/http/schema-ref.js';
import { ReceivedDocumentView } from './received.schema.js';

/** DetalleMotivoRechazo's limit (Formato Aprobación Comercial v1.0, field 8). */
export const maxRejectionReason = 250;

export const CommercialResponseRequest = Type.Object(
  {
    decision: Type.String({
      enum: ['approved', 'rejected'],
      description: 'approved: ACECF Estado 1 (e-CF Aceptado); rejected: Estado 2 (e-CF Rechazado).',
    }),
    reason: Type.Optional(
      Type.String({
        description: `DetalleMotivoRechazo: required when rejected, at most ${String(maxRejectionReason)} characters (422 commercial_response_invalid naming /reason otherwise); not allowed when approved.`,
      }),
    ),
  },
  { additionalProperties: false, $id: 'CommercialResponseRequest' },
);
export type CommercialResponseRequest = Static<typeof CommercialResponseRequest>;

export const ResponseDeliveryView = Type.Object(
  {
    target: Type.String({
      enum: ['issuer', 'dgii'],
      description:
        "issuer: the e-CF issuer's receiver (aprobacioncomercial, found in DGII's directory); dgii: DGII's ACECF service.",
    }),
    status: Type.String({
      enum: ['pending', 'delivered', 'failed', 'exhausted'],
      description: 'failed: the last attempt failed and another is scheduled; exhausted: no attempts left.',
    }),
    attempts: Type.Integer(),
    lastError: Type.Union([Type.String(), Type.Null()]),
    url: Type.Union([Type.String(), Type.Null()], { description: 'Where it was last sent.' }),
    nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    answer: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: "What the other side answered last: HTTP status, and DGII's estado, codigo and mensajes.",
    }),
  },
  { $id: 'ResponseDeliveryView' },
);

export const CommercialResponseView = Type.Object(
  {
    decision: Type.String({ enum: ['approved', 'rejected'] }),
    reason: Type.Union([Type.String(), Type.Null()]),
    fechaHoraAprobacionComercial: Type.String({ description: 'dd-MM-yyyy HH:mm:ss (GMT-4), as signed.' }),
    createdAt: Type.String({ format: 'date-time' }),
    deliveries: Type.Array(ref(ResponseDeliveryView)),
  },
  { $id: 'CommercialResponseView' },
);
export type CommercialResponseView = Static<typeof CommercialResponseView>;

/** The received document as GET /recibidos/:id shows it, with its commercial response and deliveries. */
export const ReceivedWithResponseView = Type.Object(
  { ...ReceivedDocumentView.properties, commercialResponse: Type.Union([ref(CommercialResponseView), Type.Null()]) },
  { $id: 'ReceivedWithResponseView' },
);
export type ReceivedWithResponseView = Static<typeof ReceivedWithResponseView>;

export const outgoingResponseSchemas = [
  CommercialResponseRequest,
  ResponseDeliveryView,
  CommercialResponseView,
  ReceivedWithResponseView,
];
