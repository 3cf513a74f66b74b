// One leaf of a DGII-shaped JSON document, checked against its data type and turned into the exact text the XML
// carries. Amounts arrive as decimal strings; JSON numbers are accepted and converted exactly (never rounded).
//
// A reader is compiled once per data type and runs for every leaf of every line, so it is written for speed:
// decimals are scanned by hand instead of through big.js (which parses, normalises and compares with arrays and
// costs most of a 200-line build), and a failure is a shared object rather than one built per call.
import Big from 'big.js';
import type { DataType, DecimalType, IntegerType, TextType } from '../model/ecf-model-types.js';
import { catalogueCodesOf } from '../model/ecf-model.js';
import { isXmlText } from '../xml/xml-writer.js';

export interface LeafFailure {
  readonly code: string;
  readonly message: string;
}

/** The XML text of a valid value, or why the value cannot be written. */
export type LeafReader = (raw: unknown) => string | LeafFailure;

const fail = (code: string, message: string): LeafFailure => Object.freeze({ code, message });

const notFinite = fail('not_finite', 'a number must be finite');
const wrongType = fail('wrong_type', 'expected a string or a number');
const notAString = fail('wrong_type', 'expected a string');
const notACode = fail('wrong_type', 'expected a code');
const invalidCharacter = fail('invalid_character', 'holds a character XML 1.0 cannot carry');
const invalidDate = fail('invalid_date', 'expected a real date dd-MM-yyyy');
const invalidTimestamp = fail('invalid_timestamp', 'expected dd-MM-yyyy HH:mm:ss');
const notADecimal = fail('not_a_decimal', 'expected a decimal number such as 1180.00');
const notAnInteger = fail('not_an_integer', 'expected a whole number');
const patternMismatch = fail('pattern_mismatch', 'does not have the required format');

const compiled = new WeakMap<DataType, LeafReader>();

/** The reader for a data type, compiled on first use. */
export function leafReader(dataType: DataType): LeafReader {
  let reader = compiled.get(dataType);
  if (reader === undefined) {
    reader = compile(dataType);
    compiled.set(dataType, reader);
  }
  return reader;
}

function compile(dataType: DataType): LeafReader {
  switch (dataType.kind) {
    case 'text':
      return textReader(dataType);
    case 'decimal':
    case 'integer':
      return numberReader(dataType);
    case 'date':
      return (raw) => (typeof raw === 'string' && isDate(raw) ? raw : screen(raw, invalidDate));
    case 'timestamp':
      return (raw) => (typeof raw === 'string' && isTimestamp(raw) ? raw : screen(raw, invalidTimestamp));
    case 'enumeration': {
      const notInCatalogue = fail('not_in_catalogue', `not a code of the catalogue ${dataType.catalogue}`);
      const codes = catalogueCodesOf(dataType.catalogue);
      // Codes such as TipoPago 1 or UnidadMedida 43 may come as numbers; "01" does not equal 1 (TipoIngresos).
      // A number is looked up as a number: no string to make and hash per code read.
      const byNumber = new Map(
        [...codes].filter((code) => String(Number(code)) === code).map((code) => [Number(code), code]),
      );
      return (raw) => {
        if (typeof raw === 'number') {
          if (!Number.isSafeInteger(raw)) return screen(raw, notACode);
          return byNumber.get(raw) ?? notInCatalogue;
        }
        if (typeof raw !== 'string') return wrongType;
        return codes.has(raw) ? raw : screen(raw, notInCatalogue);
      };
    }
  }
}

/** The failure to report for a value a reader refused: the most basic problem with it first. */
function screen(raw: unknown, otherwise: LeafFailure): LeafFailure {
  if (typeof raw === 'number') return Number.isFinite(raw) ? otherwise : notFinite;
  if (typeof raw !== 'string') return wrongType;
  return isXmlText(raw) ? otherwise : invalidCharacter;
}

function anchored(pattern: string | undefined): RegExp | undefined {
  return pattern === undefined ? undefined : new RegExp(pattern, 'u');
}

