import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dataTypes } from '../model/generated/data-types.js';
import type { DataType } from '../model/ecf-model-types.js';
import { digitShapeOf, leafReader, matchesDigitShape } from './leaf-value.js';

function type(id: string): DataType {
  const found = dataTypes[id];
  assert.ok(found !== undefined, id);
  return found;
}

const amount = 'Decimal18D1or2ValidationTypeMayorIgualCero';
const exchangeRate = 'Decimal7D1or4ValidationTypeMayorCero';
const quantity = 'Decimal18D1or2ValidationTypeMayorCero';
const pages = 'Integer4ValidationTypeMayorUno';

const cases: [string, string, unknown, string][] = [
  ["an integer number gets the field's decimals", amount, 1180, 'ok 1180.00'],
  ['0.1 is exactly "0.10"', amount, 0.1, 'ok 0.10'],
  ['-0 is written as zero', amount, -0, 'ok 0.00'],
  ['an exchange rate gets four decimals', exchangeRate, 58.5, 'ok 58.5000'],
  ['a decimal string is kept as written', amount, '1180', 'ok 1180'],
  ['a float artefact is not rounded away', amount, 0.1 + 0.2, 'too_many_fraction_digits'],
  ['a number with more than 16 integer digits', amount, 1e21, 'pattern_mismatch'],
  ['a string with three decimals', amount, '1.005', 'pattern_mismatch'],
  ['zero where > 0 is required', quantity, 0, 'out_of_range'],
  ['NaN', amount, Number.NaN, 'not_finite'],
  ['a boolean', amount, true, 'wrong_type'],
  ['TotalPaginas 1 (must be > 1)', pages, 1, 'out_of_range'],
  ['TotalPaginas 2', pages, 2, 'ok 2'],
  ['a fractional page count', pages, 1.5, 'not_an_integer'],
  ['a line number as a string', 'NumeroLineaType', '1000', 'ok 1000'],
  ['a line number with a sign', 'NumeroLineaType', '+7', 'pattern_mismatch'],
  ['a line number over 1000', 'NumeroLineaType', '1001', 'out_of_range'],
  ['a line number of 0', 'NumeroLineaType', '0000', 'out_of_range'],
  ['a line number with a point', 'NumeroLineaType', '7.', 'not_an_integer'],
  ['a line number with a fraction', 'NumeroLineaType', '7.0', 'not_an_integer'],
  ['a line number that is only a sign', 'NumeroLineaType', '-', 'not_an_integer'],
  ['a line number holding a control character', 'NumeroLineaType', '7\u0000', 'invalid_character'],
  ['a quantity just above zero', quantity, '0.01', 'ok 0.01'],
  ['a quantity of zero with trailing zeros', quantity, '0.00', 'out_of_range'],
  ['a negative quantity', quantity, '-0.5', 'pattern_mismatch'],
  ['a real date', 'FechaValidationType', '29-02-2028', 'ok 29-02-2028'],
  ['a date with one-digit day', 'FechaValidationType', '1-02-2028', 'invalid_date'],
  ['a timestamp', 'DateTimeValidationType', '15-11-2026 23:59:59', 'ok 15-11-2026 23:59:59'],
  ['a timestamp at hour 24', 'DateTimeValidationType', '15-11-2026 24:00:00', 'invalid_timestamp'],
  ['a unit code given as a number', 'unidadesMedida', 43, 'ok 43'],
  ['a TerminoPago with accents (XSD \\w is Unicode)', 'TerminoPagoValidationType', '30 días', 'ok 30 días'],
];

describe('leafReader', () => {
  for (const [name, id, raw, expected] of cases) {
    it(`reads ${name}`, () => {
      const result = leafReader(type(id))(raw);
      assert.equal(typeof result === 'string' ? `ok ${result}` : result.code, expected);
    });
  }
});

describe('numeric patterns checked on digit counts', () => {
  const samples = [
    '0',
    '7',
    '0007',
    '1180',
    '1180.5',
    '1180.50',
    '1180.505',
    '.5',
    '5.',
    '-5',
    '+5',
    '1234567890123456',
    '12345678901234567',
    '123456789012345678',
    '0.0001',
    '0.00001',
    '99999',
    '123.4567',
    '1.2.3',
    '١٢',
    'abc',
    '',
  ];
  const shaped = Object.entries(dataTypes).flatMap(([id, dataType]) => {
    if ((dataType.kind !== 'decimal' && dataType.kind !== 'integer') || dataType.pattern === undefined) return [];
    const shape = digitShapeOf(dataType.pattern);
    return shape === undefined ? [] : [{ id, pattern: dataType.pattern, shape }];
  });

  it('covers the plain patterns, and leaves those with an unescaped point to the regular expression', () => {
    assert.ok(shaped.length >= 10, `only ${String(shaped.length)} shaped`);
    assert.equal(digitShapeOf('^(?:[0-9]{1,16}(.[0-9]{1,3})?)$'), undefined);
    assert.equal(digitShapeOf('^(?:[+-]?[0-9]{1,16}(.[0-9]{1,2})?)$'), undefined);
  });

  for (const { id, pattern, shape } of shaped) {
    it(`agrees with the regular expression of ${id} on every decimal literal`, () => {
      const regex = new RegExp(pattern, 'u');
      const decimal = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
      for (const sample of samples.filter((text) => decimal.test(text))) {
        assert.equal(matchesDigitShape(shape, sample), regex.test(sample), `${sample} against ${pattern}`);
      }
    });
  }
});
