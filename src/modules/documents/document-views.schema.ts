// The derived views of a document (SPEC §4.2): the model rebuilt from the archived signed XML with its integrity,
// and the timeline. The printed representation's data is the printing module's (printable.schema.ts).
import { Type, type Static } from 'typebox';
import { ref } from '../../platform/http/schema-ref.js';

export const DocumentIntegrity = Type.Object(
  {
    sha256: Type.Union([Type.String(), Type.Null()], {
      description: 'SHA-256 (hex) of the bytes in storage now; null when the blob is gone.',
    }),
    recordedSha256: Type.String({ description: 'The SHA-256 recorded when the artefact was archived.' }),
    sha256Matches: Type.Boolean(),
    signatureValid: Type.Boolean({
      description: 'The XMLDSig enveloped signature still verifies over the stored bytes.',
    }),
    signatureProblems: Type.Array(Type.Object({ code: Type.String(), message: Type.String() })),
    recordMatches: Type.Boolean({
      description: 'The e-NCF, type, dates, total and security code in the XML equal those recorded for the document.',
    }),
    recordMismatches: Type.Array(Type.String(), { description: 'Which of those differ.' }),
  },
  { $id: 'DocumentIntegrity' },
);

export const NormalizedDocument = Type.Object(
  {
    id: Type.String(),
    eNCF: Type.String(),
    artefact: Type.Object({ type: Type.Literal('signed-xml'), version: Type.Integer() }),
    document: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description:
        'The DGII-shaped model read back from the signed XML: element names as keys, every value the text as written, Signature left out. Null when the stored bytes are no longer a readable e-CF.',
    }),
    readFindings: Type.Array(Type.Object({ pointer: Type.String(), code: Type.String(), detail: Type.String() }), {
      description: 'Why the stored bytes could not be read back, when document is null.',
    }),
    integrity: ref(DocumentIntegrity),
  },
  {
    $id: 'NormalizedDocument',
    examples: [
      {
        id: 'doc_01JDZ8Y3K2M4N5P6Q7R8S9T0VW',
        eNCF: 'E310000000001',
        artefact: { type: 'signed-xml', version: 1 },
        document: {
          Encabezado: { Version: '1.0', IdDoc: { TipoeCF: '31', eNCF: 'E310000000001' } },
          FechaHoraFirma: '21-11-2026 10:30:00',
        },
        readFindings: [],
        integrity: {
          sha256: '9f86d0…',
          recordedSha256: '9f86d0…',
          sha256Matches: true,
          signatureValid: true,
          signatureProblems: [],
          recordMatches: true,
          recordMismatches: [],
        },
      },
    ],
  },
);
export type NormalizedDocument = Static<typeof NormalizedDocument>;

export const TimelineEvent = Type.Object(
  {
    at: Type.String({ format: 'date-time' }),
    type: Type.String({ description: 'e.g. created, submitted, status_changed.' }),
    status: Type.Union([Type.String(), Type.Null()], {
      description: 'The state the document entered, when the event changed it.',
    }),
    cause: Type.String(),
    correlationId: Type.Union([Type.String(), Type.Null()], {
      description:
        'The X-Correlation-ID of the request, or the id of the work, that recorded it (a send, a poll and a delivery carry the id of the request that queued them); null for events recorded before ids were kept.',
    }),
  },
  { $id: 'TimelineEvent' },
);

export const DocumentTimeline = Type.Object(
  {
    id: Type.String(),
    eNCF: Type.String(),
    status: Type.String({ description: 'The current state.' }),
    events: Type.Array(ref(TimelineEvent), { description: 'Oldest first.' }),
  },
  {
    $id: 'DocumentTimeline',
    examples: [
      {
        id: 'doc_01JDZ8Y3K2M4N5P6Q7R8S9T0VW',
        eNCF: 'E310000000001',
        status: 'signed',
        events: [
          {
            at: '2026-11-21T14:30:00.000Z',
            type: 'created',
            status: 'signed',
            cause: 'created from JSON; e-NCF E310000000001 taken, signed',
            correlationId: 'abc-123',
          },
        ],
      },
    ],
  },
);
export type DocumentTimeline = Static<typeof DocumentTimeline>;

export const documentViewSchemas = [DocumentIntegrity, NormalizedDocument, TimelineEvent, DocumentTimeline];
