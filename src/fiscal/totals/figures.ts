// The totals as exact figures, currency-agnostic: the same formulas give Totales (DOP) and OtraMoneda
// (Formato e-CF fields 92–110 and 122–138). Each field is rounded once, half-up (Informe Técnico §13), and
// the sums are sums of rounded fields, as a reader of the XML would add them.
import Big from 'big.js';
import { round2, sum } from './decimal.js';
import { additionalTaxKind, isPartOfItbisBase, type AdditionalTaxKind } from './additional-tax-catalogue.js';
import { norma1007Divisor, type LineTax } from './additional-taxes.js';
import { itbisRate, type Line, type TotalsDocument } from './totals-document.js';
import { netAdjustment, type ResolvedAdjustment } from './global-adjustments.js';

export type ItbisGroup = 1 | 2 | 3;

export interface TaxFigure {
  readonly code: string;
  readonly kind: AdditionalTaxKind;
  readonly rate: Big;
  readonly amount: Big;
}

export interface Figures {
  readonly gravado: ReadonlyMap<ItbisGroup, Big>;
  readonly exento?: Big;
  readonly itbis: ReadonlyMap<ItbisGroup, Big>;
  readonly taxes: readonly TaxFigure[];
  readonly noFacturable?: Big;
  readonly gravadoTotal?: Big;
  readonly totalItbis?: Big;
  readonly taxTotal?: Big;
  readonly total: Big;
}

export interface FigureSources {
  readonly lineAmount: (line: Line) => Big;
  readonly adjustmentAmount: (adjustment: ResolvedAdjustment) => Big;
  /** Converts a rounded DOP additional-tax amount into this currency (identity for DOP). */
  readonly taxAmount: (dopAmount: Big) => Big;
}

const one = new Big(1);

export function computeFigures(
  document: TotalsDocument,
  adjustments: readonly ResolvedAdjustment[],
  lineTaxes: readonly LineTax[],
  rates: ReadonlyMap<string, Big>,
  sources: FigureSources,
): Figures {
  const linesOf = (group: number) => document.lines.filter((line) => line.indicator === group);
  const norma1007 = adjustments.some((adjustment) => adjustment.norma1007);
  const gravado = new Map<ItbisGroup, Big>();
  for (const group of [1, 2, 3] as const) {
    const lines = linesOf(group);
    if (lines.length === 0) continue;
    gravado.set(group, round2(gravadoOf(group, lines, { document, adjustments, rates, norma1007, sources })));
  }
  const exentoLines = linesOf(4);
  const exento =
    exentoLines.length === 0
      ? undefined
      : round2(sum(exentoLines.map(sources.lineAmount)).plus(netAdjustment(adjustments, 4, sources.adjustmentAmount)));

  const taxes = [...new Set(lineTaxes.map((tax) => tax.code))].sort().flatMap((code) => {
    const kind = additionalTaxKind(code);
    const rate = rates.get(code);
    if (kind === undefined || rate === undefined) return [];
    const dop = round2(sum(lineTaxes.filter((tax) => tax.code === code).map((tax) => tax.amount)));
    return [{ code, kind, rate, amount: round2(sources.taxAmount(dop)) }];
  });
  // Formato e-CF field 101: ISC 006–039 joins the 18 % base before the rate is applied.
  const iscBase = sum(
    [...new Set(lineTaxes.map((tax) => tax.code))].filter(isPartOfItbisBase).map((code) => {
      const dop = round2(
        sum(lineTaxes.filter((tax) => tax.code === code && tax.line.indicator === 1).map((tax) => tax.amount)),
      );
      return round2(sources.taxAmount(dop));
    }),
  );
  const itbis = new Map<ItbisGroup, Big>();
  for (const [group, base] of gravado) {
    const rate = itbisRate(group) ?? new Big(0);
    itbis.set(group, round2((group === 1 ? base.plus(iscBase) : base).times(rate)));
  }

  const nonBillable = linesOf(0);
  const gravadoTotal = gravado.size === 0 ? undefined : sum([...gravado.values()]);
  const totalItbis = itbis.size === 0 ? undefined : sum([...itbis.values()]);
  const taxTotal = taxes.length === 0 ? undefined : sum(taxes.map((tax) => tax.amount));
  return {
    gravado,
    exento,
    itbis,
    taxes,
    noFacturable: nonBillable.length === 0 ? undefined : round2(sum(nonBillable.map(sources.lineAmount))),
    gravadoTotal,
    totalItbis,
    taxTotal,
    // Formato e-CF field 110: MontoGravadoTotal + MontoExento + TotalITBIS + MontoImpuestoAdicional.
    total: sum([gravadoTotal, exento, totalItbis, taxTotal].filter((value) => value !== undefined)),
  };
}

interface GravadoContext {
  readonly document: TotalsDocument;
  readonly adjustments: readonly ResolvedAdjustment[];
  readonly rates: ReadonlyMap<string, Big>;
  readonly norma1007: boolean;
  readonly sources: FigureSources;
}

/**
 * Formato e-CF fields 93–95: Σ MontoItem − descuentos + recargos of the group; with IndicadorMontoGravado = 1
 * the ITBIS is taken out, and under Norma 10-07 each 18 % line also drops its 002 and 004 rates (field 93 d).
 */
function gravadoOf(group: ItbisGroup, lines: readonly Line[], context: GravadoContext): Big {
  const { document, adjustments, rates, norma1007, sources } = context;
  const net = netAdjustment(adjustments, group, sources.adjustmentAmount);
  const rate = itbisRate(group) ?? new Big(0);
  if (!document.pricesIncludeItbis) return sum(lines.map(sources.lineAmount)).plus(net);
  if (norma1007 && group === 1) {
    return sum(lines.map((line) => sources.lineAmount(line).div(norma1007Divisor(line, rates)))).plus(
      net.div(one.plus(rate)),
    );
  }
  return sum(lines.map(sources.lineAmount)).plus(net).div(one.plus(rate));
}