function textReader(type: TextType): LeafReader {
  const pattern = anchored(type.pattern);
  const min = type.minLength ?? 0;
  const max = type.maxLength ?? Number.POSITIVE_INFINITY;
  const tooShort = fail('too_short', `at least ${String(type.minLength)} characters`);
  const tooLong = fail('too_long', `at most ${String(type.maxLength)} characters`);
  return (raw) => {
    if (typeof raw !== 'string') return screen(raw, notAString);
    if (!isXmlText(raw)) return invalidCharacter;
    // XSD lengths count characters (code points). A string has between half as many and as many code points as
    // UTF-16 units, so most strings are settled by their .length without counting.
    if (raw.length > max || raw.length < 2 * min) {
      const length = codePointLength(raw);
      if (length < min) return tooShort;
      if (length > max) return tooLong;
    }
    if (pattern !== undefined && !pattern.test(raw)) return patternMismatch;
    return raw;
  };
}

function codePointLength(value: string): number {
  let length = 0;
  for (const _ of value) length++;
  return length;
}

/** A decimal's value, normalised: no sign on zero, no leading zeros, no trailing fraction zeros. */
interface DecimalValue {
  readonly negative: boolean;
  readonly integer: string;
  readonly fraction: string;
}

const ZERO = 48;
const NINE = 57;
const PLUS = 43;
const MINUS = 45;
const POINT = 46;
const isDigit = (code: number) => code >= ZERO && code <= NINE;

/**
 * Where the parts of an xs:decimal literal (`1180`, `-0.50`, `.5`, `7.`) lie in its text. One object, reused:
 * scanning runs for every amount of every line, and neither a regular expression with captures nor an object per
 * amount is cheap enough there. Valid until the next scan.
 */
const scanned = {
  /** First character is + or -. */
  signed: false,
  negative: false,
  /** Digits before the point as written, leading zeros included. */
  writtenIntegerDigits: 0,
  /** Whether the text has a point, and the digits after it as written, trailing zeros included. */
  point: false,
  writtenFractionDigits: 0,
  /** The significant parts: [integerStart, integerEnd) without leading zeros, [fractionStart, fractionEnd) without
   * trailing zeros. */
  integerStart: 0,
  integerEnd: 0,
  fractionStart: 0,
  fractionEnd: 0,
};

/** Scans `text` into `scanned`; false if it is not an xs:decimal literal. */
function scan(text: string): boolean {
  const end = text.length;
  const first = text.charCodeAt(0);
  const signed = first === PLUS || first === MINUS;
  let i = signed ? 1 : 0;
  const digitsStart = i;
  while (i < end && text.charCodeAt(i) === ZERO) i++;
  const integerStart = i;
  while (i < end && isDigit(text.charCodeAt(i))) i++;
  const integerEnd = i;
  const point = i < end;
  let fractionStart = i;
  let fractionEnd = i;
  if (point) {
    if (text.charCodeAt(i) !== POINT) return false;
    fractionStart = ++i;
    while (i < end && isDigit(text.charCodeAt(i))) i++;
    if (i < end) return false;
    fractionEnd = i;
  }
  const writtenFractionDigits = fractionEnd - fractionStart;
  // At least one digit, before or after the point.
  if (integerEnd === digitsStart && writtenFractionDigits === 0) return false;
  while (fractionEnd > fractionStart && text.charCodeAt(fractionEnd - 1) === ZERO) fractionEnd--;
  scanned.signed = signed;
  scanned.negative = first === MINUS && (integerEnd > integerStart || fractionEnd > fractionStart);
  scanned.writtenIntegerDigits = integerEnd - digitsStart;
  scanned.point = point;
  scanned.writtenFractionDigits = writtenFractionDigits;
  scanned.integerStart = integerStart;
  scanned.integerEnd = integerEnd;
  scanned.fractionStart = fractionStart;
  scanned.fractionEnd = fractionEnd;
  return true;
}

/** The value of an xs:decimal literal, or undefined if it is not one. */
export function scanDecimal(text: string): DecimalValue | undefined {
  if (!scan(text)) return undefined;
  return {
    negative: scanned.negative,
    integer: text.slice(scanned.integerStart, scanned.integerEnd),
    fraction: text.slice(scanned.fractionStart, scanned.fractionEnd),
  };
}

export function compareDecimals(a: DecimalValue, b: DecimalValue): number {
  if (a.negative !== b.negative) return a.negative ? -1 : 1;
  const sign = a.negative ? -1 : 1;
  if (a.integer.length !== b.integer.length) return sign * (a.integer.length - b.integer.length);
  if (a.integer !== b.integer) return sign * (a.integer < b.integer ? -1 : 1);
  if (a.fraction !== b.fraction) return sign * (a.fraction < b.fraction ? -1 : 1);
  return 0;
}

