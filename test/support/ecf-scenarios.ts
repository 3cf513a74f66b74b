// More realistic e-CF documents, at least two per type beyond the one in ./ecf-documents.ts,
// each named by what it shows. Fictitious parties only (RNCs made up, with valid check digits). The lines are
// written by hand; Totales (and OtraMoneda) are computed from them by computeTotals and written into the document,
// so the totals agree with the lines by construction. The service-owned fields come from ownedFieldsFor.
import type { EcfType } from '../../src/fiscal/model/ecf-model-types.js';
import type { Finding } from '../../src/fiscal/finding.js';
import { computeTotals } from '../../src/fiscal/totals/index.js';
import { buyerRnc, fictitiousRnc, issuerRnc } from './ecf-documents.js';

type Json = Record<string, unknown>;

export interface EcfScenario {
  /** What the document shows, as its test name. */
  readonly name: string;
  readonly type: EcfType;
  readonly document: Json;
  /** What computeTotals said about the lines: empty for a consistent document. */
  readonly totalsFindings: readonly Finding[];
  /** The one value that shows the scenario's point: a path into the built document and the text expected there. */
  readonly shows: { readonly path: readonly string[]; readonly value: string };
}

function emisor(fechaEmision: string): Json {
  return {
    RNCEmisor: issuerRnc,
    RazonSocialEmisor: 'Comercial Ejemplo del Caribe, S.R.L.',
    NombreComercial: 'Comercial Ejemplo',
    DireccionEmisor: 'Av. Winston Churchill #1099, Piantini',
    Municipio: '010101',
    Provincia: '010000',
    CorreoEmisor: 'facturacion@ejemplo.com.do',
    FechaEmision: fechaEmision,
  };
}

const comprador: Json = {
  RNCComprador: buyerRnc,
  RazonSocialComprador: 'Distribuidora Ejemplo Norte, S.A.',
  DireccionComprador: 'Calle Duarte #10, Santiago',
};
const gobierno: Json = {
  RNCComprador: fictitiousRnc('40100002'),
  RazonSocialComprador: 'Ministerio de Ejemplo y Pruebas',
};
const zonaFranca: Json = {
  RNCComprador: fictitiousRnc('13055556'),
  RazonSocialComprador: 'Textiles Zona Franca Ejemplo, S.A.',
};
const extranjeroEeuu: Json = {
  IdentificadorExtranjero: 'US-EIN-98-7654321',
  RazonSocialComprador: 'Gourmet Cacao Importers Inc.',
  PaisComprador: 'Estados Unidos',
};

interface Parts {
  readonly type: EcfType;
  readonly fechaEmision?: string;
  readonly idDoc?: Json;
  readonly comprador?: Json;
  readonly items: readonly Json[];
  readonly adjustments?: readonly Json[];
  /** Given Totales the computation completes (e.g. the indexed ISC específico rate). */
  readonly totales?: Json;
  /** TipoMoneda and TipoCambio; the rest of OtraMoneda is computed. */
  readonly otraMoneda?: { TipoMoneda: string; TipoCambio: string };
  /** A cash payment of the whole MontoTotal (TipoPago 1, FormaPago 1). */
  readonly cash?: boolean;
  readonly reference?: Json;
}

type Built = Pick<EcfScenario, 'document' | 'totalsFindings'>;

