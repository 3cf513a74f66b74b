import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ecfDocuments, ownedFieldsFor } from '../../../test/support/ecf-documents.js';
import { requireTool } from '../../../test/support/tools.js';
import { validateWithOfficialXsd } from '../../../test/support/xmllint.js';
import { ecfTypes } from '../model/ecf-model-types.js';
import { parseEcf } from '../parse/parse-ecf.js';
import { buildEcf, normaliseEcf, readEcfValues } from './build-ecf.js';
import type { BuildResult, NormaliseResult } from './build-ecf.js';

/**
 * The XSD requires one element in the signature slot (xs:any after FechaHoraFirma); signing is another
 * component's job, so these tests put a stand-in there.
 */
function withStubSignature(xml: string): string {
  return xml.replace(
    /<\/ECF>$/,
    '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo>stub</SignedInfo></Signature></ECF>',
  );
}

function built(result: BuildResult): Extract<BuildResult, { ok: true }> {
  if (!result.ok) assert.fail(`expected a document, got findings: ${JSON.stringify(result.findings, null, 2)}`);
  return result;
}

function normalised(result: NormaliseResult): Extract<NormaliseResult, { ok: true }> {
  if (!result.ok) assert.fail(`expected a document, got findings: ${JSON.stringify(result.findings, null, 2)}`);
  return result;
}

describe('buildEcf', () => {
  for (const type of ecfTypes) {
    describe(`e-CF ${type}`, () => {
      it('builds a document without findings', () => {
        const result = built(buildEcf(ecfDocuments[type], ownedFieldsFor(type)));
        assert.deepEqual(result.warnings, []);
        assert.match(result.xml, /^<\?xml version="1\.0" encoding="utf-8"\?><ECF><Encabezado><Version>1\.0<\/Version>/);
        assert.doesNotMatch(result.xml, /<(\w+)><\/\1>|\/>|>\s+</);
      });

      it(`is valid against the official e-CF-${type}.xsd (xmllint)`, (t) => {
        if (!requireTool(t, 'xmllint')) return;
        const { xml } = built(buildEcf(ecfDocuments[type], ownedFieldsFor(type)));
        const result = validateWithOfficialXsd(`e-CF-${type}.xsd`, withStubSignature(xml));
        assert.ok(result.valid, result.errors);
      });

      it('parses back into the document it wrote', () => {
        const { xml } = built(buildEcf(ecfDocuments[type], ownedFieldsFor(type)));
        const { document } = normalised(normaliseEcf(ecfDocuments[type], ownedFieldsFor(type)));
        assert.deepEqual(parseEcf(xml), { ok: true, document });
      });

      it('parses back the same document once a Signature follows FechaHoraFirma', () => {
        const { xml } = built(buildEcf(ecfDocuments[type], ownedFieldsFor(type)));
        const { document } = normalised(normaliseEcf(ecfDocuments[type], ownedFieldsFor(type)));
        assert.deepEqual(parseEcf(withStubSignature(xml)), { ok: true, document });
      });
    });
  }

  it("writes numbers as exact decimal strings with the field's decimals, and inserts the owned fields", () => {
    const { xml } = built(buildEcf(ecfDocuments['31'], ownedFieldsFor('31')));
    const { document } = normalised(normaliseEcf(ecfDocuments['31'], ownedFieldsFor('31')));
    const expectedIdDoc = {
      TipoeCF: '31',
      eNCF: 'E310000000042',
      FechaVencimientoSecuencia: '31-12-2027',
      IndicadorMontoGravado: '0',
      TipoIngresos: '01',
      TipoPago: '1',
      TablaFormasPago: { FormaDePago: [{ FormaPago: '1', MontoPago: '1430.00' }] },
    };
    assert.deepEqual((document['Encabezado'] as Record<string, unknown>)['IdDoc'], expectedIdDoc);
    assert.deepEqual((document['DetallesItems'] as { Item: Record<string, unknown>[] }).Item[0], {
      NumeroLinea: '1',
      IndicadorFacturacion: '1',
      NombreItem: 'Martillo de carpintero 16 oz',
      IndicadorBienoServicio: '1',
      CantidadItem: '2.00',
      UnidadMedida: '43',
      PrecioUnitarioItem: '500.0000',
      MontoItem: '1000.00',
    });
    assert.equal(document['FechaHoraFirma'], '15-11-2026 10:31:07');
    assert.ok(xml.includes('<MontoTotal>1430.00</MontoTotal>'));
    assert.ok(
      xml.includes('<RazonSocialComprador>Distribuidora Peña &lt;Prueba&gt; &amp; Hijos</RazonSocialComprador>'),
    );
    assert.ok(xml.endsWith('<FechaHoraFirma>15-11-2026 10:31:07</FechaHoraFirma></ECF>'));
  });

  it('leaves out FechaVencimientoSecuencia for the types without it (32, 34)', () => {
    const owned = { ...ownedFieldsFor('34'), fechaVencimientoSecuencia: '31-12-2027' };
    const { xml } = built(buildEcf(ecfDocuments['34'], owned));
    assert.doesNotMatch(xml, /FechaVencimientoSecuencia/);
  });

  it('never writes an empty element: empty strings, nulls, empty arrays and empty groups are omitted', () => {
    const base = ecfDocuments['43'];
    const encabezado = base['Encabezado'] as Record<string, unknown>;
    const document = {
      ...base,
      Encabezado: {
        ...encabezado,
        Emisor: {
          ...(encabezado['Emisor'] as object),
          Sucursal: '',
          WebSite: null,
          TablaTelefonoEmisor: { TelefonoEmisor: [] },
        },
      },
      Subtotales: {},
    };
    const { xml } = built(buildEcf(document, ownedFieldsFor('43')));
    assert.doesNotMatch(xml, /Sucursal|WebSite|TablaTelefonoEmisor|Subtotales/);
  });

  it('writes XSD order whatever order the keys come in, line after line with different keys', () => {
    const base = ecfDocuments['31'] as Record<string, unknown> & { DetallesItems: { Item: Record<string, unknown>[] } };
    const reversed = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reversed);
      if (typeof value !== 'object' || value === null) return value;
      return Object.fromEntries(
        Object.entries(value)
          .reverse()
          .map(([key, inner]) => [key, reversed(inner)]),
      );
    };
    const expected = built(buildEcf(base, ownedFieldsFor('31'))).xml;
    assert.equal(built(buildEcf(reversed(base) as Record<string, unknown>, ownedFieldsFor('31'))).xml, expected);
    // Lines whose keys alternate between two orders and sets (the reader caches the last order it saw per group).
    const item = base.DetallesItems.Item[0] as Record<string, unknown>;
    const lines = [1, 2, 3, 4].map((n) =>
      n % 2 === 0
        ? reversed({ ...item, NumeroLinea: String(n) })
        : { ...item, NumeroLinea: String(n), DescripcionItem: `línea ${String(n)}` },
    );
    const { xml } = built(buildEcf({ ...base, DetallesItems: { Item: lines } }, ownedFieldsFor('31')));
    const items = [...xml.matchAll(/<Item>(.*?)<\/Item>/g)].map((match) => match[1] ?? '');
    assert.equal(items.length, 4);
    for (const written of items) assert.match(written, /^<NumeroLinea>\d<\/NumeroLinea><IndicadorFacturacion>/);
    assert.match(
      items[0] ?? '',
      /<NombreItem>[^<]+<\/NombreItem><IndicadorBienoServicio>1<\/IndicadorBienoServicio><DescripcionItem>línea 1<\/DescripcionItem>/,
    );
    assert.doesNotMatch(items[1] ?? '', /DescripcionItem/);
    const misspelt = { ...base, DetallesItems: { Item: [item, { ...item, NumeroLinea: '2', Cantidad: '1' }] } };
    const result = buildEcf(misspelt, ownedFieldsFor('31'));
    assert.deepEqual(result.ok ? 'xml' : result.findings.map((f) => [f.pointer, f.code]), [
      ['/DetallesItems/Item/1/Cantidad', 'unknown_element'],
    ]);
  });

  it('answers findings, not XML, for a document with errors', () => {
    const document = { ...ecfDocuments['31'], Extra: 'x' };
    const result = buildEcf(document, ownedFieldsFor('31'));
    assert.deepEqual(result.ok ? 'xml' : result.findings.map((f) => [f.pointer, f.code]), [
      ['/Extra', 'unknown_element'],
    ]);
  });

  it('answers a finding when TipoeCF is missing or unknown', () => {
    const result = buildEcf({ Encabezado: { IdDoc: { TipoeCF: '99' } } }, ownedFieldsFor('31'));
    assert.deepEqual(result.ok ? [] : result.findings.map((f) => [f.pointer, f.code]), [
      ['/Encabezado/IdDoc/TipoeCF', 'not_in_catalogue'],
    ]);
  });

  it('reports an e-NCF of another type as a finding', () => {
    const result = buildEcf(ecfDocuments['31'], { ...ownedFieldsFor('31'), eNCF: 'E320000000042' });
    assert.deepEqual(result.ok ? [] : result.findings.map((f) => [f.pointer, f.code]), [
      ['/Encabezado/IdDoc/eNCF', 'invalid_owned_field'],
    ]);
  });

  it('reports a bad service-owned value as a finding', () => {
    const result = buildEcf(ecfDocuments['31'], { ...ownedFieldsFor('31'), fechaHoraFirma: '2026-11-15T10:31:07Z' });
    assert.deepEqual(result.ok ? [] : result.findings.map((f) => [f.pointer, f.code]), [
      ['/FechaHoraFirma', 'invalid_owned_field'],
    ]);
  });
});

