// The catalogue of domain events, the closed list of event types webhooks deliver: the public names, what each means and the JSON schema of its
// `data`. This is the one place event names are mapped: the code records every event under the public name itself
// (the domain_events outbox), so the mapping is the identity; "document signed", for one, is
// `document.signed` (recorded when a document is created from JSON or handed in as signed XML). An event type
// recorded but not listed here is never delivered, so the outbox records only the types listed here, each with the
// payload its `data` schema describes (EventPayloads, platform/events/domain-events.ts).
import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';

const text = (description?: string) => Type.String(description === undefined ? {} : { description });
/**
 * An object whose payload may carry more than it lists: its schema says so, and its type too, which TypeBox's
 * Static does not derive from the option.
 */
const openObject = <Properties extends TProperties>(properties: Properties) =>
  Type.Object(properties, { additionalProperties: true }) as TObject<Properties> & { additionalProperties: true };
const DgiiMessages = Type.Array(
  Type.Object({ codigo: Type.Union([Type.String(), Type.Null()]), valor: Type.String() }),
  { description: "DGII's messages." },
);

const documentBase = {
  documentId: text('The document (doc_…).'),
  eNCF: text(),
  ecfType: text('31, 32, 33, 34, 41, 43, 44, 45, 46 or 47.'),
};
const documentVerdict = Type.Object({
  ...documentBase,
  status: text(),
  estado: Type.Union([Type.String(), Type.Null()], { description: "DGII's estado." }),
  mensajes: DgiiMessages,
});
const receivedBase = {
  receivedDocumentId: text('The received document.'),
  issuerRnc: text('RNCEmisor.'),
  eNCF: text(),
  ecfType: Type.Union([Type.String(), Type.Null()]),
};
const allocation = Type.Object({ allocationId: text(), ecfType: text(), deviceId: text() });
const annulment = Type.Object({
  annulmentId: text(),
  total: Type.Integer(),
  estado: Type.Union([Type.String(), Type.Null()]),
  mensajes: DgiiMessages,
});
const certification = Type.Object({ processId: text(), status: text() });
const archiveFinding = Type.Object({
  findingId: text('The finding (afn_…), as GET /internal/archive/findings lists it.'),
  kind: text('missing_blob, content_mismatch, bad_signature, record_mismatch or short_retention.'),
  severity: text('critical or warning.'),
  detail: text(),
  artefact: Type.Object({
    key: text('The object key in the archive.'),
    kind: Type.Union([Type.String(), Type.Null()], { description: 'signed-xml, received-xml, anecf-xml, …' }),
  }),
  owner: Type.Union(
    [
      Type.Object({ type: text('document, received_document, annulment or certification_case.'), id: text() }),
      Type.Null(),
    ],
    { description: 'What the artefact belongs to.' },
  ),
});

interface EventTypeEntry {
  description: string;
  data: TSchema;
}