function documentOf(parts: Parts): Built {
  const items = parts.items.map((item, index) => ({ NumeroLinea: index + 1, ...item }));
  const adjustments = parts.adjustments?.map((adjustment, index) => ({ NumeroLinea: index + 1, ...adjustment }));
  const draft: Json = {
    Encabezado: {
      IdDoc: { TipoeCF: parts.type, ...parts.idDoc },
      ...(parts.totales === undefined ? {} : { Totales: parts.totales }),
      ...(parts.otraMoneda === undefined ? {} : { OtraMoneda: parts.otraMoneda }),
    },
    DetallesItems: { Item: items },
    ...(adjustments === undefined ? {} : { DescuentosORecargos: { DescuentoORecargo: adjustments } }),
  };
  const { totales, otraMoneda, findings } = computeTotals(draft);
  const payment =
    parts.cash === true
      ? { TipoPago: 1, TablaFormasPago: { FormaDePago: [{ FormaPago: 1, MontoPago: totales.MontoTotal }] } }
      : {};
  const document: Json = {
    Encabezado: {
      Version: '1.0',
      IdDoc: { TipoeCF: parts.type, ...parts.idDoc, ...payment },
      Emisor: emisor(parts.fechaEmision ?? '15-11-2026'),
      ...(parts.comprador === undefined ? {} : { Comprador: parts.comprador }),
      Totales: totales,
      ...(otraMoneda === undefined ? {} : { OtraMoneda: otraMoneda }),
    },
    DetallesItems: { Item: items },
    ...(adjustments === undefined ? {} : { DescuentosORecargos: { DescuentoORecargo: adjustments } }),
    ...(parts.reference === undefined ? {} : { InformacionReferencia: parts.reference }),
  };
  return { document, totalsFindings: findings };
}

function scenario(name: string, shows: [readonly string[], string], parts: Parts): EcfScenario {
  return { name, type: parts.type, ...documentOf(parts), shows: { path: shows[0], value: shows[1] } };
}

const totales = (field: string) => ['Encabezado', 'Totales', field] as const;
const otraMonedaTotal = (field: string) => ['Encabezado', 'OtraMoneda', field] as const;
const codigoModificacion = ['InformacionReferencia', 'CodigoModificacion'] as const;

/** A line of `quantity` × `price` (both as written on the invoice), MontoItem their product. */
function item(
  indicator: number,
  name: string,
  quantity: string,
  price: string,
  montoItem: string,
  extra: Json = {},
): Json {
  return {
    IndicadorFacturacion: indicator,
    NombreItem: name,
    IndicadorBienoServicio: 1,
    CantidadItem: quantity,
    PrecioUnitarioItem: price,
    MontoItem: montoItem,
    ...extra,
  };
}

function service(indicator: number, name: string, price: string, extra: Json = {}): Json {
  return item(indicator, name, '1', price, price, { IndicadorBienoServicio: 2, ...extra });
}

function inOtherCurrency(price: string, amount: string): Json {
  return { OtraMonedaDetalle: { PrecioOtraMoneda: price, MontoItemOtraMoneda: amount } };
}

const telecomTaxes = {
  TablaImpuestoAdicional: { ImpuestoAdicional: [{ TipoImpuesto: '002' }, { TipoImpuesto: '004' }] },
};

function reference(ncf: string, date: string, code: number, reason: string): Json {
  return { NCFModificado: ncf, FechaNCFModificado: date, CodigoModificacion: code, RazonModificacion: reason };
}

