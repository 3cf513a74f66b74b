import { Type, type Static } from 'typebox';
import { ListQuery } from '../../platform/http/list-query.js';
import { ref } from '../../platform/http/schema-ref.js';
import { artefactKinds } from './artefacts.js';
import { documentViewSchemas } from './document-views.schema.js';

const statuses = [
  'signed',
  'queued',
  'sending',
  'in_process',
  'accepted',
  'accepted_conditional',
  'rejected',
  'send_failed',
  'not_found',
];
const ecfTypes = ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'];

/** The body of document creation: the DGII-shaped JSON of the e-CF (the fiscal core checks it, with JSON pointers).
 * The contract shows the union of the per-type schemas instead (catalogues/ecf-contract.ts). */
export const EcfDocumentBody = Type.Object(
  {},
  {
    $id: 'EcfDocumentBody',
    additionalProperties: true,
    description:
      "The e-CF as DGII-shaped JSON: the XML element names as keys (Encabezado, IdDoc, DetallesItems.Item[], ...), repeated elements as arrays, amounts as decimal strings (numbers accepted exactly). Leave out eNCF, FechaVencimientoSecuencia and FechaHoraFirma (the service sets them); Emisor defaults from the company profile, and Totales and each line's MontoItem are computed from the lines when left out.",
  },
);

export const ArtefactSummary = Type.Object(
  {
    type: Type.String({ enum: [...artefactKinds] }),
    version: Type.Integer(),
    sha256: Type.String(),
    size: Type.Integer(),
    contentType: Type.String(),
  },
  { $id: 'ArtefactSummary' },
);

export const DocumentWarning = Type.Object(
  { pointer: Type.String(), code: Type.String(), detail: Type.String() },
  { $id: 'DocumentWarning' },
);

export const DgiiMessage = Type.Object(
  { codigo: Type.Union([Type.String(), Type.Null()]), valor: Type.String() },
  { $id: 'DgiiMessage' },
);

export const DocumentDgiiState = Type.Object(
  {
    route: Type.String({
      enum: ['reception', 'rfce'],
      description:
        'reception: sent to DGII reception and followed by trackId; rfce: a type 32 under DOP 250,000, summarised as an RFCE (the full e-CF stays archived).',
    }),
    attempts: Type.Integer({ description: 'Attempts to deliver it so far.' }),
    trackId: Type.Union([Type.String(), Type.Null()]),
    estado: Type.Union([Type.String(), Type.Null()], {
      description: "DGII's estado as DGII wrote it (Aceptado, Aceptado Condicional, Rechazado, En Proceso).",
    }),
    codigo: Type.Union([Type.String(), Type.Null()]),
    mensajes: Type.Array(ref(DgiiMessage), { description: "DGII's messages, as DGII wrote them." }),
    secuenciaUtilizada: Type.Union([Type.Boolean(), Type.Null()], {
      description: 'false: DGII did not consume the e-NCF (a corrected document may use it again).',
    }),
    sentAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    finalAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'DocumentDgiiState' },
);

export const DocumentCommercialResponse = Type.Object(
  {
    decision: Type.String({
      enum: ['approved', 'rejected'],
      description: "The buyer's ACECF Estado: 1 e-CF Aceptado (approved), 2 e-CF Rechazado (rejected).",
    }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'DetalleMotivoRechazo, for a rejection.' }),
    rncComprador: Type.String(),
    fechaHoraAprobacionComercial: Type.Union([Type.String(), Type.Null()], {
      description: 'As the buyer wrote it: dd-MM-yyyy HH:mm:ss, GMT-4.',
    }),
    receivedAt: Type.String({ format: 'date-time' }),
    sha256: Type.String({ description: 'SHA-256 of the ACECF as received: the acecf-xml artefact.' }),
  },
  { $id: 'DocumentCommercialResponse' },
);

/** A delivery's channel (document_deliveries.channel) as the API, the events and the metrics name it. */
export const deliveryChannelNames = { receiver: 'receptor', email: 'correo', none: 'ninguno' } as const;

/** The states of a delivery to the buyer (migration 0024), for the view and the list's `entrega` filter. */
export const deliveryStatuses = ['pending', 'delivered', 'not_received', 'failed', 'skipped'];