/** compareDecimals(scanDecimal(text), b) for the text just scanned, read in place: a bounded field (NumeroLinea,
 * CantidadItem) is on every line, and the value object and its two slices would be made only to be compared. */
function compareScanned(text: string, b: DecimalValue): number {
  if (scanned.negative !== b.negative) return scanned.negative ? -1 : 1;
  const sign = scanned.negative ? -1 : 1;
  const integerLength = scanned.integerEnd - scanned.integerStart;
  if (integerLength !== b.integer.length) return sign * (integerLength - b.integer.length);
  const integer = compareDigits(text, scanned.integerStart, integerLength, b.integer);
  if (integer !== 0) return sign * integer;
  return sign * compareDigits(text, scanned.fractionStart, scanned.fractionEnd - scanned.fractionStart, b.fraction);
}

/** The order of text[start, start + length) and `digits` as strings (a prefix first): -1, 0 or 1. */
function compareDigits(text: string, start: number, length: number, digits: string): number {
  const common = Math.min(length, digits.length);
  for (let i = 0; i < common; i++) {
    const difference = text.charCodeAt(start + i) - digits.charCodeAt(i);
    if (difference !== 0) return difference < 0 ? -1 : 1;
  }
  return length === digits.length ? 0 : length < digits.length ? -1 : 1;
}

/** XSD totalDigits of the scanned value: the digits of i when it is written i × 10^-n with n ≥ 0 as small as
 * possible. */
function scannedTotalDigits(text: string): number {
  const fractionDigits = scanned.fractionEnd - scanned.fractionStart;
  if (scanned.integerEnd > scanned.integerStart) return scanned.integerEnd - scanned.integerStart + fractionDigits;
  let start = scanned.fractionStart;
  while (start < scanned.fractionEnd && text.charCodeAt(start) === ZERO) start++;
  return scanned.fractionEnd - start;
}

function bound(text: string | undefined): DecimalValue | undefined {
  if (text === undefined) return undefined;
  const value = scanDecimal(text);
  if (value === undefined) throw new Error(`model: ${text} is not a decimal bound`);
  return value;
}

/** The digit counts a numeric XSD pattern allows, when it has the plain shape `^(?:[0-9]{m,n}(\.[0-9]{p,q})?)$`
 * (or with [\p{Nd}]: the scan admits ASCII digits only, and those the class includes). Such a pattern is checked
 * on the scan's counts instead of by a regular expression. The patterns whose point is an unescaped `.` (any
 * character: a defect of DGII's XSDs that libxml2 applies as written) are left to the regular expression. */
interface DigitShape {
  readonly integerMin: number;
  readonly integerMax: number;
  /** -1 when the pattern has no fraction part. */
  readonly fractionMin: number;
  readonly fractionMax: number;
}

const plainNumericPattern =
  /^\^\(\?:\(?\[(?:0-9|\\p\{Nd\})\]\{(\d+),(\d+)\}\)?(?:\(\\\.\[(?:0-9|\\p\{Nd\})\]\{(\d+),(\d+)\}\)\?)?\)\$$/;

export function digitShapeOf(pattern: string): DigitShape | undefined {
  const match = plainNumericPattern.exec(pattern);
  if (match === null) return undefined;
  const count = (group: string | undefined) => (group === undefined ? -1 : Number(group));
  return {
    integerMin: count(match[1]),
    integerMax: count(match[2]),
    fractionMin: count(match[3]),
    fractionMax: count(match[4]),
  };
}

/** Whether `text` is a decimal literal the shape admits (what the shape's pattern says of it). */
export function matchesDigitShape(shape: DigitShape, text: string): boolean {
  return scan(text) && fitsShape(shape);
}

function fitsShape(shape: DigitShape): boolean {
  if (scanned.signed) return false;
  if (scanned.writtenIntegerDigits < shape.integerMin || scanned.writtenIntegerDigits > shape.integerMax) return false;
  if (!scanned.point) return true;
  return scanned.writtenFractionDigits >= shape.fractionMin && scanned.writtenFractionDigits <= shape.fractionMax;
}

