import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ecfDocuments } from '../../test/support/ecf-documents.js';
import type { EcfType } from './model/index.js';
import { validateEcfDocument } from './validate-ecf.js';

const now = new Date('2026-12-31T12:00:00Z');
const clone = <T>(value: T): T => structuredClone(value);

describe('validateEcfDocument', () => {
  for (const type of Object.keys(ecfDocuments) as EcfType[]) {
    it(`accepts the realistic type ${type} document with no error`, () => {
      const result = validateEcfDocument(ecfDocuments[type], { now });
      assert.deepEqual(
        result.findings.filter((finding) => finding.severity === 'error'),
        [],
      );
      assert.equal(result.acceptable, true);
    });
  }

  it('stops at the structure when it is broken, naming the pointer', () => {
    const document = clone(ecfDocuments['31']) as { Encabezado: { Emisor: Record<string, unknown> } };
    document.Encabezado.Emisor.Inventado = 'x';
    const result = validateEcfDocument(document, { now });
    assert.equal(result.acceptable, false);
    assert.deepEqual(
      result.findings.map((finding) => [finding.code, finding.pointer]),
      [['unknown_element', '/Encabezado/Emisor/Inventado']],
    );
  });

  it('reports a cross-field rule on a sound structure', () => {
    const document = clone(ecfDocuments['31']) as { Encabezado: { Emisor: Record<string, unknown> } };
    document.Encabezado.Emisor.FechaEmision = '01-01-2027';
    const result = validateEcfDocument(document, { now });
    assert.equal(result.acceptable, false);
    assert.ok(
      result.findings.some(
        (finding) => finding.code === 'date_in_future' && finding.pointer === '/Encabezado/Emisor/FechaEmision',
      ),
    );
  });

  it('accepts totals beyond tolerance with a warning, as DGII answers Aceptado Condicional', () => {
    const document = clone(ecfDocuments['31']) as { Encabezado: { Totales: Record<string, unknown> } };
    const given = String(document.Encabezado.Totales.MontoTotal);
    document.Encabezado.Totales.MontoTotal = (Number(given) + 50).toFixed(2);
    const result = validateEcfDocument(document, { now });
    assert.equal(result.acceptable, true);
    assert.ok(
      result.findings.some(
        (finding) =>
          finding.severity === 'warning' &&
          finding.code === 'totals_outside_tolerance' &&
          finding.pointer === '/Encabezado/Totales/MontoTotal',
      ),
    );
  });

  for (const [name, document, code] of [
    ['a non-object', 'hola', 'not_an_object'],
    ['an unknown type', { Encabezado: { IdDoc: { TipoeCF: '35' } } }, 'unknown_type'],
  ] as const) {
    it(`refuses ${name}`, () => {
      assert.deepEqual(
        validateEcfDocument(document, { now }).findings.map((finding) => finding.code),
        [code],
      );
    });
  }
});
