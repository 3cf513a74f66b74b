// Exact decimal reading and DGII rounding. Money never passes through a JS float: strings (or numbers whose
// string form is exact) go straight into big.js.
import Big from 'big.js';
import { error, type Finding } from '../finding.js';

export const zero = new Big(0);
export const hundred = new Big(100);

// Informe Técnico §13: half-up on the third decimal, two decimals kept.
export function round2(value: Big): Big {
  return value.round(2, Big.roundHalfUp);
}

/** The decimal string DGII expects for an amount: two decimals, half-up (Informe Técnico §13). */
export function formatAmount(value: Big): string {
  return round2(value).toFixed(2);
}

export function sum(values: readonly Big[]): Big {
  return values.reduce((total, value) => total.plus(value), zero);
}

const plainDecimal = /^-?\d+(\.\d+)?$/;

// A double holds 15 significant decimal digits exactly; beyond that, or in exponent form, String(n) may not
// be the number the client meant.
function isExactNumber(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  const text = String(value);
  return plainDecimal.test(text) && text.replace(/[-.]/g, '').replace(/^0+/, '').length <= 15;
}

export interface DecimalRule {
  /** Informe Técnico §13 and its footnote 19: 2 for amounts, 4 for unit prices and TipoCambio, 3 for Subcantidad. */
  readonly maxDecimals: number;
  readonly allowNegative?: boolean;
}

/**
 * Reads a decimal leaf. Returns undefined when absent; pushes an error finding (and returns undefined) when the
 * value is not a plain decimal, is an inexact JS number, is negative where not allowed, or has more decimals
 * than the XSD allows.
 */
export function readDecimal(value: unknown, pointer: string, rule: DecimalRule, findings: Finding[]): Big | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let text: string;
  if (typeof value === 'number') {
    if (!isExactNumber(value)) {
      findings.push(
        error(
          pointer,
          'inexact_number',
          `${String(value)} is not exactly representable; send amounts as decimal strings.`,
        ),
      );
      return undefined;
    }
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    findings.push(error(pointer, 'invalid_number', 'Expected a decimal number.'));
    return undefined;
  }
  if (!plainDecimal.test(text)) {
    findings.push(
      error(pointer, 'invalid_number', `"${text}" is not a plain decimal number (use a dot, no thousands separator).`),
    );
    return undefined;
  }
  const decimals = text.split('.')[1]?.length ?? 0;
  if (decimals > rule.maxDecimals) {
    findings.push(
      error(pointer, 'too_many_decimals', `${text} has ${decimals} decimals; at most ${rule.maxDecimals} are allowed.`),
    );
    return undefined;
  }
  const parsed = new Big(text);
  if (parsed.lt(0) && rule.allowNegative !== true) {
    findings.push(error(pointer, 'negative_amount', `${text} may not be negative.`));
    return undefined;
  }
  return parsed;
}

export const amountRule: DecimalRule = { maxDecimals: 2 };
export const signedAmountRule: DecimalRule = { maxDecimals: 2, allowNegative: true };
export const unitPriceRule: DecimalRule = { maxDecimals: 4 };
export const exchangeRateRule: DecimalRule = { maxDecimals: 4 };
export const subquantityRule: DecimalRule = { maxDecimals: 3 };
