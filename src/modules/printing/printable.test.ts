import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EcfObject } from '../../fiscal/build/index.js';
import { contingencyLegend, deferredSendingLegend, printableOf, type PrintableContext } from './printable.js';

const context: PrintableContext = {
  id: 'doc_1',
  status: 'accepted',
  environment: 'CERT',
  securityCode: 'gG/X+Y',
  acceptedByDgii: true,
  contingency: false,
};

function invoice(idDoc: EcfObject = {}, extra: EcfObject = {}): EcfObject {
  return {
    Encabezado: {
      IdDoc: { TipoeCF: '31', eNCF: 'E310000000001', FechaVencimientoSecuencia: '31-12-2027', ...idDoc },
      Emisor: { RNCEmisor: '131987656', RazonSocialEmisor: 'Emisor SRL', FechaEmision: '15-11-2026' },
      Comprador: { RNCComprador: '130123459', RazonSocialComprador: 'Cliente SRL' },
      Totales: {
        MontoGravadoTotal: '1100.00',
        MontoGravadoI1: '1000.00',
        MontoGravadoI2: '100.00',
        MontoExento: '50.00',
        ITBIS1: '18',
        ITBIS2: '16',
        TotalITBIS: '196.00',
        MontoTotal: '1346.00',
        TotalITBISRetenido: '10.00',
      },
    },
    DetallesItems: {
      Item: [
        { NumeroLinea: '1', IndicadorFacturacion: '1', NombreItem: 'A', CantidadItem: '1', MontoItem: '1000.00' },
        { NumeroLinea: '2', IndicadorFacturacion: '2', NombreItem: 'B', CantidadItem: '1', MontoItem: '100.00' },
        { NumeroLinea: '3', IndicadorFacturacion: '4', NombreItem: 'C', CantidadItem: '1', MontoItem: '50.00' },
      ],
    },
    FechaHoraFirma: '15-11-2026 10:31:07',
    ...extra,
  };
}

describe('printable data', () => {
  it("computes each line's ITBIS at its indicator's rate, and leaves exempt lines without", () => {
    const printable = printableOf(invoice(), context);
    assert.deepEqual(
      printable.lines.map((line) => [line.itbis, line.mark]),
      [
        ['180.00', null],
        ['16.00', null],
        [null, 'E'],
      ],
    );
  });

  it('takes the ITBIS out of prices that include it (IndicadorMontoGravado 1), rounding half up', () => {
    const printable = printableOf(invoice({ IndicadorMontoGravado: '1' }), context);
    // 1000 - 1000/1.18 = 152.542…; 100 - 100/1.16 = 13.793…
    assert.deepEqual(
      printable.lines.map((line) => line.itbis),
      ['152.54', '13.79', null],
    );
  });

  it('lists the totals box in print order with DGII labels, retentions left out', () => {
    assert.deepEqual(printableOf(invoice(), context).totalLines, [
      { code: 'MontoGravadoTotal', label: 'Subtotal Gravado', amount: '1100.00' },
      { code: 'MontoExento', label: 'Subtotal Exento', amount: '50.00' },
      { code: 'TotalITBIS', label: 'Total ITBIS', amount: '196.00' },
      { code: 'MontoTotal', label: 'Total', amount: '1346.00' },
    ]);
  });

  it("reads Paginacion's pages and subtotals, the ISC one level down", () => {
    const printable = printableOf(
      invoice(
        { TotalPaginas: '2' },
        {
          Paginacion: {
            Pagina: [
              {
                PaginaNo: '1',
                NoLineaDesde: '1',
                NoLineaHasta: '2',
                SubtotalMontoGravadoPagina: '1100.00',
                SubtotalItbisPagina: '196.00',
                SubtotalImpuestoAdicional: { SubtotalImpuestoSelectivoConsumoEspecificoPagina: '12.00' },
                MontoSubtotalPagina: '1308.00',
              },
              { PaginaNo: '2', NoLineaDesde: '3', NoLineaHasta: '3', SubtotalExentoPagina: '50.00' },
            ],
          },
        },
      ),
      context,
    );
    assert.deepEqual(printable.pagination, {
      totalPages: 2,
      pages: [
        {
          number: 1,
          fromLine: 1,
          toLine: 2,
          subtotals: [
            { code: 'SubtotalMontoGravadoPagina', label: 'Subtotal Gravado Página', amount: '1100.00' },
            { code: 'SubtotalItbisPagina', label: 'Subtotal ITBIS Página', amount: '196.00' },
            {
              code: 'SubtotalImpuestoSelectivoConsumoEspecificoPagina',
              label: 'Subtotal ISC Página',
              amount: '12.00',
            },
            { code: 'MontoSubtotalPagina', label: 'Monto Total Página', amount: '1308.00' },
          ],
        },
        {
          number: 2,
          fromLine: 3,
          toLine: 3,
          subtotals: [{ code: 'SubtotalExentoPagina', label: 'Subtotal Exento Página', amount: '50.00' }],
        },
      ],
    });
    assert.equal(printableOf(invoice(), context).pagination, null);
  });

  it('prints the legal title and the legends DGII words, from the XML and the recorded facts', () => {
    const plain = printableOf(invoice(), context);
    assert.equal(plain.typeName, 'Factura de Crédito Fiscal Electrónica');
    assert.deepEqual(
      plain.legends.filter((legend) => legend.code === 'deferred_sending' || legend.code === 'contingency'),
      [],
    );
    const deferred = printableOf(invoice({ IndicadorEnvioDiferido: '1' }), { ...context, contingency: true });
    assert.equal(deferred.deferredSending, true);
    assert.equal(deferred.contingency, true);
    assert.deepEqual(
      deferred.legends.filter((legend) => legend.code === 'deferred_sending' || legend.code === 'contingency'),
      [
        { code: 'deferred_sending', text: deferredSendingLegend },
        { code: 'contingency', text: contingencyLegend },
      ],
    );
    const abroad = printableOf(invoice({ TipoeCF: '47', eNCF: 'E470000000001' }), context);
    assert.equal(abroad.typeName, 'Comprobante Electrónico para Pagos al Exterior');
  });

  it('says the RI cannot support a fiscal credit before DGII accepts it, and nothing when that is not ours to know', () => {
    assert.deepEqual(
      printableOf(invoice(), { ...context, acceptedByDgii: false }).notices.map((notice) => notice.code),
      ['not_accepted_yet'],
    );
    assert.deepEqual(printableOf(invoice(), { ...context, acceptedByDgii: null }).notices, []);
    assert.deepEqual(printableOf(invoice(), context).notices, []);
  });
});