export const DocumentDelivery = Type.Object(
  {
    canal: Type.Union([Type.String({ enum: ['receptor', 'correo', 'ninguno'] }), Type.Null()], {
      description:
        "receptor: the buyer's electronic receiver, found in DGII's directory (types 31, 33, 34, 44); correo: e-mail with the PDF and the signed XML; ninguno: neither applies (reason says why); null until the first attempt chose.",
    }),
    status: Type.String({
      enum: deliveryStatuses,
      description:
        "pending: waiting for its next attempt; delivered: the receiver acknowledged it (ARECF Estado 0, or 1 with motivo 3 after an attempt of ours whose answer was lost) or the mail server took the e-mail; not_received: the receiver's ARECF says Estado 1 (motivo 1, 2 or 4); failed: no attempt left, or an address refused for good (entregar starts it again); skipped: nothing to deliver (reason says why).",
    }),
    attempts: Type.Integer({ description: 'Attempts so far (started again by entregar).' }),
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed, in words.' }),
    reason: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why it ended as it did, when that is not plain (no channel, a duplicate acknowledged, delivery off).',
    }),
    destino: Type.Union([Type.String(), Type.Null()], {
      description: "Where the last attempt went: the receiver's URL, or the e-mail address.",
    }),
    acuseRecibo: Type.Union(
      [
        Type.Object({
          estado: Type.String({ description: 'ARECF Estado: 0 e-CF Recibido, 1 e-CF No Recibido.' }),
          codigoMotivoNoRecibido: Type.Union([Type.String(), Type.Null()], {
            description:
              '1 error de especificación, 2 error de firma digital, 3 envío duplicado, 4 RNC comprador no corresponde.',
          }),
          fechaHoraAcuseRecibo: Type.Union([Type.String(), Type.Null()], {
            description: 'As the receiver wrote it: dd-MM-yyyy HH:mm:ss, GMT-4.',
          }),
          version: Type.Integer({ description: 'The version of the arecf-xml artefact that holds it, signed.' }),
        }),
        Type.Null(),
      ],
      { description: "The buyer's receiver's signed acknowledgement (ARECF), as archived; null for other channels." },
    ),
    messageId: Type.Union([Type.String(), Type.Null()], { description: "The e-mail's Message-ID, once sent." }),
    nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'DocumentDelivery' },
);
export type DocumentDelivery = Static<typeof DocumentDelivery>;

export const DocumentView = Type.Object(
  {
    id: Type.String(),
    status: Type.String({ enum: statuses }),
    ecfType: Type.String(),
    eNCF: Type.String(),
    fechaEmision: Type.String({ description: 'dd-MM-yyyy' }),
    rncComprador: Type.Union([Type.String(), Type.Null()]),
    montoTotal: Type.String({ description: 'As written in the e-CF.' }),
    totalITBIS: Type.Union([Type.String(), Type.Null()]),
    securityCode: Type.String({ description: 'The first six characters of the SignatureValue (CodigoSeguridad).' }),
    fechaHoraFirma: Type.String({ description: 'dd-MM-yyyy HH:mm:ss, GMT-4.' }),
    timbreUrl: Type.String({
      description: "DGII's QR URL (ConsultaTimbre, or ConsultaTimbreFC for type 32 under DOP 250,000).",
    }),
    warnings: Type.Array(ref(DocumentWarning), {
      description: 'Totals beyond DGII tolerance: DGII would answer Aceptado Condicional.',
    }),
    dgii: Type.Union([ref(DocumentDgiiState), Type.Null()], {
      description: 'Where delivery to DGII stands; null until the document is sent (POST /documentos/:id/enviar).',
    }),
    commercialResponse: Type.Union([ref(DocumentCommercialResponse), Type.Null()], {
      description:
        "The buyer's commercial approval or rejection (ACECF), received at the receiver route; null until one arrives.",
    }),
    entrega: Type.Union([ref(DocumentDelivery), Type.Null()], {
      description:
        "Its delivery to the buyer, after DGII's acceptance (POST /documentos/:id/entregar delivers again); null until one is due.",
    }),
    artefacts: Type.Array(ref(ArtefactSummary)),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'DocumentView' },
);
export type DocumentView = Static<typeof DocumentView>;

export const DocumentFinding = Type.Object(
  {
    pointer: Type.String({ description: 'JSON pointer into the body sent (/DetallesItems/Item/0/MontoItem).' }),
    code: Type.String(),
    severity: Type.String({
      enum: ['error', 'warning'],
      description:
        'error: creation refuses the e-CF with it (422 document_invalid); warning: creation takes the e-CF and lists it in warnings (totals beyond DGII tolerance: DGII would answer Aceptado Condicional).',
    }),
    detail: Type.String(),
  },
  { $id: 'DocumentFinding' },
);

const amounts = (description: string) =>
  Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], { description });

