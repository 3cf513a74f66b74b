// Informe Técnico §12, line by line: MontoItem may differ from CantidadItem × PrecioUnitarioItem − DescuentoMonto
// + RecargoMonto by ±1 unit; beyond that DGII accepts the e-CF only conditionally, so it is a warning.
import Big from 'big.js';
import { warning, type Finding } from '../finding.js';
import { formatAmount, round2, zero } from './decimal.js';
import type { Line, TotalsDocument } from './totals-document.js';

const lineTolerance = new Big(1);

export function lineFindings(document: TotalsDocument): Finding[] {
  return document.lines.flatMap((line) => [
    ...checkLine(`/DetallesItems/Item/${line.index}/MontoItem`, line.givenAmount, line.computedAmount),
    ...checkLine(
      `/DetallesItems/Item/${line.index}/OtraMonedaDetalle/MontoItemOtraMoneda`,
      line.otherCurrency?.amount,
      otherCurrencyExpected(line),
    ),
  ]);
}

function otherCurrencyExpected(line: Line): Big | undefined {
  const detail = line.otherCurrency;
  if (detail?.price === undefined || line.quantity === undefined) return undefined;
  return round2(
    line.quantity
      .times(detail.price)
      .minus(detail.discount ?? zero)
      .plus(detail.surcharge ?? zero),
  );
}

function checkLine(pointer: string, given: Big | undefined, expected: Big | undefined): Finding[] {
  if (given === undefined || expected === undefined) return [];
  const difference = given.minus(expected).abs();
  if (difference.lte(lineTolerance)) return [];
  return [
    warning(
      pointer,
      'totals_outside_tolerance',
      `Given ${formatAmount(given)}, computed ${formatAmount(expected)} (CantidadItem × PrecioUnitarioItem − DescuentoMonto + RecargoMonto): the difference ${formatAmount(difference)} exceeds ±1.00 per line (Informe Técnico §12); DGII would answer Aceptado Condicional.`,
    ),
  ];
}
