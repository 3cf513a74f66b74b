// The detail table of A4 and Letter, with the models' columns: Cantidad | Descripción | Unidad de Medida | Precio |
// ITBIS | Valor. "E" goes left of the description on exempt lines (IndicadorFacturacion 4); the unit is printed in
// words (Formato column P); long descriptions wrap; amounts are right-aligned. Number columns are as wide as their
// widest value, so nothing is cut, and the description takes the rest.
import type { PrintableDocument } from './printable.schema.js';
import type { Block } from './blocks.js';
import type { Measure } from './fonts.js';
import { grouped, lineHeight, paragraph, type Align, type Box, type Style } from './plan.js';
import { columnTitles } from './texts.js';

type Line = PrintableDocument['lines'][number];

export const tableStyle: Style = { size: 8, weight: 'regular' };
const headStyle: Style = { size: 8, weight: 'bold' };
const detailStyle: Style = { size: 7, weight: 'regular' };
const columnGap = 8;
/** Above and below the text of a row. */
const rowPadding = 1.5;

interface Column {
  x: number;
  width: number;
  align: Align;
}

export interface SheetColumns {
  quantity: Column;
  mark: Column;
  description: Column;
  unit: Column;
  price: Column;
  itbis: Column;
  value: Column;
}

function widest(texts: readonly string[], style: Style, measure: Measure): number {
  return Math.max(0, ...texts.map((text) => measure(text, style.size, style.weight)));
}

export function sheetTableColumns(lines: readonly Line[], left: number, width: number, measure: Measure): SheetColumns {
  const fit = (title: string, values: readonly string[]) =>
    Math.ceil(Math.max(widest([title], headStyle, measure), widest(values, tableStyle, measure)));
  const quantity = fit(
    columnTitles.quantity,
    lines.map((line) => line.quantity),
  );
  const mark = Math.ceil(measure('E', headStyle.size, headStyle.weight)) + 3;
  const unit = Math.ceil(widest([columnTitles.unit], headStyle, measure));
  const price = fit(
    columnTitles.price,
    lines.map((line) => grouped(line.unitPrice)),
  );
  const itbis = fit(
    columnTitles.itbis,
    lines.map((line) => grouped(line.itbis ?? '')),
  );
  const value = fit(
    columnTitles.value,
    lines.map((line) => grouped(line.amount)),
  );
  const description = Math.max(60, width - quantity - mark - unit - price - itbis - value - 5 * columnGap);
  let x = left;
  const next = (size: number, align: Align, after = columnGap): Column => {
    const placed = { x, width: size, align };
    x += size + after;
    return placed;
  };
  return {
    quantity: next(quantity, 'right'),
    mark: next(mark, 'left', 0),
    description: next(description, 'left'),
    unit: next(unit, 'left'),
    price: next(price, 'right'),
    itbis: next(itbis, 'right'),
    value: next(value, 'right'),
  };
}

export function tableHeaderBlock(columns: SheetColumns, measure: Measure): Block {
  const boxes: Box[] = [];
  const titles: [Column, string][] = [
    [columns.quantity, columnTitles.quantity],
    [columns.description, columnTitles.description],
    [columns.unit, columnTitles.unit],
    [columns.price, columnTitles.price],
    [columns.itbis, columnTitles.itbis],
    [columns.value, columnTitles.value],
  ];
  let height = 0;
  for (const [column, title] of titles)
    height = Math.max(height, paragraph(boxes, title, { ...column, y: 0 }, headStyle, measure));
  return { boxes, height: height + rowPadding };
}

export function tableRowBlock(line: Line, columns: SheetColumns, measure: Measure): Block {
  const boxes: Box[] = [];
  const y = rowPadding;
  let bottom = y + lineHeight(tableStyle.size);
  const cell = (column: Column, text: string, style = tableStyle) => {
    if (text !== '') bottom = Math.max(bottom, paragraph(boxes, text, { ...column, y }, style, measure));
  };
  cell(columns.quantity, line.quantity);
  if (line.mark !== null) cell(columns.mark, line.mark, headStyle);
  const nameEnd = paragraph(boxes, line.name, { ...columns.description, y }, tableStyle, measure);
  bottom = Math.max(bottom, nameEnd);
  if (line.description !== null)
    bottom = Math.max(
      bottom,
      paragraph(boxes, line.description, { ...columns.description, y: nameEnd }, detailStyle, measure),
    );
  cell(columns.unit, line.unit?.name ?? '');
  cell(columns.price, grouped(line.unitPrice));
  cell(columns.itbis, grouped(line.itbis ?? ''));
  cell(columns.value, grouped(line.amount));
  return { boxes, height: bottom + rowPadding };
}
