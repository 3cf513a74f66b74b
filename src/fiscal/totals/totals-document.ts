// The document as the totals see it: exact values read from the client's JSON (see read-totals-document.ts).
import Big from 'big.js';

/** Formato e-CF, IndicadorFacturacion: 0 no facturable, 1 ITBIS 18 %, 2 ITBIS 16 %, 3 ITBIS 0 %, 4 exento. */
export type BillingIndicator = 0 | 1 | 2 | 3 | 4;

const itbisRates = { 1: new Big('0.18'), 2: new Big('0.16'), 3: new Big(0) } as const;

/** The ITBIS rate of a billing indicator (Formato e-CF, IndicadorFacturacion); undefined for 0 and 4. */
export function itbisRate(indicator: BillingIndicator): Big | undefined {
  return indicator === 1 || indicator === 2 || indicator === 3 ? itbisRates[indicator] : undefined;
}

export interface Retention {
  /** IndicadorAgenteRetencionoPercepcion: 1 retención, 2 percepción. */
  readonly agent: '1' | '2';
  readonly itbis?: Big;
  readonly isr?: Big;
}

export interface OtherCurrencyLine {
  readonly price?: Big;
  readonly discount?: Big;
  readonly surcharge?: Big;
  readonly amount?: Big;
}

export interface Line {
  readonly index: number;
  readonly numeroLinea: string;
  readonly indicator: BillingIndicator;
  readonly quantity?: Big;
  readonly unitPrice?: Big;
  /** CantidadItem × PrecioUnitarioItem − DescuentoMonto + RecargoMonto, rounded (Formato e-CF, MontoItem). */
  readonly computedAmount?: Big;
  readonly givenAmount?: Big;
  /** What the totals add up: the client's MontoItem when sent, else the computed one. */
  readonly amount: Big;
  readonly unitOfMeasure?: string;
  readonly referenceQuantity?: Big;
  readonly subquantity?: Big;
  readonly alcoholDegrees?: Big;
  readonly referenceUnitPrice?: Big;
  readonly taxCodes: readonly string[];
  readonly retention?: Retention;
  readonly otherCurrency?: OtherCurrencyLine;
}

export interface Adjustment {
  readonly index: number;
  readonly kind: 'D' | 'R';
  readonly group?: 1 | 2 | 3 | 4;
  readonly percent?: Big;
  readonly amount?: Big;
  readonly amountOtherCurrency?: Big;
  readonly norma1007: boolean;
}

export interface TotalsDocument {
  readonly type: string;
  /** IdDoc/IndicadorMontoGravado = 1: line amounts include ITBIS (never the additional taxes). */
  readonly pricesIncludeItbis: boolean;
  readonly lines: readonly Line[];
  readonly lineCount: number;
  readonly adjustments: readonly Adjustment[];
  /** TasaImpuestoAdicional by TipoImpuesto, as the client gave it in Totales/ImpuestosAdicionales. */
  readonly givenTaxRates: ReadonlyMap<string, Big>;
  readonly currency?: { readonly code: string; readonly exchangeRate: Big };
}
