// ARECF, ACECF and ANECF as DGII receives them: valid against the official XSDs (our schema set and the real
// xmllint), canonical as written, and signed so that xmlsec1 verifies them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertDeliverable } from '../../../test/support/deliverable.js';
import { buildAcecf, type Acecf } from './acecf.js';
import { buildAnecf } from './anecf.js';
import { buildArecf, readArecf } from './arecf.js';

describe('ARECF', () => {
  it('writes a receipt (Estado 0) DGII accepts, in XSD order', (t) => {
    const xml = buildArecf({
      RNCEmisor: '131880681',
      RNCComprador: '130862346',
      eNCF: 'E310000000001',
      Estado: '0',
      FechaHoraAcuseRecibo: '21-11-2026 12:00:00',
    });
    assert.equal(
      xml,
      '<?xml version="1.0" encoding="utf-8"?><ARECF xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><DetalleAcusedeRecibo><Version>1.0</Version><RNCEmisor>131880681</RNCEmisor><RNCComprador>130862346</RNCComprador><eNCF>E310000000001</eNCF><Estado>0</Estado><FechaHoraAcuseRecibo>21-11-2026 12:00:00</FechaHoraAcuseRecibo></DetalleAcusedeRecibo></ARECF>',
    );
    assertDeliverable(t, 'ARECF', xml);
  });

  for (const reason of ['1', '2', '3', '4'] as const) {
    it(`writes a not-received answer with reason ${reason}`, (t) => {
      const xml = buildArecf({
        RNCEmisor: '131880681',
        RNCComprador: '130862346',
        eNCF: 'E310000000001',
        Estado: '1',
        CodigoMotivoNoRecibido: reason,
        FechaHoraAcuseRecibo: '21-11-2026 12:00:00',
      });
      assert.match(xml, new RegExp(`<Estado>1</Estado><CodigoMotivoNoRecibido>${reason}</CodigoMotivoNoRecibido>`));
      assertDeliverable(t, 'ARECF', xml);
    });
  }

  it('reads back only the combinations DGII allows', () => {
    const base = {
      RNCEmisor: '131880681',
      RNCComprador: '130862346',
      eNCF: 'E310000000001',
      FechaHoraAcuseRecibo: '21-11-2026 12:00:00',
    };
    assert.deepEqual(readArecf({ ...base, Estado: '0' }), { ok: true, value: { ...base, Estado: '0' } });
    assert.deepEqual(readArecf({ ...base, Estado: '1', CodigoMotivoNoRecibido: '3' }), {
      ok: true,
      value: { ...base, Estado: '1', CodigoMotivoNoRecibido: '3' },
    });
    const noReason = readArecf({ ...base, Estado: '1' });
    assert.deepEqual(noReason.ok ? [] : noReason.findings.map((f) => f.code), ['reason_required']);
    const reasonOnReceived = readArecf({ ...base, Estado: '0', CodigoMotivoNoRecibido: '2' });
    assert.deepEqual(reasonOnReceived.ok ? [] : reasonOnReceived.findings.map((f) => f.code), ['reason_not_allowed']);
  });
});

describe('ACECF', () => {
  const approval: Acecf = {
    RNCEmisor: '131880681',
    eNCF: 'E310000000001',
    FechaEmision: '20-11-2026',
    MontoTotal: '35400',
    RNCComprador: '130862346',
    Estado: '1',
    FechaHoraAprobacionComercial: '21-11-2026 12:00:00',
  };

  it('writes an approval with MontoTotal in two decimals, as the XSD demands', (t) => {
    const built = buildAcecf(approval);
    assert.ok(built.ok);
    assert.match(
      built.xml,
      /<MontoTotal>35400\.00<\/MontoTotal><RNCComprador>130862346<\/RNCComprador><Estado>1<\/Estado><FechaHoraAprobacionComercial>/,
    );
    assertDeliverable(t, 'ACECF', built.xml);
  });

  it('writes a rejection with its reason, escaped once', (t) => {
    const built = buildAcecf({ ...approval, Estado: '2', DetalleMotivoRechazo: 'Precio & cantidad <no> coinciden' });
    assert.ok(built.ok);
    assert.match(built.xml, /<DetalleMotivoRechazo>Precio &amp; cantidad &lt;no&gt; coinciden<\/DetalleMotivoRechazo>/);
    assertDeliverable(t, 'ACECF', built.xml);
  });

  for (const [name, change, code] of [
    ['a rejection without reason', { Estado: '2', DetalleMotivoRechazo: '  ' }, 'rejection_reason_required'],
    ['a reason of 251 characters', { Estado: '2', DetalleMotivoRechazo: 'x'.repeat(251) }, 'too_long'],
    ['an amount with three decimals', { MontoTotal: '10.001' }, 'amount_format'],
    ['a negative amount', { MontoTotal: '-1.00' }, 'amount_format'],
  ] as const) {
    it(`refuses ${name}`, () => {
      const built = buildAcecf({ ...approval, ...change });
      assert.deepEqual(built.ok ? [] : built.findings.map((finding) => finding.code), [code]);
    });
  }
});