export const eventTypes = {
  'document.signed': {
    description:
      'A document was created, signed and archived (from JSON or handed in as signed XML). Nothing was sent.',
    data: Type.Object({
      ...documentBase,
      status: Type.Literal('signed'),
      origin: Type.Optional(Type.Literal('signed_xml')),
    }),
  },
  'document.queued': {
    description: 'A document was queued for DGII (enviar or reintentar).',
    data: Type.Object({ ...documentBase, status: Type.Literal('queued') }),
  },
  'document.accepted': { description: 'DGII accepted the document.', data: documentVerdict },
  'document.accepted_conditional': {
    description: 'DGII accepted the document with observations (Aceptado Condicional).',
    data: documentVerdict,
  },
  'document.rejected': { description: 'DGII rejected the document.', data: documentVerdict },
  'document.send_failed': {
    description: 'Sending ran out of attempts (DGII unreachable or an unresolved outcome); eligible for reintentar.',
    data: Type.Object({ ...documentBase, reason: text(), attempts: Type.Integer() }),
  },
  'document.not_found': {
    description: 'DGII has no record of the trackId it gave; eligible for reintentar.',
    data: Type.Object({ ...documentBase, trackId: Type.Union([Type.String(), Type.Null()]) }),
  },
  'document.commercial_approval_received': {
    description: 'The buyer of one of our documents sent its commercial approval or rejection (ACECF).',
    data: Type.Object({
      ...documentBase,
      decision: Type.Union([Type.Literal('approved'), Type.Literal('rejected')]),
      reason: Type.Union([Type.String(), Type.Null()]),
      rncComprador: text(),
    }),
  },
  'document.delivered': {
    description:
      "The document reached its buyer: the buyer's receiver acknowledged it (ARECF Estado 0, or motivo 3 after an attempt whose answer was lost), or the mail server took the e-mail with the PDF and the signed XML.",
    data: Type.Object({
      ...documentBase,
      canal: Type.Union([Type.Literal('receptor'), Type.Literal('correo')]),
      destino: text("The receiver's URL or the e-mail address."),
      attempts: Type.Integer(),
      estado: Type.Union([Type.String(), Type.Null()], { description: 'ARECF Estado, for the receiver.' }),
      codigoMotivoNoRecibido: Type.Union([Type.String(), Type.Null()], {
        description: '3 when a duplicate acknowledgement closed it.',
      }),
      messageId: Type.Union([Type.String(), Type.Null()], { description: "The e-mail's Message-ID." }),
    }),
  },
  'document.not_received': {
    description:
      "The buyer's receiver answered that it did not receive the document (ARECF Estado 1), with the reason: 1 error de especificación, 2 error de firma digital, 4 RNC comprador no corresponde.",
    data: Type.Object({
      ...documentBase,
      destino: text("The receiver's URL."),
      attempts: Type.Integer(),
      codigoMotivoNoRecibido: text(),
    }),
  },
  'document.delivery_failed': {
    description:
      'Delivering the document to its buyer ran out of attempts, or the mail server refused the address for good; POST /documentos/:id/entregar starts it again.',
    data: Type.Object({
      ...documentBase,
      canal: Type.Union([Type.Literal('receptor'), Type.Literal('correo'), Type.Null()]),
      reason: text(),
      attempts: Type.Integer(),
    }),
  },
  'received_document.received': {
    description: 'An e-CF sent to the company was received and acknowledged (ARECF Estado 0).',
    data: Type.Object({ ...receivedBase, status: Type.Literal('received'), codigoMotivoNoRecibido: Type.Null() }),
  },
  'received_document.not_received': {
    description: 'An e-CF sent to the company was refused (ARECF Estado 1, with the reason code 1-4).',
    data: Type.Object({ ...receivedBase, status: Type.Literal('not_received'), codigoMotivoNoRecibido: text() }),
  },
  'received_document.commercial_response_created': {
    description: 'The company answered a received e-CF commercially: the ACECF is signed, archived and on its way.',
    data: Type.Object({
      ...receivedBase,
      decision: Type.Union([Type.Literal('approved'), Type.Literal('rejected')]),
      reason: Type.Union([Type.String(), Type.Null()]),
    }),
  },
  'received_document.commercial_response_delivered': {
    description: 'Our commercial response (ACECF) to a received e-CF was delivered to one target (the issuer or DGII).',
    data: openObject({ ...receivedBase, target: text('issuer or dgii.'), attempts: Type.Integer() }),
  },
  'received_document.commercial_response_failed': {
    description: 'Our commercial response (ACECF) to a received e-CF could not be delivered to one target.',
    data: openObject({ ...receivedBase, target: text('issuer or dgii.'), attempts: Type.Integer(), reason: text() }),
  },
  'annulment.accepted': { description: 'DGII accepted an annulment (ANECF) of unused numbers.', data: annulment },
  'annulment.rejected': { description: 'DGII rejected an annulment; its numbers are given back.', data: annulment },
  'annulment.failed': { description: 'DGII could not be reached for an annulment; reintentar.', data: annulment },
  'sequence.low_stock': {
    description: 'The numbers left of an e-CF type fell to the warning threshold (once per range).',
    data: Type.Object({ ecfType: text(), remaining: Type.Integer(), rangeId: text() }),
  },
  'sequence.expiring': {
    description: 'The range in use expires within the warning window (once per range).',
    data: Type.Object({ ecfType: text(), rangeId: text(), expiresOn: text('dd-MM-yyyy.') }),
  },
  'sequence.exhausted': {
    description: 'Every number of an e-CF type has been used (once per range).',
    data: Type.Object({ ecfType: text(), rangeId: text() }),
  },
  'allocation.reserved': {
    description: 'A block of e-NCF was reserved for offline use.',
    data: Type.Object({ allocationId: text(), ecfType: text(), deviceId: text(), from: text(), to: text() }),
  },
  'allocation.cancelled': {
    description: 'A reserved block was cancelled; its unused numbers await annulment.',
    data: allocation,
  },
  'allocation.expired': {
    description: 'A reserved block expired; its unused numbers await annulment.',
    data: allocation,
  },
  'certificate.expiring': {
    description: "The company's signing certificate expires within 30 days (once per certificate).",
    data: Type.Object({
      certificateId: text(),
      notAfter: Type.String({ format: 'date-time' }),
      daysLeft: Type.Integer(),
    }),
  },
  'certification.process_updated': {
    description: 'A certification process changed state (CERT).',
    data: certification,
  },
  'certification.step_updated': {
    description: 'A step of a certification process opened, was done or failed (CERT).',
    data: Type.Object({
      processId: text(),
      step: Type.Integer(),
      key: Type.Union([text(), Type.Null()]),
      status: text(),
    }),
  },
  'certification.case_updated': {
    description: 'A certification case changed state (CERT).',
    data: openObject({ processId: text(), caseKey: text(), status: text() }),
  },
  'archive.finding_opened': {
    description:
      "The archive verifier found one of the company's archived artefacts missing, altered, no longer verifying or not retained long enough.",
    data: archiveFinding,
  },
  'archive.finding_resolved': {
    description: 'A later check of the artefact passed: the archive finding is resolved.',
    data: archiveFinding,
  },
  'webhook.endpoint_disabled': {
    // How long an endpoint may fail is the webhooks module's setting, stated with the endpoint's failingSince.
    description:
      "One of the company's webhook endpoints was disabled: it answered 410, or failed without a success for longer than allowed (see the endpoint's failingSince).",
    data: Type.Object({ endpointId: text(), url: text(), reason: text() }),
  },
  'webhook.test': {
    description: 'A test delivery asked for with POST /notificaciones/:id/prueba; sent to that endpoint only.',
    data: Type.Object({ endpointId: text(), message: text() }),
  },
} as const satisfies Record<string, EventTypeEntry>;

export type EventType = keyof typeof eventTypes;

/** A schema's payload: the type of what it lists, and of anything more where it allows more (openObject). */
type PayloadOf<Schema extends TSchema> = Static<Schema> &
  (Schema extends { additionalProperties: true } ? Record<string, unknown> : unknown);

/** The payload of each event type, as its published schema describes it. */
export type EventPayloads = { [K in EventType]: PayloadOf<(typeof eventTypes)[K]['data']> };

export const eventTypeNames = Object.keys(eventTypes) as EventType[];

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(eventTypes, type);
}

/** Delivered only where asked for explicitly: never through an "every event" subscription. */
export const onDemandTypes: ReadonlySet<string> = new Set<EventType>(['webhook.test']);
