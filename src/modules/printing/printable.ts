// The data of the printed representation (RI) of an e-CF, read from the signed XML as archived, never from the
// request: what is printed must be what was signed. Order and legends follow Informe Técnico e-CF §17.2 (header:
// type in words, e-NCF, sequence expiry, modified e-NCF and modification code in words for notes; issuer; buyer;
// lines with "E" beside exempt items; totals; QR, "Código de Seguridad" and "Fecha de Firma Digital"). Legends carry
// only DGII's own wording. Type 32 under DOP 250,000 differs in its QR (ConsultaTimbreFC, four parameters), an
// optional buyer RNC and no sequence expiry. Layout and the QR image are the printer's (modules/printing); the
// pagination the XML declares (Paginacion) is read here, so the printer follows it exactly.
import Big from 'big.js';
import type { FiscalEnvironment } from '../../config.js';
import type { EcfObject, EcfValue } from '../../fiscal/build/index.js';
import type { CatalogueEntry } from '../../fiscal/model/index.js';
import { codigosModificacion, municipios, provincias, unidadesMedida } from '../../fiscal/model/index.js';
import { isConsumerSummary, timbreUrl } from '../../fiscal/timbre-url.js';
import { formatAmount, itbisRate, type BillingIndicator } from '../../fiscal/totals/index.js';
import type { PrintableDocument } from './printable.schema.js';

function group(value: EcfValue | undefined): EcfObject | undefined {
  return typeof value === 'object' && !Array.isArray(value) ? (value as EcfObject) : undefined;
}

function groups(value: EcfValue | undefined): readonly EcfObject[] {
  if (!Array.isArray(value)) return group(value) === undefined ? [] : [value as EcfObject];
  return value.filter((entry): entry is EcfObject => typeof entry === 'object');
}

function textAt(node: EcfObject | undefined, name: string): string | undefined {
  const value = node?.[name];
  return typeof value === 'string' ? value : undefined;
}

function orNull(value: string | undefined): string | null {
  return value ?? null;
}

/** Catalogue labels of units carry the abbreviation then, after a tab, the name: the RI wants the unit in words. */
function inWords(
  catalogue: readonly CatalogueEntry[],
  code: string | undefined,
): { code: string; name: string } | null {
  if (code === undefined) return null;
  const entry = catalogue.find((candidate) => candidate.code === code);
  const label = entry?.label ?? code;
  return { code, name: label.includes('\t') ? (label.split('\t').pop() ?? label).trim() : label };
}

/** The type printed top right, as Ley 32-23 and the Informe Técnico (§4) name it: the Formato's table is shorter
 * for 41 and 43-47 ("Compras Electrónico", ...), and those short names are not the documents' legal names. */
export const typeTitles: Readonly<Record<string, string>> = {
  '31': 'Factura de Crédito Fiscal Electrónica',
  '32': 'Factura de Consumo Electrónica',
  '33': 'Nota de Débito Electrónica',
  '34': 'Nota de Crédito Electrónica',
  '41': 'Comprobante Electrónico de Compras',
  '43': 'Comprobante Electrónico para Gastos Menores',
  '44': 'Comprobante Electrónico para Regímenes Especiales',
  '45': 'Comprobante Electrónico Gubernamental',
  '46': 'Comprobante Electrónico para Exportaciones',
  '47': 'Comprobante Electrónico para Pagos al Exterior',
};

/** The legends of the Modelos ilustrativos (3.1 and 4.1), verbatim. */
export const deferredSendingLegend =
  'e-CF emitido en modalidad Envío Diferido, podrá ser consultado para su validez fiscal, a partir de las veinticuatro (24) horas.';
export const contingencyLegend =
  'e-CF emitido en modalidad de Contingencia, el cual podrá ser consultado para su validez fiscal, a partir de las setenta y dos (72) horas.';

// The amounts of Totales printed in the totals box, in the models' order, when the XML carries them. Retentions
// and perceptions are not printed (Formato column I: N).
const totalLabels: readonly [string, string][] = [
  ['MontoGravadoTotal', 'Subtotal Gravado'],
  ['MontoExento', 'Subtotal Exento'],
  ['MontoImpuestoSelectivoConsumoEspecifico', 'Total ISC Específico'],
  ['MontoImpuestoSelectivoConsumoAdvalorem', 'Total ISC Ad Valorem'],
  ['OtrosImpuestosAdicionales', 'Otros Impuestos Adicionales'],
  ['TotalITBIS', 'Total ITBIS'],
  ['MontoNoFacturable', 'Monto No Facturable'],
  ['MontoTotal', 'Total'],
];

