// Additional taxes per line, at full precision; the totals round once per field (Informe Técnico §13).
// Formulas: Informe Técnico §14 (ISC alcohol and cigarettes) and §15 (other additional taxes); Formato e-CF
// fields 106–109.
import Big from 'big.js';
import { error, type Finding } from '../finding.js';
import { hundred, sum, zero } from './decimal.js';
import { additionalTaxKind, fixedRate } from './additional-tax-catalogue.js';
import { itbisRate, type Line, type TotalsDocument } from './totals-document.js';
import type { ResolvedAdjustment } from './global-adjustments.js';

export interface LineTax {
  readonly code: string;
  readonly line: Line;
  readonly amount: Big;
}

const itbisRate1 = new Big('0.18');
const one = new Big(1);
// Informe Técnico §14: bulk alcohol (UnidadMedida 18, granel) is listed at +30 % and has no ISC específico.
const granel = '18';
const bulkListPriceFactor = new Big('1.30');

export function taxRates(document: TotalsDocument, findings: Finding[]): Map<string, Big> {
  const codes = new Set(document.lines.flatMap((line) => line.taxCodes));
  const rates = new Map<string, Big>();
  for (const code of codes) {
    const fixed = fixedRate(code);
    const given = document.givenTaxRates.get(code);
    if (fixed !== undefined) {
      // Formato e-CF field 106 a: the rate is validated against Tabla I, so Tabla I's rate is the one used.
      if (given !== undefined && !given.eq(fixed)) {
        findings.push(
          error(
            '/Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional',
            'additional_tax_rate_mismatch',
            `TipoImpuesto ${code} has the rate ${fixed} in Tabla I, not ${given.toString()}.`,
          ),
        );
      }
      rates.set(code, new Big(fixed));
    } else if (given === undefined) {
      // Formato e-CF field 106 b and Tabla I n. 82: the specific ISC amount changes every quarter.
      findings.push(
        error(
          '/Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional',
          'additional_tax_rate_required',
          `TipoImpuesto ${code} has a rate indexed quarterly: send its TasaImpuestoAdicional (in force on FechaEmision) in Totales/ImpuestosAdicionales.`,
        ),
      );
    } else {
      rates.set(code, given);
    }
  }
  return rates;
}

export function computeLineTaxes(
  document: TotalsDocument,
  adjustments: readonly ResolvedAdjustment[],
  rates: ReadonlyMap<string, Big>,
  findings: Finding[],
): LineTax[] {
  const norma1007 = adjustments.some((adjustment) => adjustment.norma1007);
  const taxes: LineTax[] = [];
  for (const line of document.lines) {
    const specific = specificTax(line, rates);
    for (const code of line.taxCodes) {
      const rate = rates.get(code);
      if (rate === undefined) continue;
      const amount = lineTax(code, rate, line, { document, adjustments, rates, norma1007, specific, findings });
      if (amount !== undefined) taxes.push({ code, line, amount });
    }
  }
  return taxes;
}

interface TaxContext {
  readonly document: TotalsDocument;
  readonly adjustments: readonly ResolvedAdjustment[];
  readonly rates: ReadonlyMap<string, Big>;
  readonly norma1007: boolean;
  readonly specific: Big;
  readonly findings: Finding[];
}

function lineTax(code: string, rate: Big, line: Line, context: TaxContext): Big | undefined {
  const kind = additionalTaxKind(code);
  switch (kind) {
    case undefined:
      return undefined;
    case 'other':
      return otherTax(code, rate.div(hundred), line, context);
    case 'alcohol-specific':
    case 'cigarette-specific':
      return specificTaxFor(code, rate, line, context.findings);
    case 'alcohol-ad-valorem':
      return alcoholAdValorem(rate.div(hundred), line, context);
    case 'cigarette-ad-valorem':
      return cigaretteAdValorem(rate.div(hundred), line, context);
  }
}

/** The line's ISC específico (006–022), needed by the ad valorem formulas of the same line. */
function specificTax(line: Line, rates: ReadonlyMap<string, Big>): Big {
  return sum(
    line.taxCodes.flatMap((code) => {
      const kind = additionalTaxKind(code);
      const rate = rates.get(code);
      if (rate === undefined || (kind !== 'alcohol-specific' && kind !== 'cigarette-specific')) return [];
      // Findings about missing fields are reported once, by the específico code itself.
      return [specificTaxFor(code, rate, line, []) ?? zero];
    }),
  );
}

function specificTaxFor(code: string, rate: Big, line: Line, findings: Finding[]): Big | undefined {
  const kind = additionalTaxKind(code);
  const at = `/DetallesItems/Item/${line.index}`;
  if (kind === 'alcohol-specific') {
    if (line.unitOfMeasure === granel) return undefined;
    // Informe Técnico §14: Tasa × GradosAlcohol % × CantidadReferencia × Subcantidad × CantidadItem.
    const { alcoholDegrees, referenceQuantity, subquantity, quantity } = line;
    if (
      alcoholDegrees === undefined ||
      referenceQuantity === undefined ||
      subquantity === undefined ||
      quantity === undefined
    ) {
      findings.push(
        error(
          at,
          'isc_field_required',
          `ISC específico ${code} needs GradosAlcohol, CantidadReferencia, Subcantidad and CantidadItem on the line.`,
        ),
      );
      return undefined;
    }
    return rate.times(alcoholDegrees.div(hundred)).times(referenceQuantity).times(subquantity).times(quantity);
  }
  // Informe Técnico §14, cigarettes: CantidadItem × CantidadReferencia × Tasa.
  if (line.quantity === undefined || line.referenceQuantity === undefined) {
    findings.push(
      error(at, 'isc_field_required', `ISC específico ${code} needs CantidadReferencia and CantidadItem on the line.`),
    );
    return undefined;
  }
  return line.quantity.times(line.referenceQuantity).times(rate);
}

