import { Type, type Static } from 'typebox';

export const taxpayerStatuses = [
  'active',
  'suspended',
  'deregistered',
  'temporarily_ceased',
  'annulled',
  'rejected',
  'other',
] as const;
export type TaxpayerStatus = (typeof taxpayerStatuses)[number];

export const TaxpayerParams = Type.Object({
  rnc: Type.String({ pattern: '^(\\d{9}|\\d{11})$', description: '9-digit RNC or 11-digit cédula, digits only.' }),
});

const nullableText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const ReceiverUrls = Type.Object(
  {
    reception: nullableText("Base URL where the taxpayer receives e-CF (urlRecepcion in DGII's directory)."),
    approval: nullableText('Base URL where it receives commercial approvals (urlAceptacion).'),
    authentication: nullableText('Its authentication host (urlOpcional).'),
  },
  { additionalProperties: false },
);

export const TaxpayerView = Type.Object(
  {
    rnc: Type.String({ description: 'The number looked up.' }),
    kind: Type.Union([Type.Literal('rnc'), Type.Literal('cedula')]),
    legalName: Type.String({ description: 'Nombre o razón social.' }),
    tradeName: nullableText('Nombre comercial.'),
    economicActivity: nullableText('Actividad económica, as DGII lists it.'),
    startedOn: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description: 'Start of operations (yyyy-mm-dd).',
    }),
    status: Type.Enum(taxpayerStatuses, { description: "The registry status, mapped from DGII's." }),
    dgiiStatus: Type.String({
      description: 'The status as DGII writes it (ACTIVO, SUSPENDIDO, DADO DE BAJA, CESE TEMPORAL, ...).',
    }),
    paymentRegime: nullableText('Régimen de pagos as DGII writes it (NORMAL, RST, PST, ...).'),
    electronicIssuer: Type.Union([Type.Boolean(), Type.Null()], {
      description: "Listed in DGII's directory of electronic issuers; null when the directory could not be asked.",
    }),
    receiverUrls: Type.Union([ReceiverUrls, Type.Null()], { description: "From DGII's directory, when known." }),
    registryUpdatedAt: Type.String({
      format: 'date-time',
      description: "When this entry last changed in an import of DGII's listing.",
    }),
  },
  { $id: 'TaxpayerView' },
);
export type TaxpayerView = Static<typeof TaxpayerView>;

export const taxpayerSchemas = [TaxpayerView];
