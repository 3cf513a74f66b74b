// The worked examples of the Informe Técnico e-CF v1.0 (and the Formato e-CF sample), reproduced to the cent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Big from 'big.js';
import { checkTotals, computeTotals, round2 } from './index.js';
import { ecf, givenRates, line, taxCodes } from './totals-test-documents.js';

const tolerancePencils = [
  { CantidadItem: '5.50', PrecioUnitarioItem: '100.33', MontoItem: '552.80' },
  { CantidadItem: '10.25', PrecioUnitarioItem: '555.44', MontoItem: '5694.00' },
  { CantidadItem: '2.00', PrecioUnitarioItem: '333.25', MontoItem: '667.50' },
].map((item) => ({ IndicadorFacturacion: '4', ...item }));

describe('Informe Técnico §12, regla de tolerancia', () => {
  it('accepts the three lines that differ by 0.99, 0.74 and 1.00 from cantidad × precio', () => {
    const findings = checkTotals(ecf({ items: tolerancePencils }));
    assert.deepEqual(findings, []);
  });

  it('computes the "monto total según formato" 6911.58 from cantidad × precio', () => {
    const items = tolerancePencils.map(({ MontoItem: _ignored, ...item }) => item);
    const { totales, lineas } = computeTotals(ecf({ items }));
    assert.deepEqual(
      lineas.map((l) => l.MontoItem),
      ['551.82', '5693.26', '666.50'],
    );
    assert.equal(totales.MontoTotal, '6911.58');
  });

  it("accepts the emitter's MontoTotal 6914.30, 2.72 away, within the global tolerance of 3 lines", () => {
    const document = ecf({ items: tolerancePencils, totales: { MontoExento: '6914.30', MontoTotal: '6914.30' } });
    const { totales, findings } = computeTotals(document);
    assert.deepEqual(findings, []);
    assert.equal(totales.MontoTotal, '6914.30');
  });
});

describe('Informe Técnico §13, regla de redondeo', () => {
  for (const [value, rounded] of [
    ['750.5212', '750.52'],
    ['750.5276', '750.53'],
    ['750.525', '750.53'],
    ['750.5249', '750.52'],
  ] as const) {
    it(`rounds ${value} half-up to ${rounded}`, () => {
      assert.equal(round2(new Big(value)).toFixed(2), rounded);
    });
  }
});

// §14: RON 16/700 ML, PVP 80.00, 16 units of 0.65 l at 4.30 %, específico rate 617.93.
const rum = {
  IndicadorFacturacion: '1',
  CantidadItem: '1',
  UnidadMedida: '6',
  PrecioUnitarioItem: '1063.97',
  MontoItem: '1063.97',
  GradosAlcohol: '4.30',
  CantidadReferencia: '16',
  TablaSubcantidad: { SubcantidadItem: { Subcantidad: '0.65' } },
  PrecioUnitarioReferencia: '80.00',
};
// §14: MALBORO 20/10, PVP 200.00, 20 cigarettes, específico rate 25.86.
const cigarettes = {
  IndicadorFacturacion: '1',
  CantidadItem: '1',
  PrecioUnitarioItem: '1450.00',
  MontoItem: '1450.00',
  CantidadReferencia: '20',
  PrecioUnitarioReferencia: '200.00',
};

function taxesOf(document: Parameters<typeof computeTotals>[0]) {
  const { totales, findings } = computeTotals(document);
  assert.deepEqual(findings, []);
  return totales.ImpuestosAdicionales?.ImpuestoAdicional ?? [];
}

