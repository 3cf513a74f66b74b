// The certification test set DGII's portal generates for a postulación (step 2, "Pruebas de Datos e-CF"), as
// DGII-shaped JSON: the sandbox's stand-in for the workbook a taxpayer downloads (research/certification.md §2).
// Composition as in both DGII workbooks inspected: 25 e-CF (4×31; 6×32, two of DOP 250,000.00 or more; 1×33; 2×34;
// two each of 41, 43, 44, 45, 46, 47), then one RFCE per type 32 under 250,000.00 with the same CasoPrueba. Every
// workbook cell is text, so every leaf here is a string, written as the e-CF model writes it back. The set fixes the
// e-NCF and FechaVencimientoSecuencia; FechaHoraFirma is the signer's. Pure and deterministic: the content varies
// with `seed` through a small PRNG, `now` fixes only the years.
import Big from 'big.js';
import { rfcePayloadOf } from '../../fiscal/certification/index.js';
import { calendarDateOf } from '../../fiscal/dates.js';
import type { EcfType } from '../../fiscal/model/ecf-model-types.js';
import { checkTaxpayerId, rncCheckDigit } from '../../fiscal/taxpayer-id.js';
import { isConsumerSummary } from '../../fiscal/timbre-url.js';
import { computeTotals, formatAmount } from '../../fiscal/totals/index.js';

export interface GeneratedCase {
  kind: 'ECF' | 'RFCE';
  /** CasoPrueba: RNCEmisor + eNCF. */
  caseKey: string;
  ecfType: EcfType;
  payload: Record<string, unknown>;
}

/** Known defects of DGII's own sets, injectable so the import's checks can be tested against them. */
export type SetDefect = 'type34_without_tipo_ingresos';

type Json = Record<string, unknown>;

/** mulberry32: a few lines, no dependency, the same sequence for the same seed everywhere. */
class Dice {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  private next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** `count` distinct entries of `items`, in drawn order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const drawn: T[] = [];
    while (drawn.length < count && pool.length > 0) drawn.push(...pool.splice(this.int(0, pool.length - 1), 1));
    return drawn;
  }

  pick<T>(items: readonly T[]): T {
    const [item] = this.sample(items, 1);
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** A decimal in [min, max] written with `decimals` decimals. */
  decimal(min: number, max: number, decimals: number): string {
    const scale = 10 ** decimals;
    return new Big(this.int(Math.round(min * scale), Math.round(max * scale))).div(scale).toFixed(decimals);
  }
}