// A page's subtotals (Paginacion/Pagina), labelled as Informe Técnico fn. 56 and model 1.7 print them. The ISC and
// other additional taxes sit one level down, in Pagina/SubtotalImpuestoAdicional.
const pageSubtotalLabels: readonly [string, string][] = [
  ['SubtotalMontoGravadoPagina', 'Subtotal Gravado Página'],
  ['SubtotalExentoPagina', 'Subtotal Exento Página'],
  ['SubtotalItbisPagina', 'Subtotal ITBIS Página'],
  ['SubtotalImpuestoAdicionalPagina', 'Subtotal Impuesto Adicional Página'],
];
const pageAdditionalTaxLabels: readonly [string, string][] = [
  ['SubtotalImpuestoSelectivoConsumoEspecificoPagina', 'Subtotal ISC Página'],
  ['SubtotalOtrosImpuesto', 'Subtotal Otros Impuestos Adicionales Página'],
];
const pageTotalLabels: readonly [string, string][] = [
  ['SubtotalMontoNoFacturablePagina', 'Subtotal No Facturable Página'],
  ['MontoSubtotalPagina', 'Monto Total Página'],
];

function labelled(node: EcfObject | undefined, labels: readonly [string, string][]) {
  return labels.flatMap(([code, label]) => {
    const amount = textAt(node, code);
    return amount === undefined ? [] : [{ code, label, amount }];
  });
}

/**
 * The ITBIS of one line, which the XML does not carry (Informe Técnico §17.2.2, "si aplica"): MontoItem at the
 * rate of its indicator as Totales states it, or the part of it that is ITBIS when prices include the tax
 * (IndicadorMontoGravado 1). Shown only; the totals printed are always the XML's own.
 */
function lineItbis(amount: string, indicator: string, totals: EcfObject | undefined, taxIncluded: boolean) {
  const stated = textAt(totals, `ITBIS${indicator}`);
  const ratio =
    stated !== undefined && /^\d+(\.\d+)?$/.test(stated)
      ? new Big(stated).div(100)
      : itbisRate(Number(indicator) as BillingIndicator);
  if (ratio === undefined || !/^\d+(\.\d+)?$/.test(amount)) return null;
  const base = new Big(amount);
  return formatAmount(taxIncluded ? base.minus(base.div(ratio.plus(1))) : base.times(ratio));
}

export interface PrintableContext {
  id: string;
  status: string;
  environment: FiscalEnvironment;
  /** From the SignatureValue of the archived signed XML. */
  securityCode: string;
  /** DGII accepted it (with or without conditions): only then can its RI support a fiscal credit. Null when that
   * is not ours to know (an e-CF another taxpayer sent us). */
  acceptedByDgii: boolean | null;
  /** Recorded when the e-CF was issued while DGII could not be reached (the 72-hour legend); never recomputed. */
  contingency: boolean;
}