describe('Informe Técnico §14, ISC de alcoholes y cigarrillos', () => {
  it('ISC específico alcohol: 617.93 × 4.30 % × 16 × 0.65 × 1 = 276.34', () => {
    const taxes = taxesOf(
      ecf({ items: [{ ...rum, TablaImpuestoAdicional: taxCodes('014') }], totales: givenRates({ '014': '617.93' }) }),
    );
    assert.deepEqual(taxes, [
      { TipoImpuesto: '014', TasaImpuestoAdicional: '617.93', MontoImpuestoSelectivoConsumoEspecifico: '276.34' },
    ]);
  });

  it('ISC ad valorem alcohol, not granel: ((80 / 1.18) − 276.34 / 16) / 1.10 × 0.10 × 16 = 73.49', () => {
    const taxes = taxesOf(
      ecf({
        items: [{ ...rum, TablaImpuestoAdicional: taxCodes('014', '031') }],
        totales: givenRates({ '014': '617.93' }),
      }),
    );
    assert.deepEqual(
      taxes.map((tax) => tax.MontoImpuestoSelectivoConsumoAdvalorem),
      [undefined, '73.49'],
    );
  });

  it('ISC ad valorem alcohol a granel: 10163.97 × 1.30 × 0.10 × 2 = 2642.63, and no ISC específico', () => {
    const bulk = {
      IndicadorFacturacion: '1',
      CantidadItem: '2',
      UnidadMedida: '18',
      PrecioUnitarioItem: '10163.97',
      MontoItem: '20327.94',
      TablaImpuestoAdicional: taxCodes('014', '031'),
    };
    const taxes = taxesOf(ecf({ items: [bulk], totales: givenRates({ '014': '617.93' }) }));
    assert.deepEqual(taxes, [
      { TipoImpuesto: '014', TasaImpuestoAdicional: '617.93' },
      { TipoImpuesto: '031', TasaImpuestoAdicional: '10', MontoImpuestoSelectivoConsumoAdvalorem: '2642.63' },
    ]);
  });

  it('ISC específico cigarrillos: 1 × 20 × 25.86 = 517.20', () => {
    const taxes = taxesOf(
      ecf({
        items: [{ ...cigarettes, TablaImpuestoAdicional: taxCodes('019') }],
        totales: givenRates({ '019': '25.86' }),
      }),
    );
    assert.equal(taxes[0]?.MontoImpuestoSelectivoConsumoEspecifico, '517.20');
  });

  it('ISC ad valorem cigarrillos: ((200 / 1.18) − 25.86) / 1.20 × 0.20 × 20 × 1 = 478.77', () => {
    const taxes = taxesOf(
      ecf({
        items: [{ ...cigarettes, TablaImpuestoAdicional: taxCodes('019', '036') }],
        totales: givenRates({ '019': '25.86' }),
      }),
    );
    assert.deepEqual(
      taxes.map((tax) => tax.MontoImpuestoSelectivoConsumoAdvalorem),
      [undefined, '478.77'],
    );
  });

  it('adds the ISC to the 18 % ITBIS base and to MontoTotal (Formato e-CF field 101)', () => {
    const { totales } = computeTotals(
      ecf({
        items: [{ ...rum, TablaImpuestoAdicional: taxCodes('014', '031') }],
        totales: givenRates({ '014': '617.93' }),
      }),
    );
    // (1063.97 + 276.34 + 73.49) × 0.18 = 254.484
    assert.equal(totales.TotalITBIS1, '254.48');
    assert.equal(totales.MontoImpuestoAdicional, '349.83');
    assert.equal(totales.MontoTotal, '1668.28');
  });
});

describe('Informe Técnico §15, otros impuestos adicionales', () => {
  const cdtOf = (document: Parameters<typeof computeTotals>[0]) =>
    taxesOf(document).find((tax) => tax.TipoImpuesto === '002')?.OtrosImpuestosAdicionales;

  it('CDT with IndicadorMontoGravado 0: 500 × 0.02 = 10.00', () => {
    assert.equal(cdtOf(ecf({ items: [line('1', '500.00', { TablaImpuestoAdicional: taxCodes('002') })] })), '10.00');
  });

  it('CDT with IndicadorMontoGravado 1: (500 / 1.18) × 0.02 = 8.47', () => {
    assert.equal(
      cdtOf(
        ecf({ pricesIncludeItbis: true, items: [line('1', '500.00', { TablaImpuestoAdicional: taxCodes('002') })] }),
      ),
      '8.47',
    );
  });

  it('CDT with Norma 10-07: 500 / (1 + 0.18 + 0.02 + 0.10) × 0.02 = 7.69, the 10-07 discount not taken off', () => {
    const document = ecf({
      pricesIncludeItbis: true,
      items: [line('1', '500.00', { TablaImpuestoAdicional: taxCodes('002', '004') })],
      adjustments: [
        {
          TipoAjuste: 'D',
          IndicadorNorma1007: '1',
          TipoValor: '$',
          MontoDescuentooRecargo: '100.00',
          IndicadorFacturacionDescuentooRecargo: '1',
        },
      ],
    });
    assert.equal(cdtOf(document), '7.69');
    const { totales } = computeTotals(document);
    // Formato e-CF field 93 d: the 18 % base is 500 / 1.30, and field 115 c: ValorPagar drops the 10-07 discount.
    assert.equal(totales.MontoGravadoI1, '384.62');
    // 384.62 + ITBIS 69.23 + CDT 7.69 + ISC telecom 38.46
    assert.equal(totales.MontoTotal, '500.00');
    assert.equal(totales.ValorPagar, '400.00');
  });

  const discountLines = [
    line('1', '200.00', { TablaImpuestoAdicional: taxCodes('002') }),
    line('1', '300.00', { TablaImpuestoAdicional: taxCodes('002') }),
    line('1', '130.00'),
  ];

  it('CDT with a global discount of 100 shared by MontoItem: (500 − 79.37) × 0.02 = 8.41', () => {
    const document = ecf({
      items: discountLines,
      adjustments: [
        {
          TipoAjuste: 'D',
          TipoValor: '$',
          MontoDescuentooRecargo: '100.00',
          IndicadorFacturacionDescuentooRecargo: '1',
        },
      ],
    });
    assert.equal(cdtOf(document), '8.41');
    assert.equal(computeTotals(document).totales.MontoGravadoI1, '530.00');
  });

  it('CDT with a global surcharge of 100 shared by MontoItem: (500 + 79.37) × 0.02 = 11.59', () => {
    const document = ecf({
      items: discountLines,
      adjustments: [
        {
          TipoAjuste: 'R',
          TipoValor: '$',
          MontoDescuentooRecargo: '100.00',
          IndicadorFacturacionDescuentooRecargo: '1',
        },
      ],
    });
    assert.equal(cdtOf(document), '11.59');
    assert.equal(computeTotals(document).totales.MontoGravadoI1, '730.00');
  });
});

