// PrintableDocument objects built directly, for the RI layout and renderer tests that need shapes a fixture e-CF
// does not have (hundreds of lines, a declared Paginacion, legends): amounts computed exactly, as the XML would
// state them.
import Big from 'big.js';
import { timbreUrl } from '../../src/fiscal/timbre-url.js';
import { contingencyLegend, deferredSendingLegend, type PrintableDocument } from '../../src/modules/printing/index.js';

type Line = PrintableDocument['lines'][number];
type Amount = PrintableDocument['totalLines'][number];

/**
 * Line n: every fifth exempt, the others taxed at 18 %; "Artículo 007" and so on, so names sort and never repeat.
 * The unit price is 100 + n + 0.25, plus `cents`.
 */
export function printableLine(number: number, name = `Artículo ${String(number).padStart(3, '0')}`, cents = 0): Line {
  const exempt = number % 5 === 0;
  const quantity = (number % 3) + 1;
  const unitPrice = new Big(100 + number).plus('0.25').plus(new Big(cents).div(100));
  const amount = unitPrice.times(quantity);
  return {
    lineNumber: String(number),
    billingIndicator: exempt ? '4' : '1',
    exempt,
    mark: exempt ? 'E' : null,
    name,
    description: null,
    quantity: String(quantity),
    unit: { code: '43', name: 'Unidad' },
    unitPrice: unitPrice.toFixed(2),
    discount: null,
    surcharge: null,
    amount: amount.toFixed(2),
    itbis: exempt ? null : amount.times('0.18').round(2, Big.roundHalfUp).toFixed(2),
  };
}

function sum(lines: readonly Line[], pick: (line: Line) => string | null): Big {
  return lines.reduce((total, line) => total.plus(pick(line) ?? '0'), new Big(0));
}

function totalsOf(lines: readonly Line[]): Amount[] {
  const taxed = sum(lines, (line) => (line.exempt ? null : line.amount));
  const exempt = sum(lines, (line) => (line.exempt ? line.amount : null));
  const itbis = sum(lines, (line) => line.itbis);
  const rows: Amount[] = [];
  if (taxed.gt(0)) rows.push({ code: 'MontoGravadoTotal', label: 'Subtotal Gravado', amount: taxed.toFixed(2) });
  if (exempt.gt(0)) rows.push({ code: 'MontoExento', label: 'Subtotal Exento', amount: exempt.toFixed(2) });
  if (taxed.gt(0)) rows.push({ code: 'TotalITBIS', label: 'Total ITBIS', amount: itbis.toFixed(2) });
  rows.push({ code: 'MontoTotal', label: 'Total', amount: taxed.plus(exempt).plus(itbis).toFixed(2) });
  return rows;
}

export interface PrintableOptions {
  lines?: number;
  sequenceExpiry?: string | null;
  legends?: boolean;
  names?: (number: number) => string;
  /**
   * Variant n (0 by default) has the e-NCF 42 + n and every unit price n cents higher: for n > 0 another document,
   * its own amounts and QR, for benches that must miss the printer's cache.
   */
  variant?: number;
}

/** A type 31 with `lines` lines (3 by default), taxed and exempt. */
export function printableInvoice(options: PrintableOptions = {}): PrintableDocument {
  const count = options.lines ?? 3;
  const variant = options.variant ?? 0;
  const lines = Array.from({ length: count }, (_, index) =>
    printableLine(index + 1, options.names?.(index + 1), variant),
  );
  const totalLines = totalsOf(lines);
  const montoTotal = totalLines[totalLines.length - 1]!.amount;
  const sequenceExpiry = options.sequenceExpiry === undefined ? '31-12-2027' : options.sequenceExpiry;
  const signatureDate = '15-11-2026 10:31:07';
  const securityCode = 'S/DQd+';
  const eNCF = `E31${String(42 + variant).padStart(10, '0')}`;
  return {
    id: 'doc_printable',
    status: 'accepted',
    ecfType: '31',
    typeName: 'Factura de Crédito Fiscal Electrónica',
    eNCF,
    sequenceExpiry,
    issueDate: '15-11-2026',
    issuer: {
      rnc: '131987656',
      legalName: 'Ferretería Ñoño & Asociados, S.R.L.',
      tradeName: 'Ferretería "El Martillo"',
      branch: null,
      address: 'Av. 27 de Febrero #123, Ensanche Piantini',
      municipality: { code: '010101', name: 'SANTO DOMINGO DE GUZMÁN (D. M.).' },
      province: { code: '010000', name: 'DISTRITO NACIONAL' },
    },
    buyer: { rnc: '130123454', foreignId: null, legalName: 'Distribuidora Peña & Hijos', address: null },
    reference: null,
    lines,
    totals: Object.fromEntries(totalLines.map((row) => [row.code, row.amount])),
    totalLines,
    pagination: null,
    deferredSending: options.legends === true,
    contingency: options.legends === true,
    currency: null,
    securityCode,
    signatureDate,
    qr: {
      url: timbreUrl('CERT', {
        TipoeCF: '31',
        RNCEmisor: '131987656',
        RNCComprador: '130123454',
        eNCF,
        FechaEmision: '15-11-2026',
        MontoTotal: montoTotal,
        FechaHoraFirma: signatureDate,
        CodigoSeguridad: securityCode,
      }),
      consumerSummary: false,
    },
    legends:
      options.legends === true
        ? [
            { code: 'deferred_sending', text: deferredSendingLegend },
            { code: 'contingency', text: contingencyLegend },
          ]
        : [],
    notices: [],
  };
}

/**
 * The document with a Paginacion putting `sizes[k]` lines on page k, each page's subtotals as the XML states them
 * (distinctive amounts: the page's taxed sum plus 0.01 × page number, so a test can tell them from derived ones).
 */
export function withPagination(printable: PrintableDocument, sizes: readonly number[]): PrintableDocument {
  let next = 1;
  const pages = sizes.map((size, index) => {
    const fromLine = next;
    const toLine = next + size - 1;
    next = toLine + 1;
    const onPage = printable.lines.filter(
      (line) => Number(line.lineNumber) >= fromLine && Number(line.lineNumber) <= toLine,
    );
    return {
      number: index + 1,
      fromLine,
      toLine,
      subtotals: [
        {
          code: 'SubtotalMontoGravadoPagina',
          label: 'Subtotal Gravado Página',
          amount: sum(onPage, (line) => (line.exempt ? null : line.amount))
            .plus(new Big(index + 1).div(100))
            .toFixed(2),
        },
        {
          code: 'MontoSubtotalPagina',
          label: 'Monto Total Página',
          amount: sum(onPage, (line) => line.amount).toFixed(2),
        },
      ],
    };
  });
  return { ...printable, pagination: { totalPages: pages.length, pages } };
}
