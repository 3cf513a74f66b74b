// RNC (9 digits) and cédula (11 digits) check digits. Sources: research/ecf-format.md §4.
// DGII has issued a few numbers that break these rules (python-stdnum lists about 20 RNCs and 580 cédulas).
// They are real taxpayers' identifiers, so they are not written into this code: the taxpayer registry, loaded
// from DGII's public list at run time, is where such a number is recognised.

const rncWeights = [7, 9, 8, 6, 5, 4, 3, 2];

export function rncCheckDigit(firstEight: string): number {
  const sum = rncWeights.reduce((total, weight, i) => total + weight * Number(firstEight[i]), 0);
  return ((10 - (sum % 11)) % 9) + 1;
}

export function isValidRnc(value: string): boolean {
  if (!/^\d{9}$/.test(value)) return false;
  return rncCheckDigit(value.slice(0, 8)) === Number(value[8]);
}

/** Luhn over the 11 digits (weights 1,2,1,2… from the left on the first ten). */
export function isValidCedula(value: string): boolean {
  if (!/^\d{11}$/.test(value)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const product = Number(value[i]) * (i % 2 === 0 ? 1 : 2);
    sum += product > 9 ? product - 9 : product;
  }
  return (10 - (sum % 10)) % 10 === Number(value[10]);
}

export type TaxpayerIdProblem = 'format' | 'check_digit';

/** A taxpayer id as DGII writes it in e-CF: a 9-digit RNC or an 11-digit cédula. */
export function checkTaxpayerId(value: string): TaxpayerIdProblem | undefined {
  if (!/^(\d{9}|\d{11})$/.test(value)) return 'format';
  const valid = value.length === 9 ? isValidRnc(value) : isValidCedula(value);
  return valid ? undefined : 'check_digit';
}
