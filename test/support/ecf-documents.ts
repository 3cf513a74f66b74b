// Realistic DGII-shaped e-CF documents, one per type, for the fiscal tests. Fictitious parties (RNCs made up,
// with valid check digits); totals written out by hand to agree with the lines; TotalPaginas omitted (a
// one-page document). The service-owned fields (eNCF, FechaVencimientoSecuencia, FechaHoraFirma) are not here.
import type { EcfType } from '../../src/fiscal/model/ecf-model-types.js';
import type { ServiceOwnedFields } from '../../src/fiscal/build/ecf-json.js';
import { rncCheckDigit } from '../../src/fiscal/taxpayer-id.js';

type Json = Record<string, unknown>;

/** A made-up RNC: eight chosen digits and the check digit they call for. */
export function fictitiousRnc(firstEight: string): string {
  return `${firstEight}${rncCheckDigit(firstEight)}`;
}

export const issuerRnc = fictitiousRnc('13198765');
export const buyerRnc = fictitiousRnc('13012345');

export function ownedFieldsFor(type: EcfType): ServiceOwnedFields {
  const hasExpiry = type !== '32' && type !== '34';
  return {
    eNCF: `E${type}0000000042`,
    ...(hasExpiry ? { fechaVencimientoSecuencia: '31-12-2027' } : {}),
    fechaHoraFirma: '15-11-2026 10:31:07',
  };
}

const emisor: Json = {
  RNCEmisor: issuerRnc,
  RazonSocialEmisor: 'Ferretería Ñoño & Asociados, S.R.L.',
  NombreComercial: 'Ferretería "El Martillo"',
  DireccionEmisor: 'Av. 27 de Febrero #123, Ensanche Piantini',
  Municipio: '010101',
  Provincia: '010000',
  TablaTelefonoEmisor: { TelefonoEmisor: ['809-555-0101', '829-555-0102'] },
  CorreoEmisor: 'facturas@ejemplo.com.do',
  FechaEmision: '15-11-2026',
};

const comprador: Json = {
  RNCComprador: buyerRnc,
  RazonSocialComprador: 'Distribuidora Peña <Prueba> & Hijos',
  DireccionComprador: 'Calle El Sol #45, Santiago',
};

function header(type: EcfType, idDoc: Json, totales: Json, extra: Json = {}): Json {
  return { Version: '1.0', IdDoc: { TipoeCF: type, ...idDoc }, Emisor: emisor, ...extra, Totales: totales };
}

/** Two lines: 2 × 500.00 taxed at 18 % and one exempt line of 250.00. */
const taxedAndExemptItems = [
  {
    NumeroLinea: 1,
    IndicadorFacturacion: 1,
    NombreItem: 'Martillo de carpintero 16 oz',
    IndicadorBienoServicio: 1,
    CantidadItem: 2,
    UnidadMedida: 43,
    PrecioUnitarioItem: 500,
    MontoItem: '1000.00',
  },
  {
    NumeroLinea: 2,
    IndicadorFacturacion: 4,
    NombreItem: 'Libro técnico (exento)',
    IndicadorBienoServicio: 1,
    CantidadItem: '1',
    PrecioUnitarioItem: '250.00',
    MontoItem: 250,
  },
];

const taxedAndExemptTotals: Json = {
  MontoGravadoTotal: '1000.00',
  MontoGravadoI1: '1000.00',
  MontoExento: '250.00',
  ITBIS1: '18',
  TotalITBIS: '180.00',
  TotalITBIS1: '180.00',
  MontoTotal: 1430,
};

const contado = { TipoPago: 1, TablaFormasPago: { FormaDePago: [{ FormaPago: 1, MontoPago: '1430.00' }] } };

function exemptItem(name: string, servicio: boolean, extra: Json = {}): Json {
  return {
    NumeroLinea: 1,
    IndicadorFacturacion: 4,
    ...extra,
    NombreItem: name,
    IndicadorBienoServicio: servicio ? 2 : 1,
    CantidadItem: '1',
    PrecioUnitarioItem: '1000.00',
    MontoItem: '1000.00',
  };
}

const reference: Json = {
  NCFModificado: 'E310000000007',
  FechaNCFModificado: '01-11-2026',
  CodigoModificacion: 3,
};

