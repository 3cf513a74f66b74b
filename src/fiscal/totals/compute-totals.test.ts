import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeTotals } from './index.js';
import { ecf, line, taxCodes } from './totals-test-documents.js';

function totalsOf(document: Parameters<typeof computeTotals>[0]) {
  const { totales, findings } = computeTotals(document);
  assert.deepEqual(findings, []);
  return totales;
}

describe('computeTotals: ITBIS groups', () => {
  it('sums mixed 18 / 16 / 0 % / exento lines into each group, in XSD order, and keeps non-billable lines out of MontoTotal', () => {
    const totales = totalsOf(
      ecf({
        items: [
          line('1', '1000.00'),
          line('2', '500.00'),
          line('3', '300.00'),
          line('4', '200.00'),
          line('0', '50.00'),
        ],
      }),
    );
    assert.deepEqual(Object.entries(totales), [
      ['MontoGravadoTotal', '1800.00'],
      ['MontoGravadoI1', '1000.00'],
      ['MontoGravadoI2', '500.00'],
      ['MontoGravadoI3', '300.00'],
      ['MontoExento', '200.00'],
      ['ITBIS1', '18'],
      ['ITBIS2', '16'],
      ['ITBIS3', '0'],
      ['TotalITBIS', '260.00'],
      ['TotalITBIS1', '180.00'],
      ['TotalITBIS2', '80.00'],
      ['TotalITBIS3', '0.00'],
      ['MontoTotal', '2260.00'],
      ['MontoNoFacturable', '50.00'],
    ]);
  });

  const included = [
    // DGII test set E310000000008: (179 + 358 + 239) / 1.18 = 657.63 (research/ecf-format.md §2.2).
    {
      name: '18 % lines',
      items: [line('1', '179.00'), line('1', '358.00'), line('1', '239.00')],
      gravado: ['MontoGravadoI1', '657.63'],
      itbis: ['TotalITBIS1', '118.37'],
      total: '776.00',
    },
    {
      name: 'a 16 % line',
      items: [line('2', '499.00')],
      gravado: ['MontoGravadoI2', '430.17'],
      itbis: ['TotalITBIS2', '68.83'],
      total: '499.00',
    },
    {
      name: 'an exempt line, untouched',
      items: [line('4', '499.00')],
      gravado: ['MontoExento', '499.00'],
      itbis: ['TotalITBIS', undefined],
      total: '499.00',
    },
  ] as const;
  for (const example of included) {
    it(`takes ITBIS out of ${example.name} when IndicadorMontoGravado is 1`, () => {
      const totales = new Map(Object.entries(totalsOf(ecf({ pricesIncludeItbis: true, items: example.items }))));
      assert.equal(totales.get(example.gravado[0]), example.gravado[1]);
      assert.equal(totales.get(example.itbis[0]), example.itbis[1]);
      assert.equal(totales.get('MontoTotal'), example.total);
    });
  }

  it('gives an export (46) only the 0 % fields', () => {
    assert.deepEqual(totalsOf(ecf({ type: '46', items: [line('3', '1000.00')] })), {
      MontoGravadoTotal: '1000.00',
      MontoGravadoI3: '1000.00',
      ITBIS3: '0',
      TotalITBIS: '0.00',
      TotalITBIS3: '0.00',
      MontoTotal: '1000.00',
    });
  });

  it('rejects a taxed line on a Gastos Menores (43), which carries no ITBIS', () => {
    const { findings } = computeTotals(ecf({ type: '43', items: [line('1', '100.00')] }));
    assert.deepEqual(
      findings.map((f) => [f.pointer, f.code, f.severity]),
      [['/Encabezado/Totales/MontoGravadoI1', 'not_allowed_for_type', 'error']],
    );
  });
});

describe('computeTotals: other additional taxes (Tabla I 001–005)', () => {
  const cases = [
    {
      name: 'telecom: ISC 10 % and CDT 2 % on 1000.00, not part of the ITBIS base',
      img: false,
      amount: '1000.00',
      codes: ['002', '004'],
      taxes: ['20.00', '100.00'],
      itbis: '180.00',
      total: '1300.00',
    },
    {
      name: 'propina legal 10 % on 1500.00',
      img: false,
      amount: '1500.00',
      codes: ['001'],
      taxes: ['150.00'],
      itbis: '270.00',
      total: '1920.00',
    },
    {
      name: 'ISC seguros 16 % on an ITBIS-included 1180.00: 1180 / 1.18 × 0.16',
      img: true,
      amount: '1180.00',
      codes: ['003'],
      taxes: ['160.00'],
      itbis: '180.00',
      total: '1340.00',
    },
    {
      name: 'primera placa 17 % on an ITBIS-included 1180.00: not divided (only 001–004 are)',
      img: true,
      amount: '1180.00',
      codes: ['005'],
      taxes: ['200.60'],
      itbis: '180.00',
      total: '1380.60',
    },
  ];
  for (const example of cases) {
    it(example.name, () => {
      const totales = totalsOf(
        ecf({
          pricesIncludeItbis: example.img,
          items: [line('1', example.amount, { TablaImpuestoAdicional: taxCodes(...example.codes) })],
        }),
      );
      assert.deepEqual(
        totales.ImpuestosAdicionales?.ImpuestoAdicional.map((tax) => tax.OtrosImpuestosAdicionales),
        example.taxes,
      );
      assert.equal(totales.TotalITBIS, example.itbis);
      assert.equal(totales.MontoTotal, example.total);
    });
  }
});