function numberReader(type: DecimalType | IntegerType): LeafReader {
  const fractionDigits = type.kind === 'decimal' ? type.fractionDigits : 0;
  const shape = type.pattern === undefined ? undefined : digitShapeOf(type.pattern);
  const pattern = shape === undefined ? anchored(type.pattern) : undefined;
  const minInclusive = bound(type.minInclusive);
  const minExclusive = bound(type.minExclusive);
  const maxInclusive = bound(type.maxInclusive);
  const bounded = minInclusive !== undefined || minExclusive !== undefined || maxInclusive !== undefined;
  const tooManyFractionDigits = fail('too_many_fraction_digits', `at most ${String(fractionDigits)} decimals`);
  const tooManyDigits = fail('too_many_digits', `at most ${String(type.totalDigits)} digits`);
  const belowMin = fail('out_of_range', `must be at least ${String(type.minInclusive)}`);
  const notAboveMin = fail('out_of_range', `must be greater than ${String(type.minExclusive)}`);
  const aboveMax = fail('out_of_range', `must be at most ${String(type.maxInclusive)}`);
  /** What a whole number of a decimal field is written with: `1180` → `1180.00`. */
  const integerSuffix = fractionDigits === undefined || fractionDigits === 0 ? '' : `.${'0'.repeat(fractionDigits)}`;

  return (raw) => {
    let text: string;
    if (typeof raw === 'number') {
      if (type.kind === 'integer') {
        if (!Number.isSafeInteger(raw)) return Number.isFinite(raw) ? notAnInteger : notFinite;
        text = String(raw);
      } else if (Number.isSafeInteger(raw)) {
        text = String(raw) + integerSuffix;
      } else {
        if (!Number.isFinite(raw)) return notFinite;
        // The shortest string that reads back as this double is what the client wrote; more fraction digits than
        // the field allows is the client's error, not ours to round away. Exponent forms go through big.js.
        const shortest = String(raw);
        const digits = shortest.includes('e') ? new Big(raw).toFixed() : shortest;
        const dot = digits.indexOf('.');
        const decimals = dot < 0 ? 0 : digits.length - dot - 1;
        if (fractionDigits !== undefined && decimals > fractionDigits) return tooManyFractionDigits;
        text =
          fractionDigits === undefined || decimals === fractionDigits
            ? digits
            : padFraction(digits, dot, fractionDigits - decimals);
      }
    } else if (typeof raw === 'string') {
      text = raw;
    } else {
      return wrongType;
    }
    const lexical = scan(text);
    // An integer's lexical form, [+-]?[0-9]+, is a decimal literal without a point: read off the scan rather than
    // matched by a regular expression (a NumeroLinea on every line).
    if (type.kind === 'integer' && typeof raw === 'string' && !(lexical && !scanned.point))
      return isXmlText(raw) ? notAnInteger : invalidCharacter;
    if (!lexical) return isXmlText(text) ? notADecimal : invalidCharacter;
    if (shape !== undefined ? !fitsShape(shape) : pattern !== undefined && !pattern.test(text)) return patternMismatch;
    if (type.totalDigits !== undefined && scannedTotalDigits(text) > type.totalDigits) return tooManyDigits;
    if (fractionDigits !== undefined && scanned.fractionEnd - scanned.fractionStart > fractionDigits)
      return tooManyFractionDigits;
    if (bounded) {
      if (minInclusive !== undefined && compareScanned(text, minInclusive) < 0) return belowMin;
      if (minExclusive !== undefined && compareScanned(text, minExclusive) <= 0) return notAboveMin;
      if (maxInclusive !== undefined && compareScanned(text, maxInclusive) > 0) return aboveMax;
    }
    return text;
  };
}

function padFraction(digits: string, dot: number, zeros: number): string {
  return (dot < 0 ? `${digits}.` : digits) + '0'.repeat(zeros);
}

// DGII writes two-digit days and months (Formato e-CF, "dd-mm-aaaa"); the XSD's years are 1900–2099.
function isDate(value: string): boolean {
  if (!/^\d{2}-\d{2}-(19|20)\d{2}$/.test(value)) return false;
  // The digits read in place: what parseDgiiDate (fiscal/dates.ts) accepts, without its match array and Date.
  const day = twoDigits(value, 0);
  const month = twoDigits(value, 3);
  const year = twoDigits(value, 6) * 100 + twoDigits(value, 8);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(month, year);
}

function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - ZERO) * 10 + text.charCodeAt(at + 1) - ZERO;
}

function daysInMonth(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isTimestamp(value: string): boolean {
  const match = /^(\d{2}-\d{2}-\d{4}) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.exec(value);
  return match?.[1] !== undefined && isDate(match[1]);
}
