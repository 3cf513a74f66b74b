// The data of the printed representation (RI) of an e-CF (Informe Técnico e-CF §17), as GET …/impresion answers
// it in JSON and as the PDF prints it.
import { Type, type Static } from 'typebox';
import { ref } from '../../platform/http/schema-ref.js';

const Code = Type.Object(
  { code: Type.String(), name: Type.String({ description: 'In words, from the DGII catalogue.' }) },
  { $id: 'CatalogueValue' },
);

const Legend = Type.Object(
  {
    code: Type.String({
      description:
        'Stable: type_name, encf, sequence_expiry, modified_encf, modification_code, security_code, signature_date, deferred_sending, contingency.',
    }),
    text: Type.String({ description: 'The text to print, in Spanish as DGII words it (Informe Técnico e-CF §17.2).' }),
  },
  { $id: 'PrintableLegend' },
);

const PrintableAmount = Type.Object(
  {
    code: Type.String({ description: 'The DGII element the amount comes from, e.g. MontoTotal.' }),
    label: Type.String({ description: 'The label printed beside it.' }),
    amount: Type.String(),
  },
  { $id: 'PrintableAmount' },
);

const PrintableLine = Type.Object(
  {
    lineNumber: Type.String(),
    billingIndicator: Type.String({ description: 'IndicadorFacturacion.' }),
    exempt: Type.Boolean({ description: 'IndicadorFacturacion 4: print "E" left of the description.' }),
    mark: Type.Union([Type.Literal('E'), Type.Null()]),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    quantity: Type.String(),
    unit: Type.Union([ref(Code), Type.Null()]),
    unitPrice: Type.String(),
    discount: Type.Union([Type.String(), Type.Null()]),
    surcharge: Type.Union([Type.String(), Type.Null()]),
    amount: Type.String({ description: "MontoItem: the 'Valor' column." }),
    itbis: Type.Union([Type.String(), Type.Null()], {
      description:
        "The line's ITBIS, which the XML does not carry: MontoItem at its indicator's rate (the part that is ITBIS when prices include it). Shown only; totals are the XML's.",
    }),
  },
  { $id: 'PrintableLine' },
);

