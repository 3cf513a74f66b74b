import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTotals } from './index.js';
import { ecf, givenRates, line, taxCodes } from './totals-test-documents.js';

const brief = (findings: ReturnType<typeof checkTotals>) => findings.map((f) => [f.pointer, f.code, f.severity]);

describe('checkTotals: line tolerance, ±1 per line (Informe Técnico §12)', () => {
  const cases = [
    { given: '101.00', outside: false },
    { given: '99.00', outside: false },
    { given: '101.01', outside: true },
    { given: '98.99', outside: true },
  ];
  for (const { given, outside } of cases) {
    it(`${outside ? 'warns about' : 'accepts'} MontoItem ${given} for 1 × 100.00`, () => {
      const findings = checkTotals(
        ecf({
          items: [{ IndicadorFacturacion: '4', CantidadItem: '1', PrecioUnitarioItem: '100.00', MontoItem: given }],
        }),
      );
      assert.deepEqual(
        brief(findings),
        outside ? [['/DetallesItems/Item/0/MontoItem', 'totals_outside_tolerance', 'warning']] : [],
      );
    });
  }

  it('names the given and the computed amount', () => {
    const [finding] = checkTotals(
      ecf({
        items: [{ IndicadorFacturacion: '4', CantidadItem: '1', PrecioUnitarioItem: '100.00', MontoItem: '101.01' }],
      }),
    );
    assert.match(finding?.message ?? '', /Given 101\.01, computed 100\.00/);
  });

  it('checks MontoItemOtraMoneda against PrecioOtraMoneda × CantidadItem too', () => {
    const item = {
      ...line('4', '100.00'),
      CantidadItem: '1',
      OtraMonedaDetalle: { PrecioOtraMoneda: '2.00', MontoItemOtraMoneda: '3.01' },
    };
    const findings = checkTotals(ecf({ items: [item], otraMoneda: { TipoMoneda: 'USD', TipoCambio: '50' } }));
    assert.deepEqual(brief(findings), [
      ['/DetallesItems/Item/0/OtraMonedaDetalle/MontoItemOtraMoneda', 'totals_outside_tolerance', 'warning'],
    ]);
  });
});

describe('checkTotals: global tolerance, as many units as lines (Informe Técnico §12)', () => {
  const threeLines = [line('4', '100.00'), line('4', '100.00'), line('4', '100.00')];
  const cases = [
    { given: '303.00', outside: false },
    { given: '297.00', outside: false },
    { given: '303.01', outside: true },
    { given: '296.99', outside: true },
  ];
  for (const { given, outside } of cases) {
    it(`${outside ? 'warns about' : 'accepts'} MontoTotal ${given} for 3 lines of 100.00`, () => {
      const findings = checkTotals(ecf({ items: threeLines, totales: { MontoTotal: given } }));
      assert.deepEqual(
        brief(findings),
        outside ? [['/Encabezado/Totales/MontoTotal', 'totals_outside_tolerance', 'warning']] : [],
      );
    });
  }

  it('checks every given amount, additional taxes and other currency included', () => {
    const findings = checkTotals(
      ecf({
        items: [line('1', '1000.00', { TablaImpuestoAdicional: taxCodes('002') })],
        otraMoneda: { TipoMoneda: 'USD', TipoCambio: '50', MontoGravado1OtraMoneda: '22.00' },
        totales: {
          MontoGravadoI1: '1000.00',
          TotalITBIS1: '182.00',
          ImpuestosAdicionales: {
            ImpuestoAdicional: { TipoImpuesto: '002', TasaImpuestoAdicional: '2', OtrosImpuestosAdicionales: '21.01' },
          },
        },
      }),
    );
    assert.deepEqual(brief(findings), [
      ['/Encabezado/Totales/TotalITBIS1', 'totals_outside_tolerance', 'warning'],
      [
        '/Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional/0/OtrosImpuestosAdicionales',
        'totals_outside_tolerance',
        'warning',
      ],
      ['/Encabezado/OtraMoneda/MontoGravado1OtraMoneda', 'totals_outside_tolerance', 'warning'],
    ]);
  });
});