describe('Informe Técnico §16, Norma General 07-07', () => {
  it('splits 300,000.00 into 270,000.00 exento and 30,000.00 at 18 %: ITBIS 5,400.00, total 305,400.00', () => {
    const { totales, findings } = computeTotals(ecf({ items: [line('4', '270000.00'), line('1', '30000.00')] }));
    assert.deepEqual(findings, []);
    assert.equal(totales.MontoExento, '270000.00');
    assert.equal(totales.TotalITBIS, '5400.00');
    assert.equal(totales.MontoTotal, '305400.00');
  });
});

describe('DGII sample 130862346E310005000201.xml', () => {
  it('reproduces its Totales from its single line (24 × 25 − 60 at 18 %)', () => {
    const item = {
      IndicadorFacturacion: '1',
      CantidadItem: '24',
      UnidadMedida: '43',
      PrecioUnitarioItem: '25',
      DescuentoMonto: '60',
    };
    const { totales, findings } = computeTotals(ecf({ items: [item] }));
    assert.deepEqual(findings, []);
    assert.deepEqual(totales, {
      MontoGravadoTotal: '540.00',
      MontoGravadoI1: '540.00',
      ITBIS1: '18',
      TotalITBIS: '97.20',
      TotalITBIS1: '97.20',
      MontoTotal: '637.20',
    });
  });

  it('finds nothing wrong with the Totales the sample sends', () => {
    const item = {
      IndicadorFacturacion: '1',
      CantidadItem: '24',
      PrecioUnitarioItem: '25',
      DescuentoMonto: '60',
      MontoItem: '540',
    };
    const totales = {
      MontoGravadoTotal: '540',
      MontoGravadoI1: '540',
      MontoExento: '0',
      ITBIS1: '18',
      TotalITBIS: '97.2',
      TotalITBIS1: '97.2',
      MontoTotal: '637.2',
      MontoNoFacturable: '0',
    };
    assert.deepEqual(checkTotals(ecf({ items: [item], totales })), []);
  });
});

describe('DGII certification test set, case E310000000002 (research/ecf-format.md §2.2–2.3)', () => {
  // Beer: 2 boxes of 24 × 0.355 l at 5 %, PVP 65.00, específico rate 633.85 that quarter.
  const beer = {
    IndicadorFacturacion: '1',
    CantidadItem: '2',
    UnidadMedida: '6',
    PrecioUnitarioItem: '1615.00',
    MontoItem: '3230.00',
    GradosAlcohol: '5',
    CantidadReferencia: '24',
    TablaSubcantidad: { SubcantidadItem: { Subcantidad: '0.355' } },
    PrecioUnitarioReferencia: '65.00',
    TablaImpuestoAdicional: taxCodes('006', '023'),
  };

  it('computes ISC 540.04 + 191.28 and ITBIS (3230 + 540.04 + 191.28) × 0.18 = 713.04', () => {
    const { totales, findings } = computeTotals(ecf({ items: [beer], totales: givenRates({ '006': '633.85' }) }));
    assert.deepEqual(findings, []);
    assert.deepEqual(totales.ImpuestosAdicionales?.ImpuestoAdicional, [
      { TipoImpuesto: '006', TasaImpuestoAdicional: '633.85', MontoImpuestoSelectivoConsumoEspecifico: '540.04' },
      { TipoImpuesto: '023', TasaImpuestoAdicional: '10', MontoImpuestoSelectivoConsumoAdvalorem: '191.28' },
    ]);
    assert.equal(totales.TotalITBIS1, '713.04');
    assert.equal(totales.MontoTotal, '4674.36');
  });

  it("accepts the test set's own MontoTotal 4674.35, one cent off", () => {
    const given = { ...givenRates({ '006': '633.85' }), MontoTotal: '4674.35' };
    assert.deepEqual(checkTotals(ecf({ items: [beer], totales: given })), []);
  });
});