export const ecfDocuments: Readonly<Record<EcfType, Json>> = {
  '31': {
    Encabezado: header('31', { IndicadorMontoGravado: 0, TipoIngresos: '01', ...contado }, taxedAndExemptTotals, {
      Comprador: comprador,
    }),
    DetallesItems: { Item: taxedAndExemptItems },
  },
  '32': {
    Encabezado: header('32', { IndicadorMontoGravado: 0, TipoIngresos: '01', ...contado }, taxedAndExemptTotals, {
      Comprador: { RazonSocialComprador: 'Consumidor final' },
    }),
    DetallesItems: { Item: taxedAndExemptItems },
  },
  '33': {
    Encabezado: header(
      '33',
      { IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '15-12-2026' },
      taxedAndExemptTotals,
      {
        Comprador: comprador,
      },
    ),
    DetallesItems: { Item: taxedAndExemptItems },
    InformacionReferencia: { ...reference, RazonModificacion: 'Corrección de precio pactado' },
  },
  '34': {
    Encabezado: header(
      '34',
      { IndicadorNotaCredito: 0, IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 1 },
      taxedAndExemptTotals,
      {
        Comprador: comprador,
      },
    ),
    DetallesItems: { Item: taxedAndExemptItems },
    InformacionReferencia: { ...reference, RazonModificacion: 'Devolución de mercancía' },
  },
  '41': {
    // A purchase of a service from an informal supplier: 1,000.00 + 18 % ITBIS, both retained (ITBIS in full,
    // ISR at 10 %).
    Encabezado: header(
      '41',
      { IndicadorMontoGravado: 0, TipoPago: 1 },
      {
        MontoGravadoTotal: '1000.00',
        MontoGravadoI1: '1000.00',
        ITBIS1: '18',
        TotalITBIS: '180.00',
        TotalITBIS1: '180.00',
        MontoTotal: '1180.00',
        TotalITBISRetenido: '180.00',
        TotalISRRetencion: '100.00',
      },
      {
        Comprador: {
          RNCComprador: fictitiousRnc('40212345'),
          RazonSocialComprador: 'José Martínez (proveedor informal)',
        },
      },
    ),
    DetallesItems: {
      Item: [
        {
          NumeroLinea: 1,
          IndicadorFacturacion: 1,
          Retencion: {
            IndicadorAgenteRetencionoPercepcion: 1,
            MontoITBISRetenido: '180.00',
            MontoISRRetenido: '100.00',
          },
          NombreItem: 'Servicio de plomería',
          IndicadorBienoServicio: 2,
          CantidadItem: '1',
          PrecioUnitarioItem: '1000.00',
          MontoItem: '1000.00',
        },
      ],
    },
  },
  '43': {
    Encabezado: header('43', {}, { MontoExento: '1000.00', MontoTotal: '1000.00' }),
    DetallesItems: { Item: [exemptItem('Pasaje y peaje, diligencia en Santo Domingo Este', true)] },
  },
  '44': {
    Encabezado: header(
      '44',
      { TipoIngresos: '01', TipoPago: 1 },
      { MontoExento: '1000.00', MontoTotal: '1000.00' },
      {
        Comprador: {
          RNCComprador: fictitiousRnc('13055555'),
          RazonSocialComprador: 'Zona Franca Industrial Ejemplo, S.A.',
        },
      },
    ),
    DetallesItems: { Item: [exemptItem('Tornillería industrial', false)] },
  },
  '45': {
    Encabezado: header(
      '45',
      { IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '15-01-2027' },
      taxedAndExemptTotals,
      {
        Comprador: { RNCComprador: fictitiousRnc('40100001'), RazonSocialComprador: 'Ministerio de Ejemplo' },
      },
    ),
    DetallesItems: { Item: taxedAndExemptItems },
  },
  '46': {
    // An export at ITBIS 0 % (IndicadorFacturacion 3), also stated in US dollars at 58.5 DOP/USD.
    Encabezado: header(
      '46',
      { TipoIngresos: '01', TipoPago: 1 },
      {
        MontoGravadoTotal: '117000.00',
        MontoGravadoI3: '117000.00',
        ITBIS3: '0',
        TotalITBIS: '0.00',
        TotalITBIS3: '0.00',
        MontoTotal: '117000.00',
      },
      {
        Comprador: {
          IdentificadorExtranjero: 'US-EIN-12-3456789',
          RazonSocialComprador: 'Caribbean Imports LLC',
          PaisComprador: 'Estados Unidos',
        },
        OtraMoneda: {
          TipoMoneda: 'USD',
          TipoCambio: 58.5,
          MontoGravadoTotalOtraMoneda: '2000.00',
          MontoGravado3OtraMoneda: '2000.00',
          TotalITBISOtraMoneda: '0.00',
          TotalITBIS3OtraMoneda: '0.00',
          MontoTotalOtraMoneda: '2000.00',
        },
      },
    ),
    DetallesItems: {
      Item: [
        {
          NumeroLinea: 1,
          IndicadorFacturacion: 3,
          NombreItem: 'Cigarros premium, caja de 25',
          IndicadorBienoServicio: 1,
          CantidadItem: '100',
          PrecioUnitarioItem: '1170.00',
          OtraMonedaDetalle: { PrecioOtraMoneda: 20, MontoItemOtraMoneda: '2000.00' },
          MontoItem: '117000.00',
        },
      ],
    },
  },
  '47': {
    // A payment abroad for a service: exempt of ITBIS, ISR retained at 27 %.
    Encabezado: header(
      '47',
      {},
      { MontoExento: '1000.00', MontoTotal: '1000.00', TotalISRRetencion: '270.00' },
      {
        Comprador: { IdentificadorExtranjero: 'DE-123456789', RazonSocialComprador: 'Software GmbH' },
      },
    ),
    DetallesItems: {
      Item: [
        exemptItem('Licencia anual de software', true, {
          Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoISRRetenido: '270.00' },
        }),
      ],
    },
  },
};
