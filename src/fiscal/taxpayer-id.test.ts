import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTaxpayerId, isValidCedula, isValidRnc, rncCheckDigit } from './taxpayer-id.js';

describe('RNC check digit', () => {
  // RNCs used in DGII's own test data and public samples (research/ecf-format.md §4).
  for (const rnc of [
    '131880681',
    '133009889',
    '133470616',
    '130862346',
    '533445861',
    '123003994',
    '101672919',
    '401506254',
    '131880738',
    '130359334',
    '101850043',
  ]) {
    it(`accepts ${rnc}`, () => {
      assert.equal(isValidRnc(rnc), true);
    });
  }

  it('computes the digit for each remainder case (0 gives 2, 1 gives 1, else 11 - s)', () => {
    assert.equal(rncCheckDigit('13035933'), 4);
    assert.equal(rncCheckDigit('10185004'), 3);
  });

  for (const rnc of ['101850042', '131880680', '13188068', '1318806811', '13188068a']) {
    it(`refuses ${rnc}`, () => {
      assert.equal(isValidRnc(rnc), false);
    });
  }
});

describe('cédula check digit', () => {
  for (const cedula of ['00113918205', '40212345678', '22300000001']) {
    it(`accepts ${cedula}`, () => {
      assert.equal(isValidCedula(cedula), true);
    });
  }
  for (const cedula of ['00113918204', '40212345671', '4021234567', '402123456711']) {
    it(`refuses ${cedula}`, () => {
      assert.equal(isValidCedula(cedula), false);
    });
  }
});

describe('checkTaxpayerId', () => {
  const cases: [string, ReturnType<typeof checkTaxpayerId>][] = [
    ['131880681', undefined],
    ['00113918205', undefined],
    ['131880680', 'check_digit'],
    ['00113918204', 'check_digit'],
    ['1318806', 'format'],
    ['13188068-1', 'format'],
    ['', 'format'],
  ];
  for (const [value, expected] of cases) {
    it(`says ${String(expected)} for "${value}"`, () => {
      assert.equal(checkTaxpayerId(value), expected);
    });
  }
});
