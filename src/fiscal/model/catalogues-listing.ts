// Every official catalogue an integrator needs to fill an e-CF (and the receipts), as the API lists them: the XSD
// enumerations the model validates with (generated/catalogues.ts), with a title in both languages, where the data
// comes from, and what DGII's labels imply made explicit (a municipality's province, a unit's abbreviation, an
// additional tax's kind and rate).
import { additionalTaxKind, fixedRate } from '../totals/additional-tax-catalogue.js';
import type { CatalogueEntry } from './ecf-model-types.js';
import { notReceivedReasons } from '../responses/arecf.js';
import { catalogues, codigosImpuestoAdicional, municipios, unidadesMedida } from './generated/catalogues.js';

export interface CatalogueItem {
  readonly code: string;
  readonly name: string;
  /** Units of measure: DGII's abbreviation (KG, UND, ...). */
  readonly abbreviation?: string;
  /** Municipalities and municipal districts: the province they belong to. */
  readonly province?: string;
  /** Municipal districts (D. M.): the municipality they belong to. */
  readonly municipality?: string;
  /** Additional taxes: where the amount goes in the e-CF (Formato e-CF Tabla I). */
  readonly kind?: 'specific' | 'ad_valorem' | 'other';
  /** Additional taxes: the percentage fixed by law; null where DGII indexes an amount per unit quarterly. */
  readonly rate?: string | null;
  /** Additional taxes 006–022: the amount per unit printed in Tabla I (indexed since; send the rate in force). */
  readonly referenceAmount?: string;
}

export interface Catalogue {
  readonly key: string;
  readonly title: { readonly es: string; readonly en: string };
  /** The DGII material the entries come from, and its version. */
  readonly source: string;
  readonly version: string;
  readonly entries: readonly CatalogueItem[];
}

const formato = 'Formato Comprobante Fiscal Electrónico (e-CF) y XSD e-CF';

interface Described {
  readonly es: string;
  readonly en: string;
  readonly source?: string;
  /** DGII's labels are empty for a few codes; these names come from the format document's field descriptions. */
  readonly names?: Readonly<Record<string, string>>;
}

/** The model's catalogues, by the name the XSDs give their enumeration. */
const modelCatalogues: Readonly<Record<string, Described>> = {
  tiposECF: { es: 'Tipos de e-CF', en: 'e-CF types' },
  tiposIngresos: { es: 'Tipos de ingresos', en: 'Income types' },
  tiposPago: { es: 'Tipos de pago', en: 'Payment types' },
  formasPago: { es: 'Formas de pago', en: 'Payment forms' },
  tiposCuentaPago: { es: 'Tipos de cuenta de pago', en: 'Payment account types' },
  indicadoresFacturacion: {
    es: 'Indicadores de facturación (ITBIS) de las líneas',
    en: 'ITBIS billing indicators of the lines',
  },
  indicadoresFacturacionDescuentoRecargo: {
    es: 'Indicadores de facturación de descuentos y recargos',
    en: 'Billing indicators of discounts and surcharges',
  },
  indicadoresMontoGravado: {
    es: 'Indicador de monto gravado (ITBIS incluido)',
    en: 'Taxed amount indicator (ITBIS included)',
  },
  indicadoresEnvioDiferido: { es: 'Indicador de envío diferido', en: 'Deferred sending indicator' },
  indicadoresServicioTodoIncluido: { es: 'Indicador de servicio todo incluido', en: 'All-inclusive service indicator' },
  indicadoresNorma1007: { es: 'Indicador Norma 10-07', en: 'Norma 10-07 indicator' },
  indicadoresAgenteRetencionoPercepcion: {
    es: 'Indicador de agente de retención o percepción',
    en: 'Withholding or collection agent indicator',
  },
  indicadoresBienoServicio: { es: 'Indicador de bien o servicio', en: 'Goods or service indicator' },
  unidadesMedida: { es: 'Unidades de medida', en: 'Units of measure' },
  monedas: { es: 'Monedas', en: 'Currencies' },
  provincias: { es: 'Provincias', en: 'Provinces' },
  municipios: { es: 'Municipios y distritos municipales', en: 'Municipalities and municipal districts' },
  codigosImpuestoAdicional: { es: 'Impuestos adicionales', en: 'Additional taxes', source: `${formato}, Tabla I` },
  codigosModificacion: { es: 'Códigos de modificación', en: 'Modification codes' },
  tiposAjuste: {
    es: 'Tipos de ajuste (descuento o recargo)',
    en: 'Adjustment types (discount or surcharge)',
    names: { D: 'Descuento', R: 'Recargo' },
  },
  tiposDescuentoRecargo: {
    es: 'Tipos de valor de descuento o recargo',
    en: 'Discount or surcharge value types',
    names: { $: 'Monto', '%': 'Porcentaje' },
  },
  tiposAfiliacion: { es: 'Tipos de afiliación', en: 'Affiliation types' },
  tiposLiquidacion: { es: 'Tipos de liquidación', en: 'Settlement types' },
  viasTransporte: { es: 'Vías de transporte', en: 'Means of transport' },
  versiones: { es: 'Versiones del formato e-CF', en: 'e-CF format versions', names: { '1.0': 'Versión 1.0' } },
};

