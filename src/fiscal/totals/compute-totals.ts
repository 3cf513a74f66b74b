// Computes Totales (and OtraMoneda) from the lines when the client leaves them out, and checks the ones it sends
// against DGII's tolerance.
import Big from 'big.js';
import { error, type Finding } from '../finding.js';
import { amountRule, formatAmount, readDecimal, signedAmountRule, sum, zero } from './decimal.js';
import { computeLineTaxes, taxRates } from './additional-taxes.js';
import { gateFigures, retentionFigures, toOtraMoneda, toTotales } from './computed-totales.js';
import { computeFigures } from './figures.js';
import { resolveAdjustments } from './global-adjustments.js';
import { lineFindings } from './line-check.js';
import { compare, mergeBlock, type MergeContext } from './merge-block.js';
import { otraMonedaKeys, otraMonedaOrder, totalesKeys, totalesOrder } from './block-layout.js';
import { otherCurrencyLineAmount, otherCurrencySources } from './other-currency.js';
import { leafText, nullsAsAbsent } from './json-leaves.js';
import { readTotalsDocument } from './read-totals-document.js';
import type { TotalsDocument } from './totals-document.js';
import type { EcfTotalsInput, LineaCalculada, OtraMoneda, Totales, TotalsResult } from './totals-types.js';

interface Computed {
  readonly totales: Totales;
  readonly otraMoneda?: OtraMoneda;
  readonly norma1007Discounts: readonly Big[];
}

/** The totals of a document as read; findings about rates, adjustments and taxes go to `findings`. */
function computeFrom(document: TotalsDocument, findings: Finding[]): Computed {
  const rates = taxRates(document, findings);
  const adjustments = resolveAdjustments(document, findings);
  const lineTaxes = computeLineTaxes(document, adjustments, rates, findings);
  const dopFigures = gateFigures(
    document,
    computeFigures(document, adjustments, lineTaxes, rates, {
      lineAmount: (line) => line.amount,
      adjustmentAmount: (adjustment) => adjustment.amount,
      taxAmount: (amount) => amount,
    }),
    findings,
  );
  const currency = document.currency;
  return {
    totales: toTotales(dopFigures, retentionFigures(document), document),
    otraMoneda:
      currency === undefined
        ? undefined
        : toOtraMoneda(
            gateFigures(
              document,
              computeFigures(document, adjustments, lineTaxes, rates, otherCurrencySources(currency.exchangeRate)),
              undefined,
            ),
            currency,
          ),
    norma1007Discounts: adjustments.filter((a) => a.norma1007 && a.kind === 'D').map((a) => a.amount),
  };
}

/** The document as DGII recomputes it: each line at CantidadItem × PrecioUnitarioItem − DescuentoMonto + RecargoMonto. */
function asRecomputed(document: TotalsDocument): TotalsDocument {
  return {
    ...document,
    lines: document.lines.map((line) => ({
      ...line,
      amount: line.computedAmount ?? line.amount,
      otherCurrency:
        line.otherCurrency?.price === undefined ? line.otherCurrency : { ...line.otherCurrency, amount: undefined },
    })),
  };
}

type Block = Record<string, unknown>;

export function computeTotals(sent: EcfTotalsInput): TotalsResult {
  const input = nullsAsAbsent(sent) as EcfTotalsInput;
  const { document, findings } = readTotalsDocument(input);
  const computed = computeFrom(document, findings);
  const expected = computeFrom(asRecomputed(document), []);
  findings.push(...lineFindings(document));
  // Informe Técnico §12: the global tolerance is one unit per line of the Detalle.
  const context: MergeContext = { pointer: '/Encabezado/Totales', tolerance: new Big(document.lineCount), findings };

  const givenTotales = input.Encabezado?.Totales as Block | undefined;
  const merged = mergeBlock(
    givenTotales,
    computed.totales as unknown as Block,
    expected.totales as unknown as Block,
    totalesKeys,
    context,
  );
  checkItbisRates(merged, givenTotales, findings);
  completePeriodAndPayable(merged, givenTotales, expected.totales, computed.norma1007Discounts, context);
  const totales = ordered(merged, totalesOrder) as unknown as Totales;

  const lineas: LineaCalculada[] = document.lines.map((line) => ({
    NumeroLinea: line.numeroLinea,
    MontoItem: formatAmount(line.amount),
  }));
  let otraMoneda: OtraMoneda | undefined;
  if (document.currency !== undefined && computed.otraMoneda !== undefined && expected.otraMoneda !== undefined) {
    const givenOm = input.Encabezado?.OtraMoneda as Block | undefined;
    const mergedOm = mergeBlock(
      givenOm,
      computed.otraMoneda as unknown as Block,
      expected.otraMoneda as unknown as Block,
      otraMonedaKeys,
      { ...context, pointer: '/Encabezado/OtraMoneda' },
    );
    otraMoneda = ordered(mergedOm, otraMonedaOrder) as unknown as OtraMoneda;
    const { exchangeRate } = document.currency;
    document.lines.forEach((line, index) => {
      const entry = lineas[index];
      if (entry !== undefined) entry.MontoItemOtraMoneda = formatAmount(otherCurrencyLineAmount(line, exchangeRate));
    });
  }
  return { totales, otraMoneda, lineas, findings };
}