export function printableOf(document: EcfObject, context: PrintableContext): PrintableDocument {
  const header = group(document['Encabezado']);
  const idDoc = group(header?.['IdDoc']);
  const issuer = group(header?.['Emisor']);
  const buyer = group(header?.['Comprador']);
  const totals = group(header?.['Totales']);
  const otherCurrency = group(header?.['OtraMoneda']);
  const reference = group(document['InformacionReferencia']);

  const ecfType = textAt(idDoc, 'TipoeCF') ?? '';
  const typeName = typeTitles[ecfType] ?? ecfType;
  const eNCF = textAt(idDoc, 'eNCF') ?? '';
  const sequenceExpiry = orNull(textAt(idDoc, 'FechaVencimientoSecuencia'));
  const issueDate = textAt(issuer, 'FechaEmision') ?? '';
  const issuerRnc = textAt(issuer, 'RNCEmisor') ?? '';
  const buyerRnc = textAt(buyer, 'RNCComprador');
  const montoTotal = textAt(totals, 'MontoTotal') ?? '0.00';
  const signatureDate = textAt(document, 'FechaHoraFirma') ?? '';
  const consumerSummary = isConsumerSummary(ecfType, montoTotal);
  const taxIncluded = textAt(idDoc, 'IndicadorMontoGravado') === '1';
  const deferredSending = textAt(idDoc, 'IndicadorEnvioDiferido') === '1';

  const lines = groups(group(document['DetallesItems'])?.['Item']).map((item) => {
    const billingIndicator = textAt(item, 'IndicadorFacturacion') ?? '';
    const exempt = billingIndicator === '4';
    return {
      lineNumber: textAt(item, 'NumeroLinea') ?? '',
      billingIndicator,
      exempt,
      mark: exempt ? ('E' as const) : null,
      name: textAt(item, 'NombreItem') ?? '',
      description: orNull(textAt(item, 'DescripcionItem')),
      quantity: textAt(item, 'CantidadItem') ?? '',
      unit: inWords(unidadesMedida, textAt(item, 'UnidadMedida')),
      unitPrice: textAt(item, 'PrecioUnitarioItem') ?? '',
      discount: orNull(textAt(item, 'DescuentoMonto')),
      surcharge: orNull(textAt(item, 'RecargoMonto')),
      amount: textAt(item, 'MontoItem') ?? '',
      itbis: exempt ? null : lineItbis(textAt(item, 'MontoItem') ?? '', billingIndicator, totals, taxIncluded),
    };
  });

  // Only the amounts (string leaves) of Totales: its nested tables (ImpuestosAdicionales) are per-tax detail.
  const totalAmounts: Record<string, string> = {};
  for (const [name, value] of Object.entries(totals ?? {})) if (typeof value === 'string') totalAmounts[name] = value;

  const modifiedNcf = textAt(reference, 'NCFModificado');
  const modificationCode = inWords(codigosModificacion, textAt(reference, 'CodigoModificacion'));
  const securityCode = context.securityCode;

  const legends: PrintableDocument['legends'] = [
    { code: 'type_name', text: typeName },
    { code: 'encf', text: `e-NCF: ${eNCF}` },
  ];
  if (sequenceExpiry !== null) legends.push({ code: 'sequence_expiry', text: `Fecha Vencimiento: ${sequenceExpiry}` });
  if (modifiedNcf !== undefined) legends.push({ code: 'modified_encf', text: `e-NCF Modificado: ${modifiedNcf}` });
  if (modificationCode !== null)
    legends.push({ code: 'modification_code', text: `Código de Modificación: ${modificationCode.name}` });
  legends.push({ code: 'security_code', text: `Código de Seguridad: ${securityCode}` });
  legends.push({ code: 'signature_date', text: `Fecha de Firma Digital: ${signatureDate}` });
  // Informe Técnico §17: an RI of an e-CF DGII has not received, or has rejected, cannot support a fiscal credit.
  // Said to the integrator, not printed: the document may well be accepted by the time the paper is read.
  if (deferredSending) legends.push({ code: 'deferred_sending', text: deferredSendingLegend });
  if (context.contingency) legends.push({ code: 'contingency', text: contingencyLegend });
  const notices: PrintableDocument['notices'] =
    context.acceptedByDgii !== false
      ? []
      : [
          {
            code: 'not_accepted_yet',
            text: 'DGII has not accepted this e-CF (yet): until it does, its printed representation cannot support a fiscal credit.',
          },
        ];

  return {
    id: context.id,
    status: context.status,
    ecfType,
    typeName,
    eNCF,
    sequenceExpiry,
    issueDate,
    issuer: {
      rnc: issuerRnc,
      legalName: textAt(issuer, 'RazonSocialEmisor') ?? '',
      tradeName: orNull(textAt(issuer, 'NombreComercial')),
      branch: orNull(textAt(issuer, 'Sucursal')),
      address: orNull(textAt(issuer, 'DireccionEmisor')),
      municipality: inWords(municipios, textAt(issuer, 'Municipio')),
      province: inWords(provincias, textAt(issuer, 'Provincia')),
    },
    buyer:
      buyer === undefined
        ? null
        : {
            rnc: orNull(buyerRnc),
            foreignId: orNull(textAt(buyer, 'IdentificadorExtranjero')),
            legalName: orNull(textAt(buyer, 'RazonSocialComprador')),
            address: orNull(textAt(buyer, 'DireccionComprador')),
          },
    reference:
      modifiedNcf === undefined
        ? null
        : {
            modifiedNcf,
            modifiedNcfDate: orNull(textAt(reference, 'FechaNCFModificado')),
            modificationCode,
            reason: orNull(textAt(reference, 'RazonModificacion')),
          },
    lines,
    totals: totalAmounts,
    totalLines: labelled(totals, totalLabels),
    pagination: paginationOf(group(document['Paginacion']), textAt(idDoc, 'TotalPaginas')),
    deferredSending,
    contingency: context.contingency,
    currency:
      otherCurrency === undefined
        ? null
        : {
            code: textAt(otherCurrency, 'TipoMoneda') ?? '',
            exchangeRate: orNull(textAt(otherCurrency, 'TipoCambio')),
          },
    securityCode,
    signatureDate,
    qr: {
      url: timbreUrl(context.environment, {
        TipoeCF: ecfType,
        RNCEmisor: issuerRnc,
        RNCComprador: buyerRnc,
        eNCF,
        FechaEmision: issueDate,
        MontoTotal: montoTotal,
        FechaHoraFirma: signatureDate,
        CodigoSeguridad: securityCode,
      }),
      consumerSummary,
    },
    legends,
    notices,
  };
}

/** Paginacion, when the XML has one (more than one page): which lines each page holds and its subtotals. */
function paginationOf(node: EcfObject | undefined, totalPages: string | undefined): PrintableDocument['pagination'] {
  if (node === undefined) return null;
  const pages = groups(node['Pagina']).map((page) => ({
    number: Number(textAt(page, 'PaginaNo') ?? '0'),
    fromLine: Number(textAt(page, 'NoLineaDesde') ?? '0'),
    toLine: Number(textAt(page, 'NoLineaHasta') ?? '0'),
    subtotals: [
      ...labelled(page, pageSubtotalLabels),
      ...labelled(group(page['SubtotalImpuestoAdicional']), pageAdditionalTaxLabels),
      ...labelled(page, pageTotalLabels),
    ],
  }));
  return { totalPages: totalPages === undefined ? pages.length : Number(totalPages), pages };
}