function plain(name: string, described: Described): Catalogue {
  const entries = (catalogues[name] ?? []).map((entry) => ({
    code: entry.code,
    name: described.names?.[entry.code] ?? entry.label,
  }));
  return {
    key: name,
    title: { es: described.es, en: described.en },
    source: described.source ?? formato,
    version: '1.0',
    entries,
  };
}

/** DGII writes a unit as "KG\tKilogramo" (a tab or spaces between the abbreviation and the name). */
function unitOf(entry: CatalogueEntry): CatalogueItem {
  const match = /^(\S+)\s+(.+)$/.exec(entry.label.trim());
  return match === null
    ? { code: entry.code, name: entry.label }
    : { code: entry.code, name: (match[2] ?? '').trim(), abbreviation: match[1] ?? '' };
}

/** Codes are PPMMDD (province, municipality, district; DGII's División Territorial), but DGII's list has slips
 * (MUNICIPIO NEIBA is 030001, not 030100), so a municipality is a code ending in 00 or a label saying MUNICIPIO,
 * and a district belongs to the municipality listed before it in the same province. */
function placesOf(entries: readonly CatalogueEntry[]): CatalogueItem[] {
  let municipality: string | undefined;
  return entries.map((entry) => {
    const province = `${entry.code.slice(0, 2)}0000`;
    if (entry.code.endsWith('00') || entry.label.startsWith('MUNICIPIO ')) {
      municipality = entry.code;
      return { code: entry.code, name: entry.label, province };
    }
    const parent = municipality?.startsWith(entry.code.slice(0, 2)) === true ? { municipality } : {};
    return { code: entry.code, name: entry.label, province, ...parent };
  });
}

function additionalTaxOf(entry: CatalogueEntry & { rate: string; rateKind: 'percent' | 'amount' }): CatalogueItem {
  const kind = additionalTaxKind(entry.code);
  const mapped =
    kind === 'other'
      ? 'other'
      : kind === 'alcohol-specific' || kind === 'cigarette-specific'
        ? 'specific'
        : 'ad_valorem';
  const rate = fixedRate(entry.code) ?? null;
  return {
    code: entry.code,
    name: entry.label,
    kind: mapped,
    rate,
    ...(rate === null ? { referenceAmount: entry.rate } : {}),
  };
}

const special: Readonly<Record<string, (described: Described) => Catalogue>> = {
  unidadesMedida: (d) => ({ ...plain('unidadesMedida', d), entries: unidadesMedida.map(unitOf) }),
  municipios: (d) => ({ ...plain('municipios', d), entries: placesOf(municipios) }),
  codigosImpuestoAdicional: (d) => ({
    ...plain('codigosImpuestoAdicional', d),
    entries: codigosImpuestoAdicional.map(additionalTaxOf),
  }),
};

/** The receipts' codes (not in the e-CF XSDs): ARECF Estado / CodigoMotivoNoRecibido, ACECF Estado. */
const receiptCatalogues: readonly Catalogue[] = [
  {
    key: 'estadosAcuseRecibo',
    title: { es: 'Estados del acuse de recibo (ARECF)', en: 'Receipt acknowledgement (ARECF) states' },
    source: 'Formato Acuse de Recibo (ARECF) y XSD ARECF',
    version: '1.0',
    entries: [
      { code: '0', name: 'e-CF recibido' },
      { code: '1', name: 'e-CF no recibido' },
    ],
  },
  {
    key: 'codigosMotivoNoRecibido',
    title: { es: 'Motivos de no recepción (ARECF)', en: 'Not-received reasons (ARECF)' },
    source: 'Formato Acuse de Recibo (ARECF) y XSD ARECF',
    version: '1.0',
    entries: Object.entries(notReceivedReasons).map(([code, name]) => ({ code, name })),
  },
  {
    key: 'estadosAprobacionComercial',
    title: { es: 'Estados de la aprobación comercial (ACECF)', en: 'Commercial approval (ACECF) states' },
    source: 'Formato Aprobación Comercial (ACECF) y XSD ACECF',
    version: '1.0',
    entries: [
      { code: '1', name: 'e-CF aceptado' },
      { code: '2', name: 'e-CF rechazado' },
    ],
  },
];

/** Every catalogue, in a fixed order: the model's as listed above, then the receipts'. */
export const catalogueListing: readonly Catalogue[] = [
  ...Object.entries(modelCatalogues).map(([name, described]) =>
    (special[name] ?? ((d: Described) => plain(name, d)))(described),
  ),
  ...receiptCatalogues,
];

/** Keys of the model's catalogues the listing has no title for: must stay empty (a new enumeration needs one). */
export function untitledModelCatalogues(): string[] {
  return Object.keys(catalogues).filter((name) => !(name in modelCatalogues));
}