export const ecfScenarios: readonly EcfScenario[] = [
  // 31 ---------------------------------------------------------------------------------------------------------
  scenario(
    '31: rum with ISC específico (014) at the indexed rate and ISC ad valorem (031), both in the ITBIS base',
    [totales('MontoImpuestoAdicional'), '29954.19'],
    {
      type: '31',
      idDoc: { IndicadorMontoGravado: 0, TipoIngresos: '01' },
      comprador,
      cash: true,
      // 10 cases of 12 bottles of 0.70 l at 40 %; retail price 1,150.00 a bottle; específico rate 632.58 (made up).
      items: [
        item(1, 'Ron añejo 12 × 700 ml, 40 % vol.', '10', '9600.00', '96000.00', {
          UnidadMedida: 43,
          CantidadReferencia: '12',
          TablaSubcantidad: { SubcantidadItem: [{ Subcantidad: '0.70' }] },
          GradosAlcohol: '40.00',
          PrecioUnitarioReferencia: '1150.00',
          TablaImpuestoAdicional: { ImpuestoAdicional: [{ TipoImpuesto: '014' }, { TipoImpuesto: '031' }] },
        }),
      ],
      totales: {
        ImpuestosAdicionales: { ImpuestoAdicional: [{ TipoImpuesto: '014', TasaImpuestoAdicional: '632.58' }] },
      },
    },
  ),
  scenario(
    '31: an invoice in US dollars at 60.50 DOP/USD, with a taxed and an exempt line',
    [otraMonedaTotal('MontoTotalOtraMoneda'), '2860.00'],
    {
      type: '31',
      idDoc: { IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '20-12-2026' },
      comprador,
      otraMoneda: { TipoMoneda: 'USD', TipoCambio: '60.50' },
      items: [
        item(1, 'Bomba de agua industrial 2 HP', '2', '60500.00', '121000.00', inOtherCurrency('1000.00', '2000.00')),
        item(4, 'Manual técnico impreso', '4', '7562.50', '30250.00', inOtherCurrency('125.00', '500.00')),
      ],
    },
  ),
  scenario(
    '31: prices including ITBIS with a 10 % global discount taken off the included amount',
    [totales('TotalITBIS'), '162.00'],
    {
      type: '31',
      idDoc: { IndicadorMontoGravado: 1, TipoIngresos: '01' },
      comprador,
      cash: true,
      items: [item(1, 'Galón de pintura acrílica blanca', '10', '118.00', '1180.00')],
      adjustments: [
        {
          TipoAjuste: 'D',
          DescripcionDescuentooRecargo: 'Descuento por pronto pago',
          TipoValor: '%',
          ValorDescuentooRecargo: '10',
          MontoDescuentooRecargo: '118.00',
          IndicadorFacturacionDescuentooRecargo: 1,
        },
      ],
    },
  ),

  // 32 ---------------------------------------------------------------------------------------------------------
  scenario(
    '32: a consumer invoice of exactly DOP 250,000.00, prices including ITBIS, buyer identified',
    [totales('TotalITBIS'), '38135.59'],
    {
      type: '32',
      idDoc: { IndicadorMontoGravado: 1, TipoIngresos: '01' },
      comprador: { RNCComprador: fictitiousRnc('13077777'), RazonSocialComprador: 'Colegio Ejemplo del Este, S.R.L.' },
      cash: true,
      items: [
        item(1, 'Refrigerador comercial 2 puertas', '2', '95000.00', '190000.00'),
        item(1, 'Congelador horizontal', '1', '60000.00', '60000.00'),
      ],
    },
  ),
  scenario(
    '32: a consumer telecom bill under DOP 250,000 with ISC telecomunicaciones (004) and CDT (002)',
    [totales('MontoImpuestoAdicional'), '300.00'],
    {
      type: '32',
      idDoc: { IndicadorMontoGravado: 0, TipoIngresos: '01' },
      comprador: { RazonSocialComprador: 'Consumidor final' },
      cash: true,
      items: [
        service(1, 'Plan móvil ilimitado, noviembre 2026', '2000.00', telecomTaxes),
        service(1, 'Internet residencial 100 Mbps, noviembre 2026', '500.00', telecomTaxes),
      ],
    },
  ),

  // 33 ---------------------------------------------------------------------------------------------------------
  scenario(
    '33: a debit note in US dollars for freight not invoiced (CodigoModificacion 3)',
    [otraMonedaTotal('MontoTotalOtraMoneda'), '590.00'],
    {
      type: '33',
      idDoc: { IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '20-12-2026' },
      comprador,
      otraMoneda: { TipoMoneda: 'USD', TipoCambio: '60.00' },
      items: [
        service(1, 'Flete marítimo no facturado, contenedor 40 pies', '30000.00', inOtherCurrency('500.00', '500.00')),
      ],
      reference: reference('E310000000311', '05-11-2026', 3, 'Cargo de flete omitido en la factura'),
    },
  ),
  scenario(
    '33: a telecom debit note for extra consumption, with ISC telecomunicaciones and CDT',
    [totales('TotalITBIS'), '216.00'],
    {
      type: '33',
      idDoc: { IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '10-12-2026' },
      comprador,
      items: [service(1, 'Minutos internacionales excedentes, octubre 2026', '1200.00', telecomTaxes)],
      reference: reference('E310000000290', '31-10-2026', 3, 'Consumo excedente no facturado'),
    },
  ),

  // 34 ---------------------------------------------------------------------------------------------------------
  scenario(
    '34: a credit note annulling an invoice of more than 30 days (CodigoModificacion 1, IndicadorNotaCredito 1)',
    [codigoModificacion, '1'],
    {
      type: '34',
      idDoc: { IndicadorNotaCredito: 1, IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 1 },
      comprador,
      items: [item(1, 'Taladro percutor 800 W', '3', '4500.00', '13500.00')],
      reference: reference('E310000000120', '01-10-2026', 1, 'Anulación total de la factura'),
    },
  ),
  scenario('34: a credit note correcting the text of an invoice (CodigoModificacion 2)', [codigoModificacion, '2'], {
    type: '34',
    idDoc: { IndicadorNotaCredito: 0, IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 1 },
    comprador,
    items: [item(4, 'Libro técnico: corrección de descripción', '1', '250.00', '250.00')],
    reference: reference('E310000000305', '10-11-2026', 2, 'Descripción del artículo errónea'),
  }),
  scenario(
    '34: a credit note replacing a paper credit note issued in contingency (CodigoModificacion 4)',
    [codigoModificacion, '4'],
    {
      type: '34',
      idDoc: { IndicadorNotaCredito: 0, IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 1 },
      comprador,
      items: [item(2, 'Yogur natural 1 l (16 %)', '24', '150.00', '3600.00')],
      reference: reference(
        'B0400000123',
        '12-11-2026',
        4,
        'Reemplazo de la nota de crédito B04 emitida en contingencia',
      ),
    },
  ),
  scenario(
    '34: a credit note on a consumer invoice, prices including ITBIS (CodigoModificacion 5)',
    [totales('MontoGravadoI1'), '1000.00'],
    {
      type: '34',
      idDoc: { IndicadorNotaCredito: 0, IndicadorMontoGravado: 1, TipoIngresos: '01', TipoPago: 1 },
      comprador: { RNCComprador: fictitiousRnc('13088888'), RazonSocialComprador: 'Consumidor identificado' },
      items: [item(1, 'Devolución: licuadora 1.5 l', '1', '1180.00', '1180.00')],
      reference: reference('E320000000515', '14-11-2026', 5, 'Devolución sobre factura de consumo'),
    },
  ),

  // 41 ---------------------------------------------------------------------------------------------------------
  scenario(
    '41: a purchase from an individual retaining ITBIS in full and ISR at 10 % and 2 %',
    [totales('TotalISRRetencion'), '1060.00'],
    {
      type: '41',
      idDoc: { IndicadorMontoGravado: 0, TipoPago: 1 },
      comprador: { RNCComprador: fictitiousRnc('40233333'), RazonSocialComprador: 'María Rodríguez (persona física)' },
      items: [
        service(1, 'Diseño gráfico de catálogo', '10000.00', {
          Retencion: {
            IndicadorAgenteRetencionoPercepcion: 1,
            MontoITBISRetenido: '1800.00',
            MontoISRRetenido: '1000.00',
          },
        }),
        item(4, 'Plátanos verdes, racimo', '30', '100.00', '3000.00', {
          Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoITBISRetenido: '0', MontoISRRetenido: '60.00' },
        }),
      ],
    },
  ),
  scenario(
    '41: a purchase of scrap metal at prices including ITBIS, 30 % of the ITBIS retained',
    [totales('TotalITBISRetenido'), '540.00'],
    {
      type: '41',
      idDoc: { IndicadorMontoGravado: 1, TipoPago: 1 },
      comprador: { RNCComprador: fictitiousRnc('40244444'), RazonSocialComprador: 'Pedro Gómez (recolector)' },
      items: [
        item(1, 'Chatarra de hierro, kg', '1000', '11.80', '11800.00', {
          Retencion: {
            IndicadorAgenteRetencionoPercepcion: 1,
            MontoITBISRetenido: '540.00',
            MontoISRRetenido: '200.00',
          },
        }),
      ],
    },
  ),

  // 43 ---------------------------------------------------------------------------------------------------------
  scenario('43: minor expenses of a courier run: parking, tolls and a taxi', [totales('MontoExento'), '875.00'], {
    type: '43',
    items: [
      service(4, 'Parqueo Zona Colonial', '150.00'),
      item(4, 'Peaje Autopista del Nordeste', '5', '65.00', '325.00', { IndicadorBienoServicio: 2 }),
      service(4, 'Taxi aeropuerto – oficina', '400.00'),
    ],
  }),
  scenario(
    '43: a minor expense paid in US dollars on a trip, at 60.00 DOP/USD',
    [otraMonedaTotal('MontoExentoOtraMoneda'), '45.00'],
    {
      type: '43',
      otraMoneda: { TipoMoneda: 'USD', TipoCambio: '60.00' },
      items: [
        service(4, 'Transporte local en Miami, diligencia de compras', '2700.00', inOtherCurrency('45.00', '45.00')),
      ],
    },
  ),

  // 44 ---------------------------------------------------------------------------------------------------------
  scenario(
    '44: a sale to a free-zone company in US dollars at 59.00 DOP/USD',
    [otraMonedaTotal('MontoTotalOtraMoneda'), '1500.00'],
    {
      type: '44',
      idDoc: { TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '20-01-2027' },
      comprador: zonaFranca,
      otraMoneda: { TipoMoneda: 'USD', TipoCambio: '59.00' },
      items: [
        item(4, 'Hilo de poliéster, cono 5 kg', '50', '1770.00', '88500.00', inOtherCurrency('30.00', '1500.00')),
      ],
    },
  ),
  scenario(
    '44: a sale under a special regime with a 10 % global discount and a freight surcharge',
    [totales('MontoExento'), '9500.00'],
    {
      type: '44',
      idDoc: { TipoIngresos: '01' },
      comprador: zonaFranca,
      cash: true,
      items: [item(4, 'Tornillería industrial, caja', '20', '450.00', '9000.00')],
      adjustments: [
        {
          TipoAjuste: 'D',
          DescripcionDescuentooRecargo: 'Descuento por volumen',
          TipoValor: '%',
          ValorDescuentooRecargo: '10',
          MontoDescuentooRecargo: '900.00',
          IndicadorFacturacionDescuentooRecargo: 4,
        },
        {
          TipoAjuste: 'R',
          DescripcionDescuentooRecargo: 'Flete a zona franca',
          TipoValor: '$',
          MontoDescuentooRecargo: '1400.00',
          IndicadorFacturacionDescuentooRecargo: 4,
        },
      ],
    },
  ),

  // 45 ---------------------------------------------------------------------------------------------------------
  scenario(
    '45: telecom services to a ministry with ISC telecomunicaciones (004) and CDT (002)',
    [totales('MontoImpuestoAdicional'), '1200.00'],
    {
      type: '45',
      idDoc: { IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '20-01-2027' },
      comprador: gobierno,
      items: [service(1, 'Enlace de datos dedicado 1 Gbps, noviembre 2026', '10000.00', telecomTaxes)],
    },
  ),
  scenario(
    '45: a government purchase at 18 % and 16 % with a 5 % global discount and a delivery surcharge',
    [totales('MontoGravadoI1'), '19300.00'],
    {
      type: '45',
      idDoc: { IndicadorMontoGravado: 0, TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '20-01-2027' },
      comprador: gobierno,
      items: [
        item(1, 'Resma de papel bond 8½ × 11', '100', '200.00', '20000.00'),
        item(2, 'Café molido 1 lb (16 %)', '20', '300.00', '6000.00'),
      ],
      adjustments: [
        {
          TipoAjuste: 'D',
          DescripcionDescuentooRecargo: 'Descuento institucional',
          TipoValor: '%',
          ValorDescuentooRecargo: '5',
          MontoDescuentooRecargo: '1000.00',
          IndicadorFacturacionDescuentooRecargo: 1,
        },
        {
          TipoAjuste: 'R',
          DescripcionDescuentooRecargo: 'Entrega en almacén',
          TipoValor: '$',
          ValorDescuentooRecargo: '300.00',
          MontoDescuentooRecargo: '300.00',
          IndicadorFacturacionDescuentooRecargo: 1,
        },
      ],
    },
  ),

  // 46 ---------------------------------------------------------------------------------------------------------
  scenario(
    '46: an export of cacao and coffee in US dollars at 60.10 DOP/USD',
    [totales('MontoGravadoI3'), '1262100.00'],
    {
      type: '46',
      idDoc: { TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '20-01-2027' },
      comprador: extranjeroEeuu,
      otraMoneda: { TipoMoneda: 'USD', TipoCambio: '60.10' },
      items: [
        item(
          3,
          'Cacao orgánico en grano, saco 60 kg',
          '200',
          '5409.00',
          '1081800.00',
          inOtherCurrency('90.00', '18000.00'),
        ),
        item(
          3,
          'Café verde de altura, saco 46 kg',
          '10',
          '18030.00',
          '180300.00',
          inOtherCurrency('300.00', '3000.00'),
        ),
      ],
    },
  ),
  scenario(
    '46: an export of software services in US dollars at 58.00 DOP/USD',
    [otraMonedaTotal('MontoGravado3OtraMoneda'), '4500.00'],
    {
      type: '46',
      idDoc: { TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '20-12-2026' },
      comprador: {
        IdentificadorExtranjero: 'CA-BN-123456789',
        RazonSocialComprador: 'Maple Retail Software Ltd.',
        PaisComprador: 'Canadá',
      },
      otraMoneda: { TipoMoneda: 'USD', TipoCambio: '58.00' },
      items: [
        service(3, 'Desarrollo de software a la medida, 30 horas', '261000.00', {
          CantidadItem: '30',
          PrecioUnitarioItem: '8700.00',
          ...inOtherCurrency('150.00', '4500.00'),
        }),
      ],
    },
  ),
  scenario(
    '46: an export in US dollars at 60.00 DOP/USD with a 5 % global discount stated in both currencies',
    [otraMonedaTotal('MontoTotalOtraMoneda'), '9500.00'],
    {
      type: '46',
      idDoc: { TipoIngresos: '01', TipoPago: 2, FechaLimitePago: '15-01-2027' },
      comprador: extranjeroEeuu,
      otraMoneda: { TipoMoneda: 'USD', TipoCambio: '60.00' },
      items: [
        item(3, 'Cigarros premium, caja de 25', '100', '6000.00', '600000.00', inOtherCurrency('100.00', '10000.00')),
      ],
      adjustments: [
        {
          TipoAjuste: 'D',
          DescripcionDescuentooRecargo: 'Descuento por volumen',
          TipoValor: '%',
          ValorDescuentooRecargo: '5',
          MontoDescuentooRecargo: '30000.00',
          MontoDescuentooRecargoOtraMoneda: '500.00',
          IndicadorFacturacionDescuentooRecargo: 3,
        },
      ],
    },
  ),

  // 47 ---------------------------------------------------------------------------------------------------------
  scenario(
    '47: royalties paid abroad in US dollars, ISR retained at 27 %',
    [totales('TotalISRRetencion'), '48600.00'],
    {
      type: '47',
      comprador: { IdentificadorExtranjero: 'US-EIN-55-1234567', RazonSocialComprador: 'Brand Licensing Corp.' },
      otraMoneda: { TipoMoneda: 'USD', TipoCambio: '60.00' },
      items: [
        service(4, 'Regalías por uso de marca, 2.º semestre 2026', '180000.00', {
          Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoISRRetenido: '48600.00' },
          ...inOtherCurrency('3000.00', '3000.00'),
        }),
      ],
    },
  ),
  scenario(
    '47: technical assistance and cloud hosting paid abroad, ISR retained on each line',
    [totales('TotalISRRetencion'), '6480.00'],
    {
      type: '47',
      comprador: { IdentificadorExtranjero: 'ES-B12345678', RazonSocialComprador: 'Servicios Nube Ejemplo, S.L.' },
      items: [
        service(4, 'Asistencia técnica remota, noviembre 2026', '15000.00', {
          Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoISRRetenido: '4050.00' },
        }),
        service(4, 'Alojamiento en la nube, noviembre 2026', '9000.00', {
          Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoISRRetenido: '2430.00' },
        }),
      ],
    },
  ),
];