describe('computeTotals: retentions', () => {
  it('sums ITBIS and ISR retained on a Comprobante de Compras (41) without lowering MontoTotal', () => {
    const retained = line('1', '10000.00', {
      Retencion: {
        IndicadorAgenteRetencionoPercepcion: '1',
        MontoITBISRetenido: '1800.00',
        MontoISRRetenido: '1000.00',
      },
    });
    const exempt = line('4', '500.00', {
      Retencion: { IndicadorAgenteRetencionoPercepcion: '1', MontoITBISRetenido: '0', MontoISRRetenido: '50.00' },
    });
    const totales = totalsOf(ecf({ type: '41', items: [retained, exempt] }));
    assert.equal(totales.MontoTotal, '12300.00');
    assert.equal(totales.TotalITBISRetenido, '1800.00');
    assert.equal(totales.TotalISRRetencion, '1050.00');
  });

  it('sums the ISR retained on a Pago al Exterior (47), which has no ITBIS retention field', () => {
    const items = [
      ['36000.00', '9720.00'],
      ['10000.00', '2700.00'],
    ].map(([amount, isr]) =>
      line('4', amount ?? '', { Retencion: { IndicadorAgenteRetencionoPercepcion: '1', MontoISRRetenido: isr } }),
    );
    assert.deepEqual(totalsOf(ecf({ type: '47', items })), {
      MontoExento: '46000.00',
      MontoTotal: '46000.00',
      TotalISRRetencion: '12420.00',
    });
  });
});

describe('computeTotals: global discounts and surcharges', () => {
  it('takes a 10 % discount off the 18 % group and adds a 50.00 surcharge to the exempt group', () => {
    const totales = totalsOf(
      ecf({
        items: [line('1', '1000.00'), line('4', '500.00')],
        adjustments: [
          { TipoAjuste: 'D', TipoValor: '%', ValorDescuentooRecargo: '10', IndicadorFacturacionDescuentooRecargo: '1' },
          {
            TipoAjuste: 'R',
            TipoValor: '$',
            ValorDescuentooRecargo: '50.00',
            MontoDescuentooRecargo: '50.00',
            IndicadorFacturacionDescuentooRecargo: '4',
          },
        ],
      }),
    );
    assert.equal(totales.MontoGravadoI1, '900.00');
    assert.equal(totales.TotalITBIS1, '162.00');
    assert.equal(totales.MontoExento, '550.00');
    assert.equal(totales.MontoTotal, '1612.00');
  });

  it('applies a discount without IndicadorFacturacionDescuentooRecargo to the only group there is', () => {
    const totales = totalsOf(
      ecf({
        items: [line('1', '1000.00')],
        adjustments: [{ TipoAjuste: 'D', TipoValor: '$', MontoDescuentooRecargo: '100.00' }],
      }),
    );
    assert.equal(totales.MontoGravadoI1, '900.00');
  });

  it('asks for the group when the lines span several', () => {
    const { findings } = computeTotals(
      ecf({
        items: [line('1', '1000.00'), line('4', '10.00')],
        adjustments: [{ TipoAjuste: 'D', TipoValor: '$', MontoDescuentooRecargo: '100.00' }],
      }),
    );
    assert.deepEqual(
      findings.map((f) => [f.code, f.severity]),
      [['adjustment_group_required', 'error']],
    );
  });
});

