// Amounts in the other currency (Formato e-CF fields 35–38 and 122–138). What the client sent in that currency
// is used as is; what it left out is the DOP amount divided by TipoCambio.
import type Big from 'big.js';
import { round2, zero } from './decimal.js';
import type { FigureSources } from './figures.js';
import type { Line } from './totals-document.js';

/**
 * MontoItemOtraMoneda as sent; else PrecioOtraMoneda × CantidadItem − DescuentoOtraMoneda + RecargoOtraMoneda
 * (Formato e-CF field 38); else MontoItem ÷ TipoCambio.
 */
export function otherCurrencyLineAmount(line: Line, exchangeRate: Big): Big {
  const detail = line.otherCurrency;
  if (detail?.amount !== undefined) return detail.amount;
  if (detail?.price !== undefined && line.quantity !== undefined) {
    return round2(
      line.quantity
        .times(detail.price)
        .minus(detail.discount ?? zero)
        .plus(detail.surcharge ?? zero),
    );
  }
  return round2(line.amount.div(exchangeRate));
}

export function otherCurrencySources(exchangeRate: Big): FigureSources {
  return {
    lineAmount: (line) => otherCurrencyLineAmount(line, exchangeRate),
    adjustmentAmount: (adjustment) => adjustment.amountOtherCurrency ?? round2(adjustment.amount.div(exchangeRate)),
    // Informe Técnico §14 "Otra Moneda" and Formato e-CF n. 38: computed in DOP first, then converted.
    taxAmount: (dopAmount) => dopAmount.div(exchangeRate),
  };
}