function alcoholAdValorem(rate: Big, line: Line, context: TaxContext): Big | undefined {
  const at = `/DetallesItems/Item/${line.index}`;
  if (line.quantity === undefined) return undefined;
  if (line.unitOfMeasure === granel) {
    // Informe Técnico §14: PrecioUnitarioItem × 1.30 × tasa × CantidadItem.
    if (line.unitPrice === undefined) return undefined;
    return line.unitPrice.times(bulkListPriceFactor).times(rate).times(line.quantity);
  }
  const { referenceUnitPrice, referenceQuantity, quantity } = line;
  if (!requireSpecific(line, 'alcohol-specific', context.findings)) return undefined;
  if (referenceUnitPrice === undefined || referenceQuantity === undefined || referenceQuantity.eq(0)) {
    context.findings.push(
      error(
        at,
        'isc_field_required',
        'ISC ad valorem on alcohol needs PrecioUnitarioReferencia and CantidadReferencia on the line.',
      ),
    );
    return undefined;
  }
  // Informe Técnico §14: [(PVP / 1.18) − ISC específico unitario] / (1 + tasa) × tasa × CantidadItem × CantidadReferencia.
  const units = quantity.times(referenceQuantity);
  const base = referenceUnitPrice.div(one.plus(itbisRate1)).minus(context.specific.div(units)).div(one.plus(rate));
  return base.times(rate).times(units);
}

function cigaretteAdValorem(rate: Big, line: Line, context: TaxContext): Big | undefined {
  const { referenceUnitPrice, referenceQuantity, quantity } = line;
  if (!requireSpecific(line, 'cigarette-specific', context.findings)) return undefined;
  if (referenceUnitPrice === undefined || referenceQuantity === undefined || quantity === undefined) {
    context.findings.push(
      error(
        `/DetallesItems/Item/${line.index}`,
        'isc_field_required',
        'ISC ad valorem on cigarettes needs PrecioUnitarioReferencia, CantidadReferencia and CantidadItem on the line.',
      ),
    );
    return undefined;
  }
  // Informe Técnico §14: [(PVP / 1.18) − tasa específica] / (1 + tasa) × tasa × CantidadItem × CantidadReferencia.
  const specificRate = sum(
    line.taxCodes
      .filter((code) => additionalTaxKind(code) === 'cigarette-specific')
      .map((code) => context.rates.get(code) ?? zero),
  );
  const base = referenceUnitPrice.div(one.plus(itbisRate1)).minus(specificRate).div(one.plus(rate));
  return base.times(rate).times(quantity).times(referenceQuantity);
}

/** Formato e-CF n. 23: an ISC ad valorem (023–039) always comes with its ISC específico, except a granel. */
function requireSpecific(line: Line, kind: 'alcohol-specific' | 'cigarette-specific', findings: Finding[]): boolean {
  if (line.taxCodes.some((code) => additionalTaxKind(code) === kind)) return true;
  findings.push(
    error(
      `/DetallesItems/Item/${line.index}/TablaImpuestoAdicional`,
      'isc_specific_required',
      `An ISC ad valorem needs the line's ISC específico code (${kind === 'alcohol-specific' ? '006–018' : '019–022'}) beside it.`,
    ),
  );
  return false;
}

const norma1007Codes = new Set(['002', '004']);
const includedItbisCodes = new Set(['001', '002', '003', '004']);

/** Informe Técnico §15 and Formato e-CF field 109: propina, CDT, ISC seguros and telecom, primera placa. */
function otherTax(code: string, rate: Big, line: Line, context: TaxContext): Big {
  const { adjustments, document } = context;
  // Global discounts and surcharges reach the line in proportion to its MontoItem (§15, footnote 36); a Norma
  // 10-07 discount is not taken off.
  const share = sum(
    adjustments
      .filter(
        (adjustment) => !adjustment.norma1007 && adjustment.group === line.indicator && adjustment.groupTotal.gt(0),
      )
      .map((adjustment) => {
        const part = adjustment.amount.times(line.amount).div(adjustment.groupTotal);
        return adjustment.kind === 'D' ? part.neg() : part;
      }),
  );
  const base = line.amount.plus(share);
  if (context.norma1007 && norma1007Codes.has(code) && document.pricesIncludeItbis && line.indicator === 1) {
    // §15: with Norma 10-07, divide by (1 + ITBIS 18 % + the line's 002 and 004 rates).
    return base.div(norma1007Divisor(line, context.rates)).times(rate);
  }
  const itbis = itbisRate(line.indicator);
  if (document.pricesIncludeItbis && includedItbisCodes.has(code) && itbis !== undefined) {
    // §15: the text names ITBIS tasa 1 only; a 16 % line is brought back with its own rate.
    return base.div(one.plus(itbis)).times(rate);
  }
  return base.times(rate);
}

/** The divisor a Norma 10-07 line's amount is brought back to its ITBIS base with (Formato e-CF field 93 d). */
export function norma1007Divisor(line: Line, rates: ReadonlyMap<string, Big>): Big {
  return one
    .plus(itbisRate1)
    .plus(
      sum(
        line.taxCodes.filter((code) => norma1007Codes.has(code)).map((code) => (rates.get(code) ?? zero).div(hundred)),
      ),
    );
}
