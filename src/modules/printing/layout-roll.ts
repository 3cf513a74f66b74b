// Thermal rolls (80 mm, 58 mm): one continuous page as tall as its content, in the structure of model 2.3 (Informe
// Técnico §17.3.4): the issuer without logo, a line of asterisks, the type and e-NCF, asterisks, the issue date
// (and buyer), a dashed rule, each item on two rows (Cantidad Descripción Unidad / Precio ITBIS Valor), a dashed
// rule, the totals right-aligned, a dashed rule, the QR centred with the code and date centred under it, then the
// legends and the company's note. Paginacion is not followed here: a roll has no pages to follow it on, and
// whether DGII wants rolls cut per declared page is unknown (research/printed-representation.md §4.5).
import type { PrintableDocument } from './printable.schema.js';
import { amountsBlock, column, qrSide, stampBlock } from './blocks.js';
import type { Measure } from './fonts.js';
import type { RollGeometry } from './paper.js';
import { grouped, lineHeight, paragraph, shifted, type Align, type Box, type PlanPage, type Style } from './plan.js';
import {
  buyerLines,
  columnTitles,
  documentLines,
  issueDateLine,
  issuerLines,
  legendTexts,
  stampLines,
} from './texts.js';

type Line = PrintableDocument['lines'][number];

interface Column {
  x: number;
  width: number;
  align: Align;
}

export interface RollInput {
  printable: PrintableDocument;
  geometry: RollGeometry;
  footerNote: string | null;
  qrModules: number;
  measure: Measure;
}

export function layoutRoll(input: RollInput): PlanPage {
  const { printable, geometry, measure } = input;
  const narrow = geometry.printable < 150;
  const body: Style = { size: narrow ? 7 : 8, weight: 'regular' };
  const bold: Style = { ...body, weight: 'bold' };
  const small: Style = { size: body.size - 1, weight: 'regular' };
  const gap = 4;
  const x = (geometry.width - geometry.printable) / 2;
  const width = geometry.printable;
  const centred = { x, width, align: 'center' as const };
  const left = { x, width, align: 'left' as const };
  const boxes: Box[] = [];
  let y = geometry.top;
  const add = (block: { boxes: Box[]; height: number }) => {
    boxes.push(...shifted(block.boxes, y));
    y += block.height;
  };
  const dashed = () => {
    y += gap / 2;
    boxes.push({ kind: 'rule', x, y, width, dashed: true });
    y += gap / 2;
  };
  const stars = () => {
    const count = Math.floor(width / measure('*', body.size, body.weight));
    y = paragraph(boxes, '*'.repeat(count), { ...centred, y }, body, measure);
  };

  const tradeName = printable.issuer.tradeName;
  add(
    column(
      [
        ...(tradeName === null ? [] : [{ text: tradeName, style: bold }]),
        ...issuerLines(printable, 'RNC:').map((text) => ({ text, style: body })),
      ],
      centred,
      measure,
    ),
  );
  stars();
  const heading = documentLines(printable);
  add(
    column(
      [
        { text: heading.title, style: bold },
        { text: heading.eNCF, style: bold },
        ...heading.details.map((text) => ({ text, style: body })),
      ],
      centred,
      measure,
    ),
  );
  stars();
  add(
    column(
      [issueDateLine(printable), ...buyerLines(printable)].map((text) => ({ text, style: body })),
      left,
      measure,
    ),
  );
  dashed();

  // Two rows per item. Row one: quantity, description (with "E" on exempt lines), unit in words; row two:
  // price, ITBIS and value in three equal right-aligned columns.
  const quantityWidth = Math.max(
    measure(columnTitles.quantity, bold.size, bold.weight),
    ...printable.lines.map((line) => measure(line.quantity, body.size, body.weight)),
  );
  const markWidth = measure('E ', bold.size, bold.weight);
  const unitWidth = Math.min(measure(columnTitles.unit, bold.size, bold.weight) + 1, width * 0.36);
  const quantity: Column = { x, width: quantityWidth, align: 'left' };
  const mark: Column = { x: x + quantityWidth + gap, width: markWidth, align: 'left' };
  const description: Column = {
    x: mark.x + markWidth,
    width: width - quantityWidth - markWidth - unitWidth - 2 * gap,
    align: 'left',
  };
  const unit: Column = { x: x + width - unitWidth, width: unitWidth, align: 'right' };
  const third = (width - 2 * gap) / 3;
  const amountColumn = (index: number): Column => ({ x: x + index * (third + gap), width: third, align: 'right' });
  const [price, itbis, value] = [amountColumn(0), amountColumn(1), amountColumn(2)];

  const row = (cells: readonly [Column, string, Style][]) => {
    let bottom = y + lineHeight(body.size);
    for (const [at, text, style] of cells)
      bottom = Math.max(bottom, paragraph(boxes, text, { ...at, y }, style, measure));
    y = bottom;
  };
  row([
    [quantity, columnTitles.quantity, bold],
    [description, columnTitles.description, bold],
    [unit, columnTitles.unit, bold],
  ]);
  row([
    [price, columnTitles.price, bold],
    [itbis, columnTitles.itbis, bold],
    [value, columnTitles.value, bold],
  ]);
  for (const line of printable.lines) {
    y += 2;
    row(itemCells(line, { quantity, mark, description, unit }, body, bold));
    if (line.description !== null) y = paragraph(boxes, line.description, { ...description, y }, small, measure);
    row([
      [price, grouped(line.unitPrice), body],
      [itbis, grouped(line.itbis ?? ''), body],
      [value, grouped(line.amount), body],
    ]);
  }
  dashed();
  add(amountsBlock(printable.totalLines, x + width, width, body, measure));
  dashed();
  add(stampBlock(stampLines(printable), qrSide(input.qrModules), centred, body, measure));
  const legends = legendTexts(printable);
  if (legends.length > 0) {
    y += gap;
    add(
      column(
        legends.map((text) => ({ text, style: { ...body, weight: 'boldOblique' as const } })),
        centred,
        measure,
      ),
    );
  }
  if (input.footerNote !== null) {
    y += gap;
    add(column([{ text: input.footerNote, style: small }], centred, measure));
  }
  return { width: geometry.width, height: Math.ceil(y + geometry.bottom), boxes };
}

function itemCells(
  line: Line,
  columns: { quantity: Column; mark: Column; description: Column; unit: Column },
  body: Style,
  bold: Style,
): [Column, string, Style][] {
  const cells: [Column, string, Style][] = [
    [columns.quantity, line.quantity, body],
    [columns.description, line.name, body],
    [columns.unit, line.unit?.name ?? '', body],
  ];
  if (line.mark !== null) cells.push([columns.mark, line.mark, bold]);
  return cells;
}