describe('readEcfValues', () => {
  for (const type of ecfTypes) {
    it(`reads e-CF ${type} as normaliseEcf writes it, without the service-owned fields`, () => {
      type Values = Record<string, unknown> & { Encabezado: { IdDoc: Record<string, unknown> } };
      const written = structuredClone(
        normalised(normaliseEcf(ecfDocuments[type], ownedFieldsFor(type))).document,
      ) as Values;
      delete written['FechaHoraFirma'];
      delete written.Encabezado.IdDoc['eNCF'];
      delete written.Encabezado.IdDoc['FechaVencimientoSecuencia'];
      assert.deepEqual(readEcfValues(ecfDocuments[type]), written);
    });
  }

  it('reads what it can of a document with errors elsewhere, leaving out what it refuses', () => {
    const sent = structuredClone(ecfDocuments['31']) as { Encabezado: Record<string, Record<string, unknown>> };
    sent.Encabezado['Comprador'] = { RNCComprador: 'x' };
    const values = readEcfValues(sent) as { Encabezado: Record<string, Record<string, string>> };
    assert.equal(values.Encabezado['Totales']?.['MontoTotal'], '1430.00');
    assert.equal(values.Encabezado['Comprador'], undefined);
    assert.equal(readEcfValues({ Encabezado: { IdDoc: { TipoeCF: '99' } } }), undefined);
  });
});
