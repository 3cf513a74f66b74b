// Totales and OtraMoneda of an e-CF: computed from the lines, or checked against DGII's tolerance.
export { checkTotals, computeTotals } from './compute-totals.js';
export { formatAmount, round2 } from './decimal.js';
export { itbisRate, type BillingIndicator } from './totals-document.js';
export type {
  DecimalInput,
  DescuentoORecargoInput,
  EcfTotalsInput,
  ImpuestoAdicional,
  ImpuestoAdicionalOtraMoneda,
  ItemInput,
  LineaCalculada,
  OtraMoneda,
  Totales,
  TotalsResult,
} from './totals-types.js';
