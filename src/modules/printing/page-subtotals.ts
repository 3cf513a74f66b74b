// Page subtotals when the XML has no Paginacion but the lines need more than one page (Informe Técnico fn. 56,
// model 1.7). They are derived from the printed lines, exactly (big.js: never floats for money); whether DGII
// accepts derived subtotals is an open point (research/printed-representation.md §4.5). With Paginacion the
// XML's own subtotals are printed instead.
import Big from 'big.js';
import type { PrintableDocument } from './printable.schema.js';
import { formatAmount } from '../../fiscal/totals/index.js';

type Line = PrintableDocument['lines'][number];
export type LabelledAmount = PrintableDocument['totalLines'][number];

function amountOf(text: string | null): Big {
  return text !== null && /^-?\d+(\.\d+)?$/.test(text) ? new Big(text) : new Big(0);
}

/** The subtotals a page of these lines prints; `document` decides which rows apply, so every page has the same. */
export function derivedPageSubtotals(lines: readonly Line[], document: readonly Line[]): LabelledAmount[] {
  let taxed = new Big(0);
  let exempt = new Big(0);
  let itbis = new Big(0);
  for (const line of lines) {
    const amount = amountOf(line.amount);
    if (line.exempt) exempt = exempt.plus(amount);
    else taxed = taxed.plus(amount);
    itbis = itbis.plus(amountOf(line.itbis));
  }
  const rows: LabelledAmount[] = [];
  const anyTaxed = document.some((line) => !line.exempt);
  if (anyTaxed)
    rows.push({ code: 'SubtotalMontoGravadoPagina', label: 'Subtotal Gravado Página', amount: formatAmount(taxed) });
  if (document.some((line) => line.exempt))
    rows.push({ code: 'SubtotalExentoPagina', label: 'Subtotal Exento Página', amount: formatAmount(exempt) });
  if (anyTaxed) rows.push({ code: 'SubtotalItbisPagina', label: 'Subtotal ITBIS Página', amount: formatAmount(itbis) });
  rows.push({
    code: 'MontoSubtotalPagina',
    label: 'Monto Total Página',
    amount: formatAmount(taxed.plus(exempt).plus(itbis)),
  });
  return rows;
}
