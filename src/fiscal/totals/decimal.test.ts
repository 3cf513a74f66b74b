import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Big from 'big.js';
import type { Finding } from '../finding.js';
import { computeTotals } from './index.js';
import { amountRule, readDecimal, subquantityRule, unitPriceRule, type DecimalRule } from './decimal.js';
import { ecf, line } from './totals-test-documents.js';

describe('money is never a float', () => {
  it('adds 0.1 and 0.2 exactly, sent as numbers', () => {
    const { totales } = computeTotals(
      ecf({
        items: [
          { IndicadorFacturacion: '4', CantidadItem: 1, PrecioUnitarioItem: 0.1 },
          { IndicadorFacturacion: '4', CantidadItem: 1, PrecioUnitarioItem: 0.2 },
        ],
      }),
    );
    assert.equal(totales.MontoExento, '0.30');
    const findings: Finding[] = [];
    const sum = readDecimal(0.1, '/x', amountRule, findings)?.plus(readDecimal(0.2, '/y', amountRule, findings) ?? 0);
    assert.equal(sum?.toString(), '0.3');
    assert.deepEqual(findings, []);
  });

  it('rounds 1.005 half-up to 1.01, where a float gives 1.00', () => {
    assert.equal((1.005).toFixed(2), '1.00');
    const { lineas } = computeTotals(
      ecf({ items: [{ IndicadorFacturacion: '4', CantidadItem: '1', PrecioUnitarioItem: '1.005' }] }),
    );
    assert.equal(lineas[0]?.MontoItem, '1.01');
  });

  it('multiplies 3 × 0.1 × 18 % to the cent', () => {
    const { totales } = computeTotals(
      ecf({ items: [{ IndicadorFacturacion: '1', CantidadItem: '3', PrecioUnitarioItem: '0.1' }] }),
    );
    assert.equal(totales.MontoGravadoI1, '0.30');
    assert.equal(totales.TotalITBIS1, '0.05');
  });

  it('sums a thousand lines of 0.01 to exactly 10.00', () => {
    const { totales } = computeTotals(ecf({ items: Array.from({ length: 1000 }, () => line('4', '0.01')) }));
    assert.equal(totales.MontoTotal, '10.00');
  });
});

describe('readDecimal', () => {
  const cases: { value: unknown; rule: DecimalRule; result?: string; code?: string }[] = [
    { value: '10.12', rule: amountRule, result: '10.12' },
    { value: '10.123', rule: amountRule, code: 'too_many_decimals' },
    { value: '1.1234', rule: unitPriceRule, result: '1.1234' },
    { value: '1.12345', rule: unitPriceRule, code: 'too_many_decimals' },
    { value: '0.355', rule: subquantityRule, result: '0.355' },
    { value: '0.3555', rule: subquantityRule, code: 'too_many_decimals' },
    { value: 12.5, rule: amountRule, result: '12.5' },
    { value: 0.125, rule: amountRule, code: 'too_many_decimals' },
    { value: 1e21, rule: amountRule, code: 'inexact_number' },
    { value: 1e-7, rule: amountRule, code: 'inexact_number' },
    { value: 2 ** 60, rule: amountRule, code: 'inexact_number' },
    { value: Number.NaN, rule: amountRule, code: 'inexact_number' },
    { value: '1,000.00', rule: amountRule, code: 'invalid_number' },
    { value: '1e3', rule: amountRule, code: 'invalid_number' },
    { value: true, rule: amountRule, code: 'invalid_number' },
    { value: '-1.00', rule: amountRule, code: 'negative_amount' },
    { value: '-1.00', rule: { maxDecimals: 2, allowNegative: true }, result: '-1' },
  ];
  for (const { value, rule, result, code } of cases) {
    it(`${code === undefined ? 'reads' : `reports ${code} for`} ${typeof value === 'string' ? `"${value}"` : String(value)} (≤ ${rule.maxDecimals} decimals)`, () => {
      const findings: Finding[] = [];
      const parsed = readDecimal(value, '/x', rule, findings);
      assert.equal(parsed?.toString(), result);
      assert.deepEqual(
        findings.map((f) => [f.code, f.severity]),
        code === undefined ? [] : [[code, 'error']],
      );
    });
  }

  it('reports a MontoItem with three decimals at its pointer', () => {
    const { findings } = computeTotals(ecf({ items: [line('4', '10.00', { MontoItem: '10.001' })] }));
    assert.deepEqual(
      findings.map((f) => [f.pointer, f.code]),
      [['/DetallesItems/Item/0/MontoItem', 'too_many_decimals']],
    );
  });

  it('reports a TipoCambio with five decimals', () => {
    const { findings } = computeTotals(
      ecf({ items: [line('4', '10.00')], otraMoneda: { TipoMoneda: 'USD', TipoCambio: '58.12345' } }),
    );
    assert.deepEqual(
      findings.map((f) => [f.pointer, f.code]),
      [['/Encabezado/OtraMoneda/TipoCambio', 'too_many_decimals']],
    );
  });

  it('keeps big.js half-up as the rounding mode', () => {
    assert.equal(new Big('2.675').round(2, Big.roundHalfUp).toFixed(2), '2.68');
  });
});