export const DocumentPreview = Type.Object(
  {
    valid: Type.Boolean({
      description:
        'No finding is an error: POST /documentos takes this body as it stands (given a certificate and a free e-NCF, which a preview does not look at).',
    }),
    ecfType: Type.Union([Type.String(), Type.Null()], { description: 'TipoeCF; null while it is not an e-CF type.' }),
    fechaEmision: Type.Union([Type.String(), Type.Null()], {
      description: 'dd-MM-yyyy, as the e-CF would carry it: today (GMT-4) when left out.',
    }),
    montoTotal: Type.Union([Type.String(), Type.Null()], {
      description: 'MontoTotal as the created document would show it; null while it cannot be computed.',
    }),
    totalITBIS: Type.Union([Type.String(), Type.Null()]),
    totales: amounts(
      'The amounts of Totales the e-CF would carry (DGII element names, decimal strings): those sent as written, the rest computed from the lines, e.g. MontoGravadoTotal, MontoGravadoI1, ITBIS1, TotalITBIS, TotalITBIS1, MontoExento, MontoImpuestoAdicional, MontoTotal. Null while the lines cannot be read (the findings say why).',
    ),
    otraMoneda: amounts('The same for OtraMoneda (TipoMoneda, TipoCambio, MontoTotalOtraMoneda, …); null without one.'),
    lineas: Type.Array(
      Type.Object({
        numeroLinea: Type.String(),
        montoItem: Type.String({
          description:
            'MontoItem as sent or, where left out, CantidadItem × PrecioUnitarioItem − DescuentoMonto + RecargoMonto, to the cent.',
        }),
        montoItemOtraMoneda: Type.Union([Type.String(), Type.Null()]),
      }),
      { description: 'Each line the totals were computed from, in order; a line that cannot be read is left out.' },
    ),
    findings: Type.Array(ref(DocumentFinding), {
      description: 'What creation would say of the body: its errors and its warnings, at the fields.',
    }),
  },
  { $id: 'DocumentPreview' },
);
export type DocumentPreview = Static<typeof DocumentPreview>;

const calendarDay = '^\\d{4}-\\d{2}-\\d{2}$';

export const ListDocumentsQuery = ListQuery({
  status: Type.Optional(Type.String({ enum: statuses })),
  ecfType: Type.Optional(Type.String({ enum: ecfTypes })),
  entrega: Type.Optional(
    Type.String({ enum: deliveryStatuses, description: 'Documents whose delivery to the buyer is in this state.' }),
  ),
  eNCF: Type.Optional(
    Type.String({ pattern: '^E\\d{12}$', description: 'The document with this e-NCF (e.g. E310000000001).' }),
  ),
  rncComprador: Type.Optional(
    Type.String({
      pattern: '^(\\d{9}|\\d{11})$',
      description: 'Documents to this buyer: the RNCComprador, a 9-digit RNC or an 11-digit cédula, digits only.',
    }),
  ),
  desde: Type.Optional(
    Type.String({
      pattern: calendarDay,
      description: 'yyyy-MM-dd: documents whose FechaEmision (a GMT-4 day) is this day or later.',
    }),
  ),
  hasta: Type.Optional(
    Type.String({
      pattern: calendarDay,
      description: 'yyyy-MM-dd: documents whose FechaEmision is this day or earlier; not before desde.',
    }),
  ),
});
export type ListDocumentsQuery = Static<typeof ListDocumentsQuery>;

export const documentSchemas = [
  EcfDocumentBody,
  ArtefactSummary,
  DocumentWarning,
  DgiiMessage,
  DocumentDgiiState,
  DocumentCommercialResponse,
  DocumentDelivery,
  DocumentView,
  DocumentFinding,
  DocumentPreview,
  ...documentViewSchemas,
];

/** A document as the API shows it right after creation (the contract's examples). */
export const documentViewExample = {
  id: 'doc_ebhJdvnWMDXrZRIjCpH0',
  status: 'signed',
  ecfType: '31',
  eNCF: 'E310000000001',
  fechaEmision: '27-11-2026',
  rncComprador: '130123454',
  montoTotal: '1180.00',
  totalITBIS: '180.00',
  securityCode: 'G1r8Bd',
  fechaHoraFirma: '27-11-2026 10:30:00',
  timbreUrl:
    'https://ecf.dgii.gov.do/testecf/ConsultaTimbre?RncEmisor=999999992&RncComprador=130123454&ENCF=E310000000001&FechaEmision=27-11-2026&MontoTotal=1180.00&FechaFirma=27-11-2026%2010:30:00&CodigoSeguridad=G1r8Bd',
  warnings: [],
  dgii: null,
  commercialResponse: null,
  entrega: null,
  artefacts: [
    {
      type: 'signed-xml',
      version: 1,
      sha256: '9ab372f628f470f2ddc7c8fd1a3bad069adb73fb932d442b66d53bd1883e806f',
      size: 3341,
      contentType: 'application/xml',
    },
  ],
  createdAt: '2026-11-27T14:30:00.000Z',
  updatedAt: '2026-11-27T14:30:00.000Z',
};

/** The preview of the contract's e-CF 31 example: one line of 1,000.00 at 18 %. */
export const documentPreviewExample = {
  valid: true,
  ecfType: '31',
  fechaEmision: '27-11-2026',
  montoTotal: '1180.00',
  totalITBIS: '180.00',
  totales: {
    MontoGravadoTotal: '1000.00',
    MontoGravadoI1: '1000.00',
    ITBIS1: '18',
    TotalITBIS: '180.00',
    TotalITBIS1: '180.00',
    MontoTotal: '1180.00',
  },
  otraMoneda: null,
  lineas: [{ numeroLinea: '1', montoItem: '1000.00', montoItemOtraMoneda: null }],
  findings: [],
};
