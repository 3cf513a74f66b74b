// The e-CFs the counterpart issues when a taxpayer asks DGII's simulator for one (emisioncomprobantes): realistic,
// fiscally sound documents of the four types a receiver gets (31, 33, 34, 44; research/dgii-protocol.md §6.1),
// the counterpart as issuer and the asking taxpayer as buyer, dated today. Adapted from the fixtures of the fiscal
// tests (test/support/ecf-documents.ts), which src may not import.
import type { EcfJson, ServiceOwnedFields } from '../../fiscal/build/index.js';
import { formatDgiiDate, formatDgiiTimestamp } from '../../fiscal/dates.js';

import type { TypeSentToReceiver } from '../../fiscal/receiving/received-ecf.js';

export {
  isTypeSentToReceiver,
  typesSentToReceivers,
  type TypeSentToReceiver,
} from '../../fiscal/receiving/received-ecf.js';

export interface CounterpartInvoice {
  type: TypeSentToReceiver;
  eNCF: string;
  issuer: { rnc: string; name: string };
  buyer: { rnc: string; name: string };
  now: Date;
}

const dayMs = 86_400_000;

/** Two lines: 2 × 500.00 taxed at 18 % and one exempt line of 250.00; 1,430.00 in all. */
const taxedAndExemptItems = [
  {
    NumeroLinea: '1',
    IndicadorFacturacion: '1',
    NombreItem: 'Martillo de carpintero 16 oz',
    IndicadorBienoServicio: '1',
    CantidadItem: '2',
    UnidadMedida: '43',
    PrecioUnitarioItem: '500.00',
    MontoItem: '1000.00',
  },
  {
    NumeroLinea: '2',
    IndicadorFacturacion: '4',
    NombreItem: 'Libro técnico (exento)',
    IndicadorBienoServicio: '1',
    CantidadItem: '1',
    PrecioUnitarioItem: '250.00',
    MontoItem: '250.00',
  },
];

const taxedAndExemptTotals = {
  MontoGravadoTotal: '1000.00',
  MontoGravadoI1: '1000.00',
  MontoExento: '250.00',
  ITBIS1: '18',
  TotalITBIS: '180.00',
  TotalITBIS1: '180.00',
  MontoTotal: '1430.00',
};

const cashPayment = { TipoPago: '1', TablaFormasPago: { FormaDePago: [{ FormaPago: '1', MontoPago: '1430.00' }] } };

function idDocFor(invoice: CounterpartInvoice): Record<string, unknown> {
  switch (invoice.type) {
    case '31':
      return { TipoeCF: '31', IndicadorMontoGravado: '0', TipoIngresos: '01', ...cashPayment };
    case '33':
      return {
        TipoeCF: '33',
        IndicadorMontoGravado: '0',
        TipoIngresos: '01',
        TipoPago: '2',
        FechaLimitePago: formatDgiiDate(new Date(invoice.now.getTime() + 30 * dayMs)),
      };
    case '34':
      return {
        TipoeCF: '34',
        IndicadorNotaCredito: '0',
        IndicadorMontoGravado: '0',
        TipoIngresos: '01',
        TipoPago: '1',
      };
    case '44':
      return { TipoeCF: '44', TipoIngresos: '01', TipoPago: '1' };
  }
}

/** Notes (33, 34) modify an earlier invoice of the counterpart's, dated a few days back (a 34 within 30 days). */
function referenceFor(invoice: CounterpartInvoice): Record<string, unknown> {
  if (invoice.type !== '33' && invoice.type !== '34') return {};
  const reason = invoice.type === '33' ? 'Corrección de precio pactado' : 'Devolución de mercancía';
  return {
    InformacionReferencia: {
      NCFModificado: 'E310000000001',
      FechaNCFModificado: formatDgiiDate(new Date(invoice.now.getTime() - 5 * dayMs)),
      CodigoModificacion: '3',
      RazonModificacion: reason,
    },
  };
}

/** What DGII's records keep of the e-CF (consulta estado, the QR pages, commercial approvals). */
export interface InvoiceSummary {
  fechaEmision: string;
  montoTotal: string;
  totalItbis: string | null;
}

export function counterpartInvoice(invoice: CounterpartInvoice): {
  document: EcfJson;
  owned: ServiceOwnedFields;
  summary: InvoiceSummary;
} {
  const emisor = {
    RNCEmisor: invoice.issuer.rnc,
    RazonSocialEmisor: invoice.issuer.name,
    DireccionEmisor: 'Av. John F. Kennedy #100, Santo Domingo',
    Municipio: '010101',
    Provincia: '010000',
    CorreoEmisor: 'facturas@contraparte.sandbox.do',
    FechaEmision: formatDgiiDate(invoice.now),
  };
  const comprador = { RNCComprador: invoice.buyer.rnc, RazonSocialComprador: invoice.buyer.name };
  const exempt = invoice.type === '44';
  const totals = exempt ? { MontoExento: '1000.00', MontoTotal: '1000.00' } : taxedAndExemptTotals;
  const document: EcfJson = {
    Encabezado: {
      Version: '1.0',
      IdDoc: idDocFor(invoice),
      Emisor: emisor,
      Comprador: comprador,
      Totales: totals,
    },
    DetallesItems: {
      Item: exempt
        ? [
            {
              NumeroLinea: '1',
              IndicadorFacturacion: '4',
              NombreItem: 'Tornillería industrial',
              IndicadorBienoServicio: '1',
              CantidadItem: '1',
              PrecioUnitarioItem: '1000.00',
              MontoItem: '1000.00',
            },
          ]
        : taxedAndExemptItems,
    },
    ...referenceFor(invoice),
  };
  // Types 32 and 34 carry no FechaVencimientoSecuencia (XSD); the others get the end of next year, like a fresh range.
  const expiry =
    invoice.type === '34'
      ? {}
      : {
          fechaVencimientoSecuencia: `31-12-${String(new Date(invoice.now.getTime() - 4 * 3_600_000).getUTCFullYear() + 1)}`,
        };
  return {
    document,
    owned: { eNCF: invoice.eNCF, ...expiry, fechaHoraFirma: formatDgiiTimestamp(invoice.now) },
    summary: {
      fechaEmision: emisor.FechaEmision,
      montoTotal: totals.MontoTotal,
      totalItbis: exempt ? null : taxedAndExemptTotals.TotalITBIS,
    },
  };
}