/** Only the findings: line amounts and given totals against DGII's tolerance, and structural errors. */
export function checkTotals(input: EcfTotalsInput): Finding[] {
  return computeTotals(input).findings;
}

/** ITBIS1/2/3 carry the rate itself (18, 16, 0): any other value is wrong, not a rounding matter. */
function checkItbisRates(
  merged: Record<string, unknown>,
  given: Record<string, unknown> | undefined,
  findings: Finding[],
): void {
  for (const [key, rate] of [
    ['ITBIS1', '18'],
    ['ITBIS2', '16'],
    ['ITBIS3', '0'],
  ] as const) {
    const sent = leafText(given?.[key]);
    if (sent === undefined) continue;
    if (/^\d{1,2}$/.test(sent) && Number(sent) === Number(rate)) {
      merged[key] = rate;
    } else {
      findings.push(
        error(`/Encabezado/Totales/${key}`, 'itbis_rate_mismatch', `${key} is the rate ${rate}, not ${sent}.`),
      );
    }
  }
}

/**
 * Formato e-CF fields 112 and 115: MontoPeriodo = MontoTotal + MontoNoFacturable; ValorPagar = MontoTotal −
 * MontoAvancePago ± SaldoAnterior (− the Norma 10-07 discounts). Both optional: filled in only when the client
 * sent them or the amounts they depend on.
 */
function completePeriodAndPayable(
  merged: Record<string, unknown>,
  given: Record<string, unknown> | undefined,
  expected: Totales,
  norma1007Discounts: readonly Big[],
  context: MergeContext,
): void {
  const amountOf = (value: unknown) => (typeof value === 'string' ? new Big(value) : zero);
  const read = (key: string) =>
    readDecimal(given?.[key], `${context.pointer}/${key}`, signedAmountRule, context.findings);
  const expectedPeriod = amountOf(expected.MontoTotal).plus(amountOf(expected.MontoNoFacturable));
  const sentPeriod = read('MontoPeriodo');
  if (sentPeriod !== undefined) {
    compare(`${context.pointer}/MontoPeriodo`, sentPeriod, expectedPeriod, context);
    merged.MontoPeriodo = formatAmount(sentPeriod);
  }
  // Already checked by mergeBlock, which keeps them as sent.
  const advance = readDecimal(given?.MontoAvancePago, '', amountRule, []);
  const previous = readDecimal(given?.SaldoAnterior, '', signedAmountRule, []);
  const payable = (total: Big) =>
    total
      .minus(advance ?? zero)
      .plus(previous ?? zero)
      .minus(sum(norma1007Discounts));
  const sentPayable = read('ValorPagar');
  if (sentPayable !== undefined) {
    compare(`${context.pointer}/ValorPagar`, sentPayable, payable(amountOf(expected.MontoTotal)), context);
    merged.ValorPagar = formatAmount(sentPayable);
  } else if (advance !== undefined || previous !== undefined || norma1007Discounts.length > 0) {
    merged.ValorPagar = formatAmount(payable(amountOf(merged.MontoTotal)));
  }
}

function ordered(block: Record<string, unknown>, order: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(order.filter((key) => block[key] !== undefined).map((key) => [key, block[key]]));
}
