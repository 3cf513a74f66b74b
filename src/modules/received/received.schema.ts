import { Type, type Static } from 'typebox';
import { ListQuery } from '../../platform/http/list-query.js';
import { ref } from '../../platform/http/schema-ref.js';
import { receivedArtefactKinds } from './artefacts.js';

export const receivedStatuses = ['received', 'not_received'] as const;
const receivedTypes = ['31', '33', '34', '44'];

export const ReceivedArtefactSummary = Type.Object(
  {
    type: Type.String({ enum: [...receivedArtefactKinds] }),
    version: Type.Integer(),
    sha256: Type.String(),
    size: Type.Integer(),
    contentType: Type.String(),
  },
  { $id: 'ReceivedArtefactSummary' },
);

export const ReceivedEvent = Type.Object(
  {
    at: Type.String({ format: 'date-time' }),
    type: Type.String(),
    status: Type.Union([Type.String(), Type.Null()]),
    cause: Type.String(),
    correlationId: Type.Union([Type.String(), Type.Null()], {
      description:
        'The X-Correlation-ID of the request, or the id of the work, that recorded it (a delivery of the commercial response carries the id of the request that made it); null for events recorded before ids were kept.',
    }),
  },
  { $id: 'ReceivedEvent' },
);

export const ReceivedDocumentView = Type.Object(
  {
    id: Type.String(),
    status: Type.String({
      enum: [...receivedStatuses],
      description: 'received: the ARECF answered Estado 0; not_received: Estado 1 with reasonCode.',
    }),
    issuer: Type.Object({ rnc: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }),
    eNCF: Type.String(),
    ecfType: Type.Union([Type.String(), Type.Null()], {
      description: 'Null when the document could not be read as an e-CF.',
    }),
    rncComprador: Type.Union([Type.String(), Type.Null()]),
    fechaEmision: Type.Union([Type.String(), Type.Null()], { description: 'dd-MM-yyyy, as written in the e-CF.' }),
    montoTotal: Type.Union([Type.String(), Type.Null()], { description: 'As written in the e-CF.' }),
    totalITBIS: Type.Union([Type.String(), Type.Null()]),
    receivedAt: Type.String({ format: 'date-time' }),
    arecf: Type.Object(
      {
        estado: Type.String({ enum: ['0', '1'], description: '0: e-CF Recibido; 1: e-CF No Recibido.' }),
        codigoMotivoNoRecibido: Type.Union([Type.String({ enum: ['1', '2', '3', '4'] }), Type.Null()], {
          description:
            '1 Error de especificación, 2 Error de Firma Digital, 3 Envío duplicado, 4 RNC Comprador no corresponde.',
        }),
        motivo: Type.Union([Type.String(), Type.Null()]),
      },
      {
        description: 'The acknowledgement (ARECF) answered to the issuer; its signed bytes are the arecf-xml artefact.',
      },
    ),
    commercialStatus: Type.Union([Type.String({ enum: ['approved', 'rejected'] }), Type.Null()], {
      description: 'The commercial response (ACECF) given, if any.',
    }),
    artefacts: Type.Array(ref(ReceivedArtefactSummary)),
    timeline: Type.Optional(
      Type.Array(ref(ReceivedEvent), {
        description: 'Every event of the document, oldest first (on GET of one document).',
      }),
    ),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'ReceivedDocumentView' },
);
export type ReceivedDocumentView = Static<typeof ReceivedDocumentView>;

const calendarDay = '^\\d{4}-\\d{2}-\\d{2}$';

export const ListReceivedQuery = ListQuery({
  issuerRnc: Type.Optional(
    Type.String({ pattern: '^(\\d{9}|\\d{11})$', description: 'Only documents from this issuer (RNC or cédula).' }),
  ),
  ecfType: Type.Optional(Type.String({ enum: receivedTypes })),
  status: Type.Optional(Type.String({ enum: [...receivedStatuses] })),
  receivedFrom: Type.Optional(
    Type.String({ pattern: calendarDay, description: 'yyyy-MM-dd (GMT-4): received on or after this day.' }),
  ),
  receivedTo: Type.Optional(
    Type.String({ pattern: calendarDay, description: 'yyyy-MM-dd (GMT-4): received on or before this day.' }),
  ),
});
export type ListReceivedQuery = Static<typeof ListReceivedQuery>;

export const receivedSchemas = [ReceivedArtefactSummary, ReceivedEvent, ReceivedDocumentView];

/** A received e-CF as the API shows it (the contract's examples). */
export const receivedExample = {
  id: 'rcv_PBE9c3GEjRmquYmuro13',
  status: 'received',
  issuer: { rnc: '130123454', name: 'Distribuidora Ejemplo, S.R.L.' },
  eNCF: 'E310000004343',
  ecfType: '31',
  rncComprador: '999999992',
  fechaEmision: '25-11-2026',
  montoTotal: '1430.00',
  totalITBIS: '180.00',
  receivedAt: '2026-11-27T14:30:00.000Z',
  arecf: { estado: '0', codigoMotivoNoRecibido: null, motivo: null },
  commercialStatus: null,
  artefacts: [
    {
      type: 'received-xml',
      version: 1,
      sha256: 'a9b7a9383ff130cd53889eb086bad2c084bf4beb9b19416b9fd6d715ddf42aa7',
      size: 4146,
      contentType: 'application/xml',
    },
    {
      type: 'arecf-xml',
      version: 1,
      sha256: '0f33adc6b35858376c706c428759894c37e06cab81e95e459d136f070cf88198',
      size: 2460,
      contentType: 'application/xml',
    },
  ],
  updatedAt: '2026-11-27T14:30:00.000Z',
};
