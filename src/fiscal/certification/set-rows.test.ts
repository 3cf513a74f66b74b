import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHeader, resolveHeader, sheetHeaders } from './set-columns.js';
import { caseOfRow, cellsOfCase, readHeaderRow, type Json } from './set-rows.js';

const invoice: Json = {
  Encabezado: {
    Version: '1.0',
    IdDoc: {
      TipoeCF: '31',
      eNCF: 'E310000000001',
      FechaVencimientoSecuencia: '31-12-2027',
      TipoIngresos: '01',
      TipoPago: '1',
      TablaFormasPago: {
        FormaDePago: [
          { FormaPago: '1', MontoPago: '1180.00' },
          { FormaPago: '2', MontoPago: '0.50' },
        ],
      },
    },
    Emisor: {
      RNCEmisor: '131880681',
      RazonSocialEmisor: 'DOCUMENTOS ELECTRONICOS DE 02',
      TablaTelefonoEmisor: { TelefonoEmisor: ['809-472-7676', '809-491-1918'] },
      DireccionEmisor: 'AVE. ISABEL AGUIAR NO. 269',
      FechaEmision: '01-04-2020',
    },
    Comprador: { RNCComprador: '131880681', RazonSocialComprador: ' Espacios  y acentos: Peña & Hijos ' },
    Totales: { MontoGravadoTotal: '1000.00', MontoTotal: '1180.00' },
  },
  DetallesItems: {
    Item: [
      {
        NumeroLinea: '1',
        TablaCodigosItem: {
          CodigosItem: [
            { TipoCodigo: 'EAN', CodigoItem: '123' },
            { TipoCodigo: 'INT', CodigoItem: 'A-7' },
          ],
        },
        NombreItem: 'Martillo',
        MontoItem: '1000',
      },
      {
        NumeroLinea: '2',
        NombreItem: 'Clavos',
        TablaImpuestoAdicional: { ImpuestoAdicional: [{ TipoImpuesto: '006' }] },
        MontoItem: '0.5000',
      },
    ],
  },
  DescuentosORecargos: { DescuentoORecargo: [{ NumeroLinea: '1', TipoAjuste: 'D', MontoDescuentooRecargo: '10.00' }] },
};

function rowOf(headers: readonly string[], cells: Map<string, string>): string[] {
  return headers.map((header) => cells.get(header) ?? '#e');
}

describe('the set columns', () => {
  it('names leaves as DGII does, indices per repeated element', () => {
    const headers = sheetHeaders('ECF');
    for (const expected of [
      'CasoPrueba',
      'ENCF',
      'FormaPago[7]',
      'TelefonoEmisor[3]',
      'NombreItem[62]',
      'CodigoItem[62][5]',
      'TipoImpuesto[4]',
      'TipoImpuesto[1][2]',
      'NumeroLineaDoR[2]',
      'MontosubRecargo[1][5]',
      'NCFModificado',
    ]) {
      assert.ok(headers.includes(expected), `${expected} is a header`);
    }
    assert.ok(!headers.includes('NombreItem[63]'));
    assert.ok(!headers.includes('eNCF'));
    assert.equal(new Set(headers).size, headers.length, 'no header twice');
    // DGII's sheet has 5,215 columns; ours are within a few of it (the exact list of DGII's is not public).
    assert.ok(headers.length > 5000 && headers.length < 5600, `${String(headers.length)} columns`);
    assert.deepEqual(sheetHeaders('RFCE').length, 56);
  });

  it("reads a header by depth: the item's TipoImpuesto[i][j] and Totales' TipoImpuesto[i]", () => {
    assert.equal(
      resolveHeader('ECF', 'TipoImpuesto[2]')
        ?.slot.segments.map((s) => s.name)
        .join('/'),
      'Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional/TipoImpuesto',
    );
    assert.equal(
      resolveHeader('ECF', 'TipoImpuesto[1][2]')
        ?.slot.segments.map((s) => s.name)
        .join('/'),
      'DetallesItems/Item/TablaImpuestoAdicional/ImpuestoAdicional/TipoImpuesto',
    );
    assert.equal(resolveHeader('ECF', 'NumeroContenedor ')?.slot.base, 'NumeroContenedor');
    assert.deepEqual(resolveHeader('ECF', 'eNCF')?.slot.base, 'ENCF', 'the XSD spelling is read too');
    assert.deepEqual(resolveHeader('ECF', 'NumeroSubTotal')?.indices, [1], 'a lone table unindexed takes index 1');
    assert.equal(resolveHeader('ECF', 'SubtotalImpuestoAdicionalPaginaTabla[1]'), undefined);
    assert.equal(parseHeader('Nombre[0]'), undefined);
  });

  it('turns a payload into cells and the row back into the same payload, verbatim', () => {
    const headers = sheetHeaders('ECF');
    const cells = cellsOfCase('ECF', invoice);
    assert.equal(cells.get('ENCF'), 'E310000000001');
    assert.equal(cells.get('CodigoItem[1][2]'), 'A-7');
    assert.equal(cells.get('NumeroLineaDoR[1]'), '1');
    assert.equal(cells.get('TelefonoEmisor[2]'), '809-491-1918');
    const header = readHeaderRow('ECF', headers);
    assert.ok(header.ok);
    const row = rowOf(headers, new Map([...cells, ['CasoPrueba', '131880681E310000000001']]));
    const read = caseOfRow(header.columns, row);
    assert.ok(read !== undefined);
    assert.deepEqual(read.findings, []);
    assert.equal(read.case.caseKey, '131880681E310000000001');
    assert.equal(read.case.ecfType, '31');
    assert.deepEqual(read.case.payload, invoice);
  });

  it('reports a value in a column that is no field, and skips rows with nothing', () => {
    const headers = ['CasoPrueba', 'TipoeCF', 'Inventado[1]', 'SubtotalImpuestoAdicionalPaginaTabla[1]'];
    const header = readHeaderRow('ECF', headers);
    assert.ok(header.ok);
    const read = caseOfRow(header.columns, ['K', '31', 'x', '#e']);
    assert.equal(read?.findings.length, 1);
    assert.match(read.findings[0]!.message, /Inventado\[1\]/);
    assert.equal(caseOfRow(header.columns, ['#e', '', undefined, '#e']), undefined);
  });

  it("refuses a sheet that is not a set's", () => {
    const noKey = readHeaderRow('ECF', ['Nombre', 'Monto']);
    assert.ok(!noKey.ok);
    assert.match(noKey.message, /CasoPrueba/);
    assert.ok(!readHeaderRow('RFCE', ['CasoPrueba', 'Nada']).ok);
    assert.throws(() => readHeaderRow('ECF', ['CasoPrueba', 'ENCF', 'eNCF']), /two columns/);
  });
});