describe('computeTotals: other currency', () => {
  it('totals USD lines from their OtraMonedaDetalle alongside the DOP totals', () => {
    const { totales, otraMoneda, lineas, findings } = computeTotals(
      ecf({
        otraMoneda: { TipoMoneda: 'USD', TipoCambio: '58.5000' },
        items: [
          {
            IndicadorFacturacion: '1',
            CantidadItem: '2',
            PrecioUnitarioItem: '5850.00',
            MontoItem: '11700.00',
            OtraMonedaDetalle: { PrecioOtraMoneda: '100.00', MontoItemOtraMoneda: '200.00' },
          },
          {
            IndicadorFacturacion: '4',
            CantidadItem: '1',
            PrecioUnitarioItem: '2925.00',
            MontoItem: '2925.00',
            OtraMonedaDetalle: { PrecioOtraMoneda: '50.00', MontoItemOtraMoneda: '50.00' },
          },
        ],
      }),
    );
    assert.deepEqual(findings, []);
    assert.equal(totales.MontoTotal, '16731.00');
    assert.deepEqual(otraMoneda, {
      TipoMoneda: 'USD',
      TipoCambio: '58.5',
      MontoGravadoTotalOtraMoneda: '200.00',
      MontoGravado1OtraMoneda: '200.00',
      MontoExentoOtraMoneda: '50.00',
      TotalITBISOtraMoneda: '36.00',
      TotalITBIS1OtraMoneda: '36.00',
      MontoTotalOtraMoneda: '286.00',
    });
    assert.deepEqual(
      lineas.map((l) => l.MontoItemOtraMoneda),
      ['200.00', '50.00'],
    );
  });

  it('converts DOP amounts by TipoCambio when the lines carry no other-currency detail, additional taxes included', () => {
    const { otraMoneda } = computeTotals(
      ecf({
        otraMoneda: { TipoMoneda: 'EUR', TipoCambio: '57' },
        items: [line('1', '1000.00', { TablaImpuestoAdicional: taxCodes('002') })],
      }),
    );
    // 1000 / 57 = 17.5438…; ITBIS 17.54 × 0.18 = 3.1572; CDT 20.00 / 57 = 0.3508…
    assert.ok(otraMoneda);
    assert.equal(otraMoneda.MontoGravado1OtraMoneda, '17.54');
    assert.equal(otraMoneda.TotalITBIS1OtraMoneda, '3.16');
    assert.deepEqual(otraMoneda.ImpuestosAdicionalesOtraMoneda?.ImpuestoAdicionalOtraMoneda, [
      {
        TipoImpuestoOtraMoneda: '002',
        TasaImpuestoAdicionalOtraMoneda: '2',
        OtrosImpuestosAdicionalesOtraMoneda: '0.35',
      },
    ]);
    assert.equal(otraMoneda.MontoTotalOtraMoneda, '21.05');
  });
});

describe('computeTotals: client totals', () => {
  it('keeps what the client sent and completes the rest around it', () => {
    const totales = totalsOf(ecf({ items: [line('1', '100.00')], totales: { MontoGravadoI1: '100.01' } }));
    assert.deepEqual(totales, {
      MontoGravadoTotal: '100.01',
      MontoGravadoI1: '100.01',
      ITBIS1: '18',
      TotalITBIS: '18.00',
      TotalITBIS1: '18.00',
      MontoTotal: '118.01',
    });
  });

  it('checks MontoPeriodo = MontoTotal + MontoNoFacturable when the client sends it', () => {
    const items = [line('0', '75.00'), line('1', '100.00')];
    assert.equal(totalsOf(ecf({ items, totales: { MontoPeriodo: '193.00' } })).MontoPeriodo, '193.00');
    const { findings } = computeTotals(ecf({ items, totales: { MontoPeriodo: '200.00' } }));
    assert.deepEqual(
      findings.map((f) => [f.pointer, f.code, f.severity]),
      [['/Encabezado/Totales/MontoPeriodo', 'totals_outside_tolerance', 'warning']],
    );
  });

  it('computes ValorPagar from an advance payment and a previous balance', () => {
    const totales = totalsOf(
      ecf({ items: [line('4', '1000.00')], totales: { MontoAvancePago: '300.00', SaldoAnterior: '-50.00' } }),
    );
    assert.equal(totales.ValorPagar, '650.00');
  });
});

describe('computeTotals: input shapes', () => {
  it('reads a single Item object and JSON numbers as an XML parser would give them', () => {
    const { totales, findings } = computeTotals({
      Encabezado: { IdDoc: { TipoeCF: 31 } },
      DetallesItems: {
        Item: { IndicadorFacturacion: 1, CantidadItem: 24, PrecioUnitarioItem: 25, DescuentoMonto: 60 },
      },
    });
    assert.deepEqual(findings, []);
    assert.equal(totales.MontoTotal, '637.20');
  });

  it('leaves out of the result a given total it cannot read, computing it instead', () => {
    const { totales } = computeTotals(ecf({ items: [line('4', '1.00')], totales: { MontoTotal: '1.000' } }));
    assert.equal(totales.MontoTotal, '1.00');
  });

  it('sums percepción apart from retención', () => {
    const items = [
      line('1', '100.00', { Retencion: { IndicadorAgenteRetencionoPercepcion: '2', MontoITBISRetenido: '5.00' } }),
    ];
    const totales = totalsOf(ecf({ items }));
    assert.equal(totales.TotalITBISPercepcion, '5.00');
    assert.equal(totales.TotalITBISRetenido, undefined);
  });
});