describe('checkTotals: structurally impossible input is an error', () => {
  const cases = [
    {
      name: 'a negative CantidadItem',
      item: { CantidadItem: '-1' },
      pointer: '/DetallesItems/Item/0/CantidadItem',
      code: 'negative_amount',
    },
    {
      name: 'a zero CantidadItem',
      item: { CantidadItem: '0' },
      pointer: '/DetallesItems/Item/0/CantidadItem',
      code: 'non_positive_quantity',
    },
    {
      name: 'a negative PrecioUnitarioItem',
      item: { PrecioUnitarioItem: '-5.00', MontoItem: undefined },
      pointer: '/DetallesItems/Item/0/PrecioUnitarioItem',
      code: 'negative_amount',
    },
    {
      name: 'an unknown IndicadorFacturacion',
      item: { IndicadorFacturacion: '5' },
      pointer: '/DetallesItems/Item/0/IndicadorFacturacion',
      code: 'unknown_billing_indicator',
    },
    {
      name: 'an unknown additional tax',
      item: { TablaImpuestoAdicional: taxCodes('040') },
      pointer: '/DetallesItems/Item/0/TablaImpuestoAdicional/ImpuestoAdicional/0/TipoImpuesto',
      code: 'unknown_additional_tax',
    },
    {
      name: 'a discount larger than the line',
      item: { DescuentoMonto: '150.00', MontoItem: undefined },
      pointer: '/DetallesItems/Item/0/MontoItem',
      code: 'negative_line_amount',
    },
  ];
  for (const example of cases) {
    it(`reports ${example.name}`, () => {
      const findings = checkTotals(ecf({ items: [{ ...line('1', '100.00'), ...example.item }] }));
      assert.deepEqual(
        brief(findings).filter(([pointer]) => pointer === example.pointer),
        [[example.pointer, example.code, 'error']],
      );
    });
  }

  it('reports an unknown TipoeCF', () => {
    assert.deepEqual(brief(checkTotals(ecf({ type: '99', items: [line('1', '1.00')] }))), [
      ['/Encabezado/IdDoc/TipoeCF', 'unknown_ecf_type', 'error'],
    ]);
  });

  it('reports an ITBIS1 that is not 18', () => {
    assert.deepEqual(brief(checkTotals(ecf({ items: [line('1', '100.00')], totales: { ITBIS1: '17' } }))), [
      ['/Encabezado/Totales/ITBIS1', 'itbis_rate_mismatch', 'error'],
    ]);
  });

  it('asks for the quarterly ISC específico rate when the client does not send it', () => {
    const findings = checkTotals(
      ecf({ items: [line('1', '100.00', { TablaImpuestoAdicional: taxCodes('019'), CantidadReferencia: '20' })] }),
    );
    assert.deepEqual(brief(findings), [
      ['/Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional', 'additional_tax_rate_required', 'error'],
    ]);
  });

  it("rejects a CDT rate other than Tabla I's 2 %", () => {
    const findings = checkTotals(
      ecf({
        items: [line('1', '100.00', { TablaImpuestoAdicional: taxCodes('002') })],
        totales: givenRates({ '002': '3' }),
      }),
    );
    assert.deepEqual(brief(findings), [
      ['/Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional', 'additional_tax_rate_mismatch', 'error'],
    ]);
  });

  it('asks for the fields an ISC específico on alcohol is computed from', () => {
    const findings = checkTotals(
      ecf({
        items: [line('1', '100.00', { TablaImpuestoAdicional: taxCodes('014') })],
        totales: givenRates({ '014': '617.93' }),
      }),
    );
    assert.deepEqual(brief(findings), [['/DetallesItems/Item/0', 'isc_field_required', 'error']]);
  });
});

describe('checkTotals: rules tied to the type and to Norma 10-07', () => {
  const cases: { name: string; type: string; item: ReturnType<typeof line>; rates: Record<string, string> }[] = [
    {
      name: 'an ISC on a Regímenes Especiales (44), which carries 001–005 only',
      type: '44',
      item: line('4', '100.00', { TablaImpuestoAdicional: taxCodes('019'), CantidadReferencia: '20' }),
      rates: { '019': '25.86' },
    },
    {
      name: 'an additional tax on a Comprobante de Compras (41)',
      type: '41',
      item: line('1', '100.00', { TablaImpuestoAdicional: taxCodes('002') }),
      rates: {},
    },
  ];
  for (const example of cases) {
    it(`reports ${example.name}`, () => {
      const findings = checkTotals(
        ecf({ type: example.type, items: [example.item], totales: givenRates(example.rates) }),
      );
      assert.deepEqual(brief(findings), [
        ['/Encabezado/Totales/ImpuestosAdicionales', 'not_allowed_for_type', 'error'],
      ]);
    });
  }

  it('reports a Norma 10-07 discount on prices without ITBIS (Informe Técnico §15 n. 38)', () => {
    const findings = checkTotals(
      ecf({
        items: [line('1', '500.00')],
        adjustments: [
          {
            TipoAjuste: 'D',
            IndicadorNorma1007: '1',
            TipoValor: '$',
            MontoDescuentooRecargo: '100.00',
            IndicadorFacturacionDescuentooRecargo: '1',
          },
        ],
      }),
    );
    assert.deepEqual(brief(findings), [
      ['/DescuentosORecargos/DescuentoORecargo/0/IndicadorNorma1007', 'norma1007_requires_itbis_included', 'error'],
    ]);
  });

  it('reports a given total that is not a number, and leaves it out of the result', () => {
    const findings = checkTotals(
      ecf({ items: [line('4', '1.00')], totales: { MontoPeriodo: 'abc', MontoTotal: '1.000' } }),
    );
    assert.deepEqual(brief(findings), [
      ['/Encabezado/Totales/MontoTotal', 'too_many_decimals', 'error'],
      ['/Encabezado/Totales/MontoPeriodo', 'invalid_number', 'error'],
    ]);
  });
});

describe('checkTotals: ISC ad valorem without its específico', () => {
  it('reports an ad valorem code alone on a bottled-alcohol line (Formato e-CF n. 23)', () => {
    const item = line('1', '100.00', {
      TablaImpuestoAdicional: taxCodes('031'),
      CantidadReferencia: '16',
      PrecioUnitarioReferencia: '80.00',
    });
    assert.deepEqual(brief(checkTotals(ecf({ items: [item] }))), [
      ['/DetallesItems/Item/0/TablaImpuestoAdicional', 'isc_specific_required', 'error'],
    ]);
  });
});
