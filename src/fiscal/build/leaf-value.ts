// One leaf of a DGII-shaped JSON document, checked against its data type and turned into the exact text the XML
// carries. Amounts arrive as decimal strings; JSON numbers are accepted and converted exactly (never rounded).
import Big from 'big.js';
import { parseDgiiDate } from '../dates.js';
import type { DataType, DecimalType, IntegerType, TextType } from '../model/ecf-model-types.js';
import { isInCatalogue } from '../model/ecf-model.js';
import { isXmlText } from '../xml/xml-writer.js';

export type LeafResult = { ok: true; value: string } | { ok: false; code: string; message: string };

const ok = (value: string): LeafResult => ({ ok: true, value });
const fail = (code: string, message: string): LeafResult => ({ ok: false, code, message });

const patterns = new Map<string, RegExp>();
function matches(pattern: string, value: string): boolean {
  let regex = patterns.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(pattern, 'u');
    patterns.set(pattern, regex);
  }
  return regex.test(value);
}

export function readLeaf(dataType: DataType, raw: unknown): LeafResult {
  if (typeof raw === 'number' && !Number.isFinite(raw)) return fail('not_finite', 'a number must be finite');
  if (typeof raw !== 'string' && typeof raw !== 'number') return fail('wrong_type', 'expected a string or a number');
  if (typeof raw === 'string' && !isXmlText(raw)) return fail('invalid_character', 'holds a character XML 1.0 cannot carry');
  switch (dataType.kind) {
    case 'text':
      return typeof raw === 'string' ? readText(dataType, raw) : fail('wrong_type', 'expected a string');
    case 'decimal':
      return readDecimal(dataType, raw);
    case 'integer':
      return readInteger(dataType, raw);
    case 'date':
      return typeof raw === 'string' && isDate(raw) ? ok(raw) : fail('invalid_date', 'expected a real date dd-MM-yyyy');
    case 'timestamp':
      return typeof raw === 'string' && isTimestamp(raw) ? ok(raw) : fail('invalid_timestamp', 'expected dd-MM-yyyy HH:mm:ss');
    case 'enumeration': {
      // Codes such as TipoPago 1 or UnidadMedida 43 may come as numbers; "01" does not equal 1 (TipoIngresos).
      const value = typeof raw === 'number' ? (Number.isSafeInteger(raw) ? String(raw) : undefined) : raw;
      if (value === undefined) return fail('wrong_type', 'expected a code');
      return isInCatalogue(dataType.catalogue, value) ? ok(value) : fail('not_in_catalogue', `not a code of the catalogue ${dataType.catalogue}`);
    }
  }
}

function readText(type: TextType, value: string): LeafResult {
  // XSD lengths count characters (code points), not UTF-16 units.
  const length = codePointLength(value);
  if (type.minLength !== undefined && length < type.minLength) return fail('too_short', `at least ${type.minLength} characters`);
  if (type.maxLength !== undefined && length > type.maxLength) return fail('too_long', `at most ${type.maxLength} characters`);
  if (type.pattern !== undefined && !matches(type.pattern, value)) return fail('pattern_mismatch', 'does not have the required format');
  return ok(value);
}

function codePointLength(value: string): number {
  return value.length - (value.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}

const decimalLexical = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function fractionLength(value: string): number {
  const dot = value.indexOf('.');
  return dot < 0 ? 0 : value.length - dot - 1;
}

function readDecimal(type: DecimalType, raw: string | number): LeafResult {
  let value: string;
  if (typeof raw === 'number') {
    // The shortest string that reads back as this double is what the client wrote; more fraction digits than
    // the field allows is the client's error, not ours to round away.
    const exact = new Big(raw === 0 ? 0 : raw);
    const digits = exact.toFixed();
    if (type.fractionDigits !== undefined && fractionLength(digits) > type.fractionDigits) {
      return fail('too_many_fraction_digits', `at most ${type.fractionDigits} decimals`);
    }
    value = type.fractionDigits === undefined ? digits : exact.toFixed(type.fractionDigits);
  } else {
    if (!decimalLexical.test(raw)) return fail('not_a_decimal', 'expected a decimal number such as 1180.00');
    value = raw;
  }
  return checkNumber(type, value);
}

function readInteger(type: IntegerType, raw: string | number): LeafResult {
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw)) return fail('not_an_integer', 'expected a whole number');
    return checkNumber(type, String(raw));
  }
  if (!/^[+-]?\d+$/.test(raw)) return fail('not_an_integer', 'expected a whole number');
  return checkNumber(type, raw);
}

function checkNumber(type: DecimalType | IntegerType, value: string): LeafResult {
  if (type.pattern !== undefined && !matches(type.pattern, value)) return fail('pattern_mismatch', 'does not have the required format');
  const number = new Big(value);
  if (type.totalDigits !== undefined && significantDigits(number) > type.totalDigits) return fail('too_many_digits', `at most ${type.totalDigits} digits`);
  if (type.kind === 'decimal' && type.fractionDigits !== undefined && Math.max(0, number.c.length - number.e - 1) > type.fractionDigits) {
    return fail('too_many_fraction_digits', `at most ${type.fractionDigits} decimals`);
  }
  if (type.minInclusive !== undefined && number.lt(type.minInclusive)) return fail('out_of_range', `must be at least ${type.minInclusive}`);
  if (type.minExclusive !== undefined && number.lte(type.minExclusive)) return fail('out_of_range', `must be greater than ${type.minExclusive}`);
  if (type.maxInclusive !== undefined && number.gt(type.maxInclusive)) return fail('out_of_range', `must be at most ${type.maxInclusive}`);
  return ok(value);
}

/** XSD totalDigits: the digits of i when the value is written i × 10^-n with n ≥ 0 as small as possible. */
function significantDigits(number: Big): number {
  return number.e < 0 ? number.c.length : Math.max(number.c.length, number.e + 1);
}

// DGII writes two-digit days and months (Formato e-CF, "dd-mm-aaaa"); the XSD's years are 1900–2099.
function isDate(value: string): boolean {
  return /^\d{2}-\d{2}-(19|20)\d{2}$/.test(value) && parseDgiiDate(value) !== undefined;
}

function isTimestamp(value: string): boolean {
  const match = /^(\d{2}-\d{2}-\d{4}) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.exec(value);
  return match?.[1] !== undefined && isDate(match[1]);
}