export const PrintableDocument = Type.Object(
  {
    id: Type.String(),
    status: Type.String(),
    ecfType: Type.String(),
    typeName: Type.String({
      description: 'The type in words as Ley 32-23 and the Informe Técnico name it, printed top right.',
    }),
    eNCF: Type.String(),
    sequenceExpiry: Type.Union([Type.String(), Type.Null()], {
      description: 'FechaVencimientoSecuencia; none for 32 and 34.',
    }),
    issueDate: Type.String({ description: 'FechaEmision, dd-MM-yyyy.' }),
    issuer: Type.Object({
      rnc: Type.String(),
      legalName: Type.String(),
      tradeName: Type.Union([Type.String(), Type.Null()]),
      branch: Type.Union([Type.String(), Type.Null()]),
      address: Type.Union([Type.String(), Type.Null()]),
      municipality: Type.Union([ref(Code), Type.Null()]),
      province: Type.Union([ref(Code), Type.Null()]),
    }),
    buyer: Type.Union([
      Type.Object({
        rnc: Type.Union([Type.String(), Type.Null()]),
        foreignId: Type.Union([Type.String(), Type.Null()]),
        legalName: Type.Union([Type.String(), Type.Null()]),
        address: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ]),
    reference: Type.Union([
      Type.Object({
        modifiedNcf: Type.String(),
        modifiedNcfDate: Type.Union([Type.String(), Type.Null()]),
        modificationCode: Type.Union([ref(Code), Type.Null()]),
        reason: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ]),
    lines: Type.Array(ref(PrintableLine)),
    totals: Type.Record(Type.String(), Type.String(), {
      description:
        'The amounts of Totales as written (DGII element names), e.g. MontoGravadoTotal, MontoExento, TotalITBIS, MontoTotal.',
    }),
    totalLines: Type.Array(ref(PrintableAmount), {
      description: 'The totals box in print order, with DGII labels: only the amounts the XML carries.',
    }),
    pagination: Type.Union(
      [
        Type.Object({
          totalPages: Type.Integer(),
          pages: Type.Array(
            Type.Object({
              number: Type.Integer(),
              fromLine: Type.Integer(),
              toLine: Type.Integer(),
              subtotals: Type.Array(ref(PrintableAmount)),
            }),
          ),
        }),
        Type.Null(),
      ],
      { description: "The XML's Paginacion: the PDF puts exactly these lines on each page. Null: no Paginacion." },
    ),
    deferredSending: Type.Boolean({ description: 'IndicadorEnvioDiferido 1: the 24-hour legend is printed.' }),
    contingency: Type.Boolean({
      description:
        'Recorded when the e-CF was issued while DGII could not be reached: the 72-hour contingency legend is printed.',
    }),
    currency: Type.Union([
      Type.Object({ code: Type.String(), exchangeRate: Type.Union([Type.String(), Type.Null()]) }),
      Type.Null(),
    ]),
    securityCode: Type.String({
      description: 'The first six characters of the SignatureValue, printed under the QR code.',
    }),
    signatureDate: Type.String({ description: 'FechaHoraFirma, dd-MM-yyyy HH:mm:ss.' }),
    qr: Type.Object({
      url: Type.String(),
      consumerSummary: Type.Boolean({
        description:
          'Type 32 under DOP 250,000: ConsultaTimbreFC with RncEmisor, ENCF, MontoTotal and CodigoSeguridad only.',
      }),
    }),
    legends: Type.Array(ref(Legend)),
    notices: Type.Array(Type.Object({ code: Type.String(), text: Type.String() }), {
      description:
        'For the integrator, not for the paper: e.g. not_accepted_yet while DGII has not accepted the e-CF (its RI cannot support a fiscal credit until then).',
    }),
  },
  {
    $id: 'PrintableDocument',
    examples: [
      {
        id: 'doc_01JDZ8Y3K2M4N5P6Q7R8S9T0VW',
        status: 'signed',
        ecfType: '31',
        typeName: 'Factura de Crédito Fiscal Electrónica',
        eNCF: 'E310000000001',
        sequenceExpiry: '31-12-2027',
        issueDate: '21-11-2026',
        issuer: {
          rnc: '999999992',
          legalName: 'Empresa de Prueba SRL',
          tradeName: null,
          branch: null,
          address: 'Av. 27 de Febrero #123',
          municipality: { code: '010101', name: 'SANTO DOMINGO DE GUZMÁN (D. M.).' },
          province: { code: '010000', name: 'DISTRITO NACIONAL' },
        },
        buyer: { rnc: '130123454', foreignId: null, legalName: 'Cliente de Prueba SRL', address: null },
        reference: null,
        lines: [
          {
            lineNumber: '1',
            billingIndicator: '1',
            exempt: false,
            mark: null,
            name: 'Servicio de consultoría',
            description: null,
            quantity: '1',
            unit: null,
            unitPrice: '1000.00',
            discount: null,
            surcharge: null,
            amount: '1000.00',
            itbis: '180.00',
          },
        ],
        totals: {
          MontoGravadoTotal: '1000.00',
          MontoGravadoI1: '1000.00',
          ITBIS1: '18',
          TotalITBIS: '180.00',
          TotalITBIS1: '180.00',
          MontoTotal: '1180.00',
        },
        totalLines: [
          { code: 'MontoGravadoTotal', label: 'Subtotal Gravado', amount: '1000.00' },
          { code: 'TotalITBIS', label: 'Total ITBIS', amount: '180.00' },
          { code: 'MontoTotal', label: 'Total', amount: '1180.00' },
        ],
        pagination: null,
        deferredSending: false,
        contingency: false,
        currency: null,
        securityCode: 'AbC12+',
        signatureDate: '21-11-2026 10:30:00',
        qr: { url: 'https://ecf.dgii.gov.do/testecf/ConsultaTimbre?RncEmisor=999999992&…', consumerSummary: false },
        legends: [
          { code: 'type_name', text: 'Factura de Crédito Fiscal Electrónica' },
          { code: 'security_code', text: 'Código de Seguridad: AbC12+' },
          { code: 'signature_date', text: 'Fecha de Firma Digital: 21-11-2026 10:30:00' },
        ],
        notices: [
          {
            code: 'not_accepted_yet',
            text: 'DGII has not accepted this e-CF (yet): until it does, its printed representation cannot support a fiscal credit.',
          },
        ],
      },
    ],
  },
);
export type PrintableDocument = Static<typeof PrintableDocument>;

export const printableSchemas = [Code, Legend, PrintableAmount, PrintableLine, PrintableDocument];