interface Day {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

function dgiiDate({ year, month, day }: Day): string {
  return `${String(day).padStart(2, '0')}-${String(month).padStart(2, '0')}-${String(year)}`;
}

function addDays({ year, month, day }: Day, days: number): Day {
  const moved = new Date(Date.UTC(year, month - 1, day + days));
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

/** IndicadorFacturacion: 1 ITBIS 18 %, 2 ITBIS 16 %, 3 ITBIS 0 % (exports), 4 exento. */
type Indicator = '1' | '2' | '3' | '4';
const itbisRate: Readonly<Record<Indicator, string>> = { '1': '0.18', '2': '0.16', '3': '0', '4': '0' };

interface Product {
  readonly name: string;
  readonly indicator: Indicator;
  readonly service?: true;
  /** UnidadMedida (Formato e-CF table: 6 caja, 15 galón, 19 hora, 21 kg, 23 libra, 24 litro, 26 metro, 43 unidad). */
  readonly unit?: string;
  /** Unit price range in DOP; DGII's sets write some unit prices with 4 decimals. */
  readonly price: readonly [number, number];
  readonly priceDecimals?: 4;
  readonly quantity: readonly [number, number];
  /** Sold by weight: a quantity with 2 decimals. */
  readonly weighed?: true;
}

function product(
  name: string,
  indicator: Indicator,
  price: [number, number],
  quantity: [number, number],
  more: Partial<Product> = {},
): Product {
  return { name, indicator, price, quantity, ...more };
}

const installation = product('SERVICIO DE INSTALACION ELECTRICA, HORA', '1', [950, 1500], [2, 16], {
  unit: '19',
  service: true,
});

const hardware: readonly Product[] = [
  product('CEMENTO GRIS PORTLAND TIPO I, FUNDA 42.5 KG', '1', [520, 690], [5, 60], { unit: '43' }),
  product('VARILLA CORRUGADA 3/8 PULG X 20 PIES', '1', [360, 455], [10, 80], { unit: '43' }),
  product('BLOCK DE CEMENTO 6 PULG', '1', [38, 52], [100, 600], { unit: '43' }),
  product('PINTURA ACRILICA BLANCA, GALON', '1', [1150, 1890], [2, 20], { unit: '15' }),
  product('TUBO PVC 1/2 PULG X 19 PIES', '1', [145, 230], [5, 40], { unit: '43' }),
  product('ALAMBRE DE COBRE THHN 12, METRO', '1', [27, 46], [50, 300], { unit: '26', priceDecimals: 4 }),
  product('TORNILLO AUTORROSCANTE 1 PULG', '1', [2, 4], [100, 1000], { unit: '43', priceDecimals: 4 }),
  product('CABLE UTP CATEGORIA 6, METRO', '1', [38, 56], [30, 305], { unit: '26', priceDecimals: 4 }),
  product('GUANTES DE TRABAJO, PAR', '1', [95, 180], [5, 50], { unit: '43' }),
  product('CASCO DE SEGURIDAD', '1', [450, 780], [1, 12], { unit: '43' }),
  product('MANUAL TECNICO DE CONSTRUCCION', '4', [650, 1450], [1, 10], { unit: '43' }),
  installation,
];

const groceries: readonly Product[] = [
  product('ARROZ SELECTO, LIBRA', '4', [36, 52], [10, 100], { unit: '23' }),
  product('HABICHUELAS ROJAS, LIBRA', '4', [85, 120], [5, 50], { unit: '23' }),
  product('CARNE DE RES, LIBRA', '4', [215, 265], [0.5, 6], { unit: '23', priceDecimals: 4, weighed: true }),
  product('QUESO DE FREIR, LIBRA', '1', [180, 260], [0.5, 5], { unit: '23', weighed: true }),
  product('YOGURT NATURAL 1 LITRO', '2', [145, 190], [2, 24], { unit: '24' }),
  product('MANTEQUILLA CON SAL, LIBRA', '2', [210, 290], [2, 12], { unit: '23' }),
  product('CAFE MOLIDO, LIBRA', '2', [260, 340], [2, 20], { unit: '23' }),
  product('JUGO DE NARANJA 1 LITRO', '1', [95, 160], [2, 12], { unit: '24' }),
];

const restaurant: readonly Product[] = [
  product('PLATO DEL DIA', '1', [350, 650], [1, 6]),
  product('JUGO NATURAL', '1', [120, 220], [1, 6]),
  product('POSTRE DE LA CASA', '1', [180, 320], [1, 4]),
];

const telecom: readonly Product[] = [
  product('PLAN MOVIL POSTPAGO, MES', '1', [1500, 3500], [1, 1], { service: true }),
  product('INTERNET RESIDENCIAL 100 MBPS, MES', '1', [1800, 2900], [1, 1], { service: true }),
];

const office: readonly Product[] = [
  product('RESMA DE PAPEL BOND 8.5 X 11', '1', [195, 260], [20, 200], { unit: '43' }),
  product('TONER PARA IMPRESORA LASER', '1', [3800, 5200], [2, 10], { unit: '43' }),
  product('CAFE MOLIDO, LIBRA', '2', [260, 340], [10, 60], { unit: '23' }),
  product('SILLA ERGONOMICA DE OFICINA', '1', [6500, 12500], [2, 20], { unit: '43' }),
  product('SERVICIO DE LIMPIEZA DE OFICINAS, MES', '1', [25000, 45000], [1, 1], { service: true }),
];

const freeZoneSupplies: readonly Product[] = [
  product('HILO DE POLIESTER, CONO 5 KG', '4', [1600, 1900], [20, 80], { unit: '43' }),
  product('TELA DE ALGODON, METRO', '4', [95, 160], [100, 900], { unit: '26', priceDecimals: 4 }),
  product('TORNILLERIA INDUSTRIAL, CAJA', '4', [400, 520], [5, 40], { unit: '6' }),
  product('MANTENIMIENTO DE MAQUINARIA INDUSTRIAL', '4', [8000, 22000], [1, 1], { service: true }),
];

const exportGoods: readonly Product[] = [
  product('CACAO ORGANICO EN GRANO, SACO 60 KG', '3', [5200, 6100], [50, 300], { unit: '43' }),
  product('CAFE VERDE DE ALTURA, SACO 46 KG', '3', [16000, 19000], [5, 40], { unit: '43' }),
  product('AGUACATE HASS, CAJA 10 KG', '3', [850, 1200], [100, 800], { unit: '6' }),
];

const minorExpenses: readonly (readonly Product[])[] = [
  [
    product('PARQUEO ZONA COLONIAL', '4', [100, 250], [1, 3], { service: true }),
    product('PEAJE AUTOPISTA DEL NORDESTE', '4', [60, 100], [2, 6], { service: true }),
    product('TAXI AEROPUERTO - OFICINA', '4', [350, 900], [1, 1], { service: true }),
  ],
  [
    product('BOTELLON DE AGUA 5 GALONES', '4', [60, 90], [2, 10], { unit: '43' }),
    product('MATERIAL GASTABLE DE OFICINA', '4', [150, 700], [1, 1]),
    product('REFRIGERIO PARA REUNION', '4', [300, 1200], [1, 1]),
  ],
];

const servicesAbroad: readonly Product[] = [
  product('LICENCIA ANUAL DE SOFTWARE', '4', [60000, 180000], [1, 1], { service: true }),
  product('ASISTENCIA TECNICA REMOTA, HORA', '4', [4500, 7500], [4, 40], { unit: '19', service: true }),
  product('ALOJAMIENTO EN LA NUBE, MES', '4', [8000, 15000], [1, 1], { service: true }),
];

const companyNames = [
  'DISTRIBUIDORA DEL CARIBE SRL',
  'FERRETERIA LA ESQUINA SRL',
  'COMERCIAL LOS PINOS SA',
  'SUPLIDORA DEL CIBAO SRL',
  'INVERSIONES MARENA SRL',
  'CONSTRUCTORA RIO OZAMA SA',
  'HOTELES COSTA AZUL DE PRUEBA SA',
  'AGROINDUSTRIAL DEL SUR SRL',
  'SERVICIOS TECNICOS ALFA SRL',
  'COLEGIO LOS ALMENDROS SRL',
];
const informalSuppliers = ['JOSE MARTINEZ', 'MARIA RODRIGUEZ', 'PEDRO GOMEZ', 'ANA PEREZ', 'LUIS FERNANDEZ'];
const freeZoneNames = [
  'TEXTILES ZONA FRANCA DE PRUEBA SA',
  'MANUFACTURAS DEL NORTE ZF SRL',
  'ENSAMBLES INDUSTRIALES ZF SA',
];
const governmentNames = [
  'MINISTERIO DE PRUEBAS Y ENSAYOS',
  'AYUNTAMIENTO MUNICIPAL DE PRUEBA',
  'DIRECCION GENERAL DE EJEMPLOS',
];
const importers = [
  { name: 'CARIBBEAN IMPORTS LLC', country: 'ESTADOS UNIDOS', prefix: 'US-EIN-' },
  { name: 'GOURMET CACAO IMPORTERS INC', country: 'ESTADOS UNIDOS', prefix: 'US-EIN-' },
  { name: 'EUROFRUITS BV', country: 'PAISES BAJOS', prefix: 'NL-' },
];
const providersAbroad = [
  { name: 'CLOUD SERVICES EXAMPLE LLC', prefix: 'US-EIN-' },
  { name: 'SOFTWARE BEISPIEL GMBH', prefix: 'DE-' },
  { name: 'SERVICIOS NUBE EJEMPLO SL', prefix: 'ES-B' },
];

/** Which types have IndicadorMontoGravado (e-CF XSDs: not 43, 44, 46, 47); the set's prices never include ITBIS. */
const typesWithIndicadorMontoGravado: readonly EcfType[] = ['31', '32', '33', '34', '41', '45'];

interface Line {
  readonly product: Product;
  readonly quantity: string;
  readonly price: string;
  /** A line discount in percent: DescuentoMonto and the item's TablaSubDescuento. */
  readonly discountPercent?: number;
  /** Tabla I codes of the additional taxes on the line. */
  readonly taxes?: readonly string[];
  /** Retention by the issuer: the share of the ITBIS (types 41; absent in 47, whose XSD retains ISR only) and the ISR rate. */
  readonly retention?: { readonly itbisShare?: string; readonly isrRate: string };
  readonly priceOtherCurrency?: string;
}

interface Payment {
  /** TipoPago: 1 contado, 2 crédito (FechaLimitePago 30 days on). */
  readonly tipoPago: '1' | '2';
  /** FormaPago codes (1 efectivo, 2 cheque/transferencia, 3 tarjeta, 4 crédito, 5 bonos), or none: the notes give
   * TipoPago alone, and 34 and 43 have no TablaFormasPago. The total is split in whole pesos, the last taking the rest. */
  readonly formas: readonly string[];
}

interface Invoice {
  readonly type: EcfType;
  readonly eNCF: string;
  readonly emitted: Day;
  readonly buyer?: Json;
  /** TipoIngresos; absent where the type has none (41, 43, 47), and in a note copying it from such a document. */
  readonly tipoIngresos?: string;
  readonly payment: Payment;
  readonly lines: readonly Line[];
  readonly currency?: { readonly TipoMoneda: string; readonly TipoCambio: string };
  readonly reference?: { readonly of: Invoice; readonly code: string; readonly reason: string };
}

/** The keys of `fields` whose value is defined, in their order. */
function defined(fields: Json): Json {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function itemOf(line: Line, index: number): Json {
  const quantity = new Big(line.quantity);
  const gross = quantity.times(line.price);
  const discount =
    line.discountPercent === undefined ? undefined : formatAmount(gross.times(line.discountPercent).div(100));
  const montoItem = formatAmount(gross.minus(discount ?? 0));
  const { retention, taxes, priceOtherCurrency } = line;
  return defined({
    NumeroLinea: String(index + 1),
    IndicadorFacturacion: line.product.indicator,
    Retencion:
      retention === undefined
        ? undefined
        : defined({
            IndicadorAgenteRetencionoPercepcion: '1',
            MontoITBISRetenido:
              retention.itbisShare === undefined
                ? undefined
                : formatAmount(new Big(montoItem).times(itbisRate[line.product.indicator]).times(retention.itbisShare)),
            MontoISRRetenido: formatAmount(new Big(montoItem).times(retention.isrRate)),
          }),
    NombreItem: line.product.name,
    IndicadorBienoServicio: line.product.service === true ? '2' : '1',
    CantidadItem: line.quantity,
    UnidadMedida: line.product.unit,
    PrecioUnitarioItem: line.price,
    DescuentoMonto: discount,
    TablaSubDescuento:
      discount === undefined
        ? undefined
        : {
            SubDescuento: [
              {
                TipoSubDescuento: '%',
                SubDescuentoPorcentaje: `${String(line.discountPercent)}.00`,
                MontoSubDescuento: discount,
              },
            ],
          },
    TablaImpuestoAdicional:
      taxes === undefined ? undefined : { ImpuestoAdicional: taxes.map((TipoImpuesto) => ({ TipoImpuesto })) },
    OtraMonedaDetalle:
      priceOtherCurrency === undefined
        ? undefined
        : {
            PrecioOtraMoneda: priceOtherCurrency,
            MontoItemOtraMoneda: formatAmount(quantity.times(priceOtherCurrency)),
          },
    MontoItem: montoItem,
  });
}

function paymentForms(formas: readonly string[], montoTotal: string): Json | undefined {
  if (formas.length === 0) return undefined;
  const share = new Big(montoTotal).div(formas.length).round(0, Big.roundDown);
  const montos = formas.map((_, index) =>
    index < formas.length - 1 ? share : new Big(montoTotal).minus(share.times(formas.length - 1)),
  );
  return {
    FormaDePago: formas.map((FormaPago, index) => ({ FormaPago, MontoPago: formatAmount(montos[index] ?? share) })),
  };
}

/** The issuer's name in DGII's sets: a placeholder, not the taxpayer's (research/certification.md §2). */
export const placeholderIssuerName = 'DOCUMENTOS ELECTRONICOS DE 02';

const emisorTexts = {
  // DGII's sets carry placeholder issuer texts, not the taxpayer's (research/certification.md §2).
  RazonSocialEmisor: placeholderIssuerName,
  NombreComercial: placeholderIssuerName,
  DireccionEmisor: 'AVE. PRINCIPAL NO. 100, SECTOR DE PRUEBA, SANTO DOMINGO',
};

function ecfPayload(invoice: Invoice, rncEmisor: string, fechaVencimientoSecuencia: string): Json {
  const { type, payment, reference } = invoice;
  const items = invoice.lines.map(itemOf);
  const indicadorMontoGravado = typesWithIndicadorMontoGravado.includes(type) ? '0' : undefined;
  // Totales (and OtraMoneda) as the fiscal core computes them from the lines, so they agree exactly.
  const { totales, otraMoneda, findings } = computeTotals({
    Encabezado: {
      IdDoc: defined({ TipoeCF: type, IndicadorMontoGravado: indicadorMontoGravado }),
      ...(invoice.currency === undefined ? {} : { OtraMoneda: invoice.currency }),
    },
    DetallesItems: { Item: items },
  });
  if (findings.length > 0)
    throw new Error(
      `certification set: the lines of ${invoice.eNCF} do not add up: ${findings.map((finding) => finding.message).join('; ')}`,
    );
  return defined({
    Encabezado: defined({
      Version: '1.0',
      IdDoc: defined({
        TipoeCF: type,
        eNCF: invoice.eNCF,
        // Reglamento 293-11: a credit note within 30 days of its invoice (the set's are one day apart) keeps the ITBIS.
        IndicadorNotaCredito: type === '34' ? '0' : undefined,
        // Every type but 32 and 34 has the sequence's expiry (e-CF XSDs).
        FechaVencimientoSecuencia: type === '32' || type === '34' ? undefined : fechaVencimientoSecuencia,
        IndicadorMontoGravado: indicadorMontoGravado,
        TipoIngresos: invoice.tipoIngresos,
        TipoPago: payment.tipoPago,
        FechaLimitePago: payment.tipoPago === '2' ? dgiiDate(addDays(invoice.emitted, 30)) : undefined,
        TablaFormasPago: paymentForms(payment.formas, totales.MontoTotal),
      }),
      Emisor: { RNCEmisor: rncEmisor, ...emisorTexts, FechaEmision: dgiiDate(invoice.emitted) },
      Comprador: invoice.buyer,
      Totales: totales,
      OtraMoneda: otraMoneda,
    }),
    DetallesItems: { Item: items },
    InformacionReferencia:
      reference === undefined
        ? undefined
        : {
            NCFModificado: reference.of.eNCF,
            FechaNCFModificado: dgiiDate(reference.of.emitted),
            CodigoModificacion: reference.code,
            RazonModificacion: reference.reason,
          },
  });
}

/** What the set varies: lines, buyers and dates drawn from one seeded sequence. */
class SetDraw {
  private readonly sequences = new Map<EcfType, number>();
  private readonly taken = new Set<string>();

  constructor(
    readonly dice: Dice,
    issuerRnc: string,
    private readonly year: number,
    private readonly firstSequence: (type: EcfType) => number,
  ) {
    this.taken.add(issuerRnc);
  }

  /** The next e-NCF of the type: E, the type, a 10-digit sequence from its first one (Formato e-CF field 3). */
  eNCF(type: EcfType): string {
    const next = (this.sequences.get(type) ?? this.firstSequence(type) - 1) + 1;
    this.sequences.set(type, next);
    return `E${type}${String(next).padStart(10, '0')}`;
  }

  /** A past day, before December so that a note one day later stays in the same year. */
  day(): Day {
    return { year: this.year, month: this.dice.int(1, 11), day: this.dice.int(1, 28) };
  }

  /** A made-up RNC with a valid check digit: companies start with 1, public bodies with 4. */
  rnc(prefix: '13' | '401'): string {
    for (;;) {
      let first = prefix;
      while (first.length < 8) first += String(this.dice.int(0, 9));
      const rnc = `${first}${String(rncCheckDigit(first))}`;
      if (!this.taken.has(rnc)) {
        this.taken.add(rnc);
        return rnc;
      }
    }
  }

  digits(count: number): string {
    return Array.from({ length: count }, () => String(this.dice.int(0, 9))).join('');
  }

  line(product: Product, more: Partial<Line> = {}): Line {
    const { dice } = this;
    const quantity =
      product.weighed === true ? dice.decimal(...product.quantity, 2) : String(dice.int(...product.quantity));
    return { product, quantity, price: dice.decimal(...product.price, product.priceDecimals ?? 2), ...more };
  }

  lines(products: readonly Product[], min: number, max: number, more: Partial<Line> = {}): Line[] {
    return this.dice.sample(products, this.dice.int(min, max)).map((product) => this.line(product, more));
  }
}

const cash: Payment = { tipoPago: '1', formas: ['1'] };
const credit: Payment = { tipoPago: '2', formas: ['4'] };

/**
 * The note's lines: the referenced invoice's first line, half its quantity (or all of a fraction), without discount,
 * retention or taxes, so that a credit note never exceeds its invoice (DGII 615, research/certification.md §4).
 */
function returnedLine(invoice: Invoice): Line {
  const first = invoice.lines[0];
  if (first === undefined) throw new Error(`certification set: ${invoice.eNCF} has no lines`);
  const half = new Big(first.quantity).div(2).round(0, Big.roundDown);
  return { product: first.product, quantity: half.gte(1) ? half.toFixed() : first.quantity, price: first.price };
}

/** A note one day after the invoice it modifies, to the same buyer and with its TipoIngresos (research/certification.md §3). */
function noteOf(
  draw: SetDraw,
  type: '33' | '34',
  of: Invoice,
  lines: readonly Line[],
  code: string,
  reason: string,
): Invoice {
  return {
    type,
    eNCF: draw.eNCF(type),
    emitted: addDays(of.emitted, 1),
    ...(of.buyer === undefined ? {} : { buyer: of.buyer }),
    ...(of.tipoIngresos === undefined ? {} : { tipoIngresos: of.tipoIngresos }),
    payment: type === '33' ? { tipoPago: '2', formas: [] } : { tipoPago: '1', formas: [] },
    lines,
    reference: { of, code, reason },
  };
}

/** The 25 e-CF in set order: each type's in the order its sequence numbers them. */
function invoicesOf(draw: SetDraw, defects: readonly SetDefect[]): Invoice[] {
  const { dice } = draw;
  const invoice = (
    type: EcfType,
    buyer: Json | undefined,
    payment: Payment,
    lines: readonly Line[],
    more: Partial<Invoice> = {},
  ): Invoice => ({
    type,
    eNCF: draw.eNCF(type),
    emitted: draw.day(),
    ...(buyer === undefined ? {} : { buyer }),
    // 41, 43 and 47 have no TipoIngresos (e-CF XSDs; research/certification.md §2, pitfall b).
    ...(['41', '43', '47'].includes(type) ? {} : { tipoIngresos: '01' }),
    payment,
    lines,
    ...more,
  });
  const company = (name: string): Json => ({ RNCComprador: draw.rnc('13'), RazonSocialComprador: name });
  const [buyerA, buyerB, buyerC, buyerD, buyerE, buyerF, buyerG] = dice.sample(companyNames, 7).map(company);

  // DGII's sets use up to ~16 lines per document (research/certification.md §2).
  const manyLines = invoice('31', buyerA, cash, draw.lines([...hardware, ...groceries], 10, 16));
  const onCredit = invoice('31', buyerB, credit, draw.lines(hardware, 2, 4));
  const fourDecimals = invoice(
    '31',
    buyerC,
    { tipoPago: '1', formas: ['2'] },
    draw.lines(
      hardware.filter((entry) => entry.priceDecimals === 4),
      2,
      3,
    ),
  );
  const lineDiscount = invoice('31', buyerD, { tipoPago: '1', formas: ['3'] }, [
    draw.line(dice.pick(hardware), { discountPercent: dice.pick([5, 10, 15]) }),
    ...draw.lines(hardware, 1, 2),
  ]);

  // At DOP 215,000 or more plus 18 % ITBIS, or three refrigerators at 72,000 or more: always 250,000.00 or more.
  const generator = invoice('32', buyerE, { tipoPago: '1', formas: ['2'] }, [
    draw.line(product('PLANTA ELECTRICA DIESEL 20 KW', '1', [215000, 240000], [1, 1], { unit: '43' })),
    draw.line(installation),
  ]);
  const refrigerators = invoice('32', buyerF, { tipoPago: '1', formas: ['3'] }, [
    draw.line(product('REFRIGERADOR COMERCIAL 2 PUERTAS', '1', [72000, 90000], [3, 4], { unit: '43' })),
  ]);
  // A few thousand pesos each: far under 250,000.00, so each goes to DGII as an RFCE.
  const finalConsumer = { RazonSocialComprador: 'CONSUMIDOR FINAL' };
  const small32 = [
    invoice('32', finalConsumer, { tipoPago: '1', formas: ['1', '3', '5'] }, draw.lines(groceries, 3, 5)),
    // Propina legal (Tabla I, 001).
    invoice('32', finalConsumer, cash, draw.lines(restaurant, 2, 3, { taxes: ['001'] })),
    // CDT (002) and ISC telecomunicaciones (004).
    invoice('32', buyerG, { tipoPago: '1', formas: ['3'] }, draw.lines(telecom, 1, 2, { taxes: ['002', '004'] })),
    invoice(
      '32',
      finalConsumer,
      cash,
      draw.lines(
        groceries.filter((entry) => entry.weighed === true || entry.priceDecimals === 4),
        2,
        2,
      ),
    ),
  ];

  const [supplierA, supplierB] = dice.sample(informalSuppliers, 2).map(company);
  // An informal supplier's service: its ITBIS retained in full, ISR at 10 %.
  const plumbing = invoice('41', supplierA, cash, [
    draw.line(product('SERVICIO DE PLOMERIA Y REPARACIONES', '1', [3000, 9000], [1, 1], { service: true }), {
      retention: { itbisShare: '1', isrRate: '0.10' },
    }),
  ]);
  // Farm produce (exempt: ITBIS retained 0, Formato e-CF n. 53) and scrap metal (30 % of its ITBIS retained), ISR at 2 %.
  const produce = invoice('41', supplierB, cash, [
    draw.line(product('PLATANOS VERDES, RACIMO', '4', [250, 450], [5, 40], { unit: '43' }), {
      retention: { itbisShare: '1', isrRate: '0.02' },
    }),
    draw.line(product('CHATARRA DE HIERRO, KG', '1', [9, 14], [200, 1500], { unit: '21', priceDecimals: 4 }), {
      retention: { itbisShare: '0.30', isrRate: '0.02' },
    }),
  ]);

  const freight = draw.line(product('CARGO POR FLETE NO FACTURADO', '1', [1500, 4500], [1, 1], { service: true }));
  const notes = [
    // A debit note never uses CodigoModificacion 1 (DGII code 64, research/certification.md §4).
    noteOf(draw, '33', manyLines, [freight], '3', 'CARGO DE FLETE OMITIDO EN LA FACTURA'),
    noteOf(draw, '34', onCredit, [returnedLine(onCredit)], '3', 'DEVOLUCION PARCIAL DE MERCANCIA'),
    // One of DGII's sets had a 34 modifying a 41, without TipoIngresos as if copied from the 41 (research/certification.md §2, pitfall a).
    defects.includes('type34_without_tipo_ingresos')
      ? noteOf(draw, '34', plumbing, [returnedLine(plumbing)], '3', 'DEVOLUCION PARCIAL DEL SERVICIO')
      : noteOf(draw, '34', fourDecimals, [returnedLine(fourDecimals)], '3', 'DEVOLUCION PARCIAL DE MERCANCIA'),
  ];

  const minor43 = minorExpenses.map((products) =>
    invoice('43', undefined, { tipoPago: '1', formas: [] }, draw.lines(products, 2, 3)),
  );
  const [zoneA, zoneB] = dice.sample(freeZoneNames, 2).map(company);
  const special44 = [
    invoice('44', zoneA, credit, draw.lines(freeZoneSupplies, 1, 3)),
    invoice('44', zoneB, cash, draw.lines(freeZoneSupplies, 1, 2)),
  ];
  const [governmentA, governmentB] = dice
    .sample(governmentNames, 2)
    .map((name) => ({ RNCComprador: draw.rnc('401'), RazonSocialComprador: name }));
  const government45 = [
    invoice('45', governmentA, credit, draw.lines(office, 2, 4)),
    invoice('45', governmentB, credit, draw.lines(office, 1, 3)),
  ];

  const foreign = (entry: { name: string; prefix: string; country?: string }): Json =>
    defined({
      IdentificadorExtranjero:
        entry.prefix + (entry.prefix.startsWith('US') ? `${draw.digits(2)}-${draw.digits(7)}` : draw.digits(9)),
      RazonSocialComprador: entry.name,
      PaisComprador: entry.country,
    });
  const [importerA, importerB] = dice.sample(importers, 2).map(foreign);
  // Also stated in US dollars: the DOP price is the dollar price at TipoCambio (other currency is optional in the set).
  const tipoCambio = dice.decimal(57.5, 62.5, 2);
  const usd = dice.decimal(80, 120, 2);
  const cigars: Line = {
    // Priced in dollars here, not from the product's DOP range.
    product: product('CIGARROS PREMIUM, CAJA DE 25', '3', [0, 0], [20, 200], { unit: '6' }),
    quantity: String(dice.int(20, 200)),
    price: new Big(usd).times(tipoCambio).toFixed(4),
    priceOtherCurrency: usd,
  };
  const exports46 = [
    invoice('46', importerA, credit, draw.lines(exportGoods, 1, 2)),
    invoice('46', importerB, credit, [cigars], { currency: { TipoMoneda: 'USD', TipoCambio: tipoCambio } }),
  ];

  const [providerA, providerB] = dice.sample(providersAbroad, 2).map(foreign);
  // Payments abroad: ISR retained at 27 % on every line (Ley 11-92 art. 305).
  const abroad = { retention: { isrRate: '0.27' } };
  const abroad47 = [
    invoice('47', providerA, { tipoPago: '1', formas: ['2'] }, draw.lines(servicesAbroad, 1, 1, abroad)),
    invoice('47', providerB, { tipoPago: '1', formas: ['2'] }, draw.lines(servicesAbroad, 2, 3, abroad)),
  ];
  return [
    manyLines,
    onCredit,
    fourDecimals,
    lineDiscount,
    generator,
    refrigerators,
    ...small32,
    ...notes,
    plumbing,
    produce,
    ...minor43,
    ...special44,
    ...government45,
    ...exports46,
    ...abroad47,
  ];
}

/** The first sequence number of each type's e-NCF: one for every type, or per type (1 where a type is not given). */
export type SequenceStart = number | Partial<Readonly<Record<EcfType, number>>>;

const maxSequence = 9_999_999_999;

function firstSequenceOf(start: SequenceStart | undefined): (type: EcfType) => number {
  return (type) => {
    const first = typeof start === 'number' ? start : (start?.[type] ?? 1);
    if (!Number.isSafeInteger(first) || first < 1 || first > maxSequence - 50)
      throw new RangeError(
        `certification set: the first sequence of type ${type} (${String(first)}) is not a sequence number with room for the set`,
      );
    return first;
  };
}

/**
 * The set for the taxpayer `rnc` (its RNCEmisor), dated before `now`, its content drawn from `seed` (1 when not
 * given). `defects` injects known defects of DGII's own sets. `sequenceStart` moves the e-NCF on (each type from 1
 * when not given): a set DGII issues again after a reset does not reuse the numbers the last one burned
 * (research/certification.md §3, "After a reset").
 */
export function generateCertificationSet(input: {
  rnc: string;
  now: Date;
  seed?: number;
  defects?: readonly SetDefect[];
  sequenceStart?: SequenceStart;
}): GeneratedCase[] {
  if (checkTaxpayerId(input.rnc) !== undefined)
    throw new RangeError(`certification set: ${input.rnc} is not a valid RNC or cédula`);
  const today = calendarDateOf(input.now);
  // Dates of the set are in the past (DGII's: 2018, 2020); the sequences expire at the end of next year.
  const draw = new SetDraw(
    new Dice(input.seed ?? 1),
    input.rnc,
    Math.min(2020, today.year - 1),
    firstSequenceOf(input.sequenceStart),
  );
  const expiry = dgiiDate({ year: today.year + 1, month: 12, day: 31 });
  const ecf = invoicesOf(draw, input.defects ?? []).map((invoice): GeneratedCase => ({
    kind: 'ECF',
    caseKey: input.rnc + invoice.eNCF,
    ecfType: invoice.type,
    payload: ecfPayload(invoice, input.rnc, expiry),
  }));
  // A type 32 under DOP 250,000.00 goes to DGII as an RFCE (Informe Técnico; research/dgii-protocol.md §8).
  const rfce = ecf
    .filter((entry) =>
      isConsumerSummary(entry.ecfType, textAt(entry.payload, ['Encabezado', 'Totales', 'MontoTotal']) ?? ''),
    )
    .map((entry): GeneratedCase => ({ ...entry, kind: 'RFCE', payload: rfcePayloadOf(entry.payload) }));
  return [...ecf, ...rfce];
}

// ---- RFCE ------------------------------------------------------------------------------------------------------

function groupAt(value: unknown, path: readonly string[]): Json | undefined {
  let current = value;
  for (const name of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = (current as Json)[name];
  }
  return typeof current === 'object' && current !== null && !Array.isArray(current) ? (current as Json) : undefined;
}

function textAt(value: unknown, path: readonly string[]): string | undefined {
  const leaf = groupAt(value, path.slice(0, -1))?.[path[path.length - 1] ?? ''];
  return typeof leaf === 'string' && leaf !== '' ? leaf : undefined;
}