describe('ANECF', () => {
  it('counts each range, each line and the whole, and DGII accepts it', (t) => {
    const built = buildAnecf({
      RncEmisor: '131880681',
      FechaHoraAnulacioneNCF: '21-11-2026 12:00:00',
      lines: [
        {
          TipoeCF: '31',
          ranges: [
            { SecuenciaeNCFDesde: 'E310000000010', SecuenciaeNCFHasta: 'E310000000019' },
            { SecuenciaeNCFDesde: 'E310000000050', SecuenciaeNCFHasta: 'E310000000050' },
          ],
        },
        { TipoeCF: '32', ranges: [{ SecuenciaeNCFDesde: 'E320000000100', SecuenciaeNCFHasta: 'E320000000199' }] },
      ],
    });
    assert.ok(built.ok);
    assert.equal(built.total, 111n);
    assert.match(
      built.xml,
      /<Encabezado><Version>1\.0<\/Version><RncEmisor>131880681<\/RncEmisor><CantidadeNCFAnulados>111<\/CantidadeNCFAnulados>/,
    );
    assert.match(
      built.xml,
      /<NoLinea>1<\/NoLinea><TipoeCF>31<\/TipoeCF>.*<CantidadeNCFAnulados>11<\/CantidadeNCFAnulados><\/Anulacion>/,
    );
    assert.match(
      built.xml,
      /<NoLinea>2<\/NoLinea><TipoeCF>32<\/TipoeCF>.*<CantidadeNCFAnulados>100<\/CantidadeNCFAnulados><\/Anulacion>/,
    );
    assertDeliverable(t, 'ANECF', built.xml);
  });

  for (const [name, lines, code] of [
    [
      'a descending range',
      [{ TipoeCF: '31', ranges: [{ SecuenciaeNCFDesde: 'E310000000019', SecuenciaeNCFHasta: 'E310000000010' }] }],
      'range_invalid',
    ],
    [
      'a range of another type',
      [{ TipoeCF: '31', ranges: [{ SecuenciaeNCFDesde: 'E320000000001', SecuenciaeNCFHasta: 'E320000000002' }] }],
      'range_invalid',
    ],
    [
      'two lines of one type',
      [
        { TipoeCF: '31', ranges: [{ SecuenciaeNCFDesde: 'E310000000001', SecuenciaeNCFHasta: 'E310000000001' }] },
        { TipoeCF: '31', ranges: [{ SecuenciaeNCFDesde: 'E310000000002', SecuenciaeNCFHasta: 'E310000000002' }] },
      ],
      'duplicate_type',
    ],
    ['no line at all', [], 'line_count'],
    [
      'a type that does not exist',
      [{ TipoeCF: '35', ranges: [{ SecuenciaeNCFDesde: 'E350000000001', SecuenciaeNCFHasta: 'E350000000001' }] }],
      'unknown_type',
    ],
  ] as const) {
    it(`refuses ${name}`, () => {
      const built = buildAnecf({
        RncEmisor: '131880681',
        FechaHoraAnulacioneNCF: '21-11-2026 12:00:00',
        lines: lines.map((line) => ({ TipoeCF: line.TipoeCF, ranges: [...line.ranges] })),
      });
      assert.equal(built.ok ? 'built' : built.findings[0]?.code, code);
    });
  }
});
