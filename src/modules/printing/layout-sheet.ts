// A4 and Letter: DGII's blocks in DGII's order and places (Informe Técnico §17.2, Modelos ilustrativos 1.x):
// type, e-NCF and dates top right; the issuer top left; the buyer between rules; the detail table; the totals
// bottom right level with the QR bottom left, the security code and signature date under it; the legends and the
// company's note above the footer. With several pages (G8-G10) the header, the table header and the QR block
// repeat on every page, page subtotals close every page but the last, and the grand totals and legends close the
// last; "Página No. X de Y" only when there is more than one page. This file lays out one page's parts; which lines
// go on which page is sheet-pages.ts.
import type { PrintableDocument } from './printable.schema.js';
import { amountsBlock, column, emptyBlock, qrSide, stampBlock, type Block } from './blocks.js';
import type { Measure } from './fonts.js';
import type { LabelledAmount } from './page-subtotals.js';
import { mm, type SheetGeometry } from './paper.js';
import { lineHeight, paragraph, shifted, type Box, type PlanPage, type Style } from './plan.js';
import { sheetTableColumns, tableHeaderBlock, tableRowBlock } from './sheet-table.js';
import { buyerLines, documentLines, issueDateLine, issuerLines, legendTexts, stampLines } from './texts.js';

type Line = PrintableDocument['lines'][number];

const body: Style = { size: 8.5, weight: 'regular' };
const eNcfStyle: Style = { size: 10.5, weight: 'bold' };
const tradeNameStyle: Style = { size: 11, weight: 'bold' };
const stampStyle: Style = { size: 8, weight: 'regular' };
const totalsStyle: Style = { size: 8.5, weight: 'regular' };
const legendStyle: Style = { size: 8, weight: 'boldOblique' };
const noteStyle: Style = { size: 7, weight: 'regular' };
const footerStyle: Style = { size: 8, weight: 'regular' };
const gap = 6;
/** The logo box of the header (~45 × 22 mm), the logo fitted inside keeping its aspect. */
const logoBox = { width: mm(45), height: mm(22) };

/** The type in large bold type on one line when it fits at 10 pt or more (so it reads as one title); else wrapped. */
function titleStyle(title: string, width: number, measure: Measure): Style {
  for (const size of [13, 12, 11, 10]) if (measure(title, size, 'bold') <= width) return { size, weight: 'bold' };
  return { size: 10, weight: 'bold' };
}

function headerBlock(
  printable: PrintableDocument,
  geometry: SheetGeometry,
  logo: { width: number; height: number } | null,
  measure: Measure,
): Block {
  const contentWidth = geometry.width - geometry.left - geometry.right;
  const leftWidth = contentWidth * 0.42;
  const rightWidth = contentWidth - leftWidth - 10;
  const rightX = geometry.left + contentWidth - rightWidth;

  const heading = documentLines(printable);
  const right = column(
    [
      { text: heading.title, style: titleStyle(heading.title, rightWidth, measure) },
      { text: heading.eNCF, style: eNcfStyle },
      ...heading.details.map((text) => ({ text, style: body })),
    ],
    { x: rightX, width: rightWidth, align: 'right' },
    measure,
  );

  const boxes: Box[] = [...right.boxes];
  let y = 0;
  if (logo !== null) {
    const scale = Math.min(logoBox.width / logo.width, logoBox.height / logo.height);
    boxes.push({ kind: 'logo', x: geometry.left, y: 0, width: logo.width * scale, height: logo.height * scale });
    y = logo.height * scale + 4;
  }
  const tradeName = printable.issuer.tradeName;
  const left = column(
    [
      ...(tradeName === null ? [] : [{ text: tradeName, style: tradeNameStyle }]),
      ...issuerLines(printable, 'RNC').map((text) => ({ text, style: body })),
      { text: issueDateLine(printable), style: body },
    ],
    { x: geometry.left, width: leftWidth, align: 'left' },
    measure,
  );
  boxes.push(...shifted(left.boxes, y));
  return { boxes, height: Math.max(right.height, y + left.height) };
}

export interface SheetParts {
  geometry: SheetGeometry;
  /** Header, buyer and table header with their rules, placed from the top margin. */
  top: Block;
  rows: { line: Line; block: Block }[];
  stamp: Block;
  legends: Block;
  note: Block;
  contentWidth: number;
  measure: Measure;
}

function rule(geometry: SheetGeometry, y: number): Box {
  return { kind: 'rule', x: geometry.left, y, width: geometry.width - geometry.left - geometry.right, dashed: false };
}

export function parts(
  printable: PrintableDocument,
  geometry: SheetGeometry,
  logo: { width: number; height: number } | null,
  footerNote: string | null,
  qrModules: number,
  measure: Measure,
): SheetParts {
  const contentWidth = geometry.width - geometry.left - geometry.right;
  const full = { x: geometry.left, width: contentWidth, align: 'left' as const };
  const header = headerBlock(printable, geometry, logo, measure);
  const boxes: Box[] = [...header.boxes];
  let y = header.height + gap / 2;
  boxes.push(rule(geometry, y));
  y += gap / 2;
  const buyer = buyerLines(printable);
  if (buyer.length > 0) {
    for (const text of buyer) y = paragraph(boxes, text, { ...full, y }, body, measure);
    y += gap / 2;
    boxes.push(rule(geometry, y));
    y += gap / 2;
  }
  const columns = sheetTableColumns(printable.lines, geometry.left, contentWidth, measure);
  const tableHeader = tableHeaderBlock(columns, measure);
  boxes.push(...shifted(tableHeader.boxes, y));
  y += tableHeader.height;
  boxes.push(rule(geometry, y));
  y += 2;

  const qrSize = qrSide(qrModules);
  return {
    geometry,
    top: { boxes: shifted(boxes, geometry.top), height: geometry.top + y },
    rows: printable.lines.map((line) => ({ line, block: tableRowBlock(line, columns, measure) })),
    stamp: stampBlock(
      stampLines(printable),
      qrSize,
      { x: geometry.left, width: contentWidth / 2, align: 'left' },
      stampStyle,
      measure,
    ),
    legends: column(
      legendTexts(printable).map((text) => ({ text, style: legendStyle })),
      full,
      measure,
    ),
    note: footerNote === null ? emptyBlock : column([{ text: footerNote, style: noteStyle }], full, measure),
    contentWidth,
    measure,
  };
}

/** The bottom of a page: the stamp and the amounts beside it, the legends (last page), the note and the footer. */
export interface Bottom {
  boxes: Box[];
  /** Where the table must end. */
  top: number;
}

export function bottom(
  sheet: SheetParts,
  amounts: readonly LabelledAmount[],
  last: boolean,
  footer: string | null,
): Bottom {
  const { geometry, measure } = sheet;
  const boxes: Box[] = [];
  let y = geometry.height - geometry.bottom - lineHeight(footerStyle.size);
  if (footer !== null)
    boxes.push({
      kind: 'text',
      text: footer,
      x: geometry.left,
      y,
      width: sheet.contentWidth,
      align: 'center',
      ...footerStyle,
    });
  y -= gap / 2;
  if (sheet.note.height > 0) {
    y -= sheet.note.height;
    boxes.push(...shifted(sheet.note.boxes, y));
    y -= gap / 2;
  }
  if (last && sheet.legends.height > 0) {
    y -= sheet.legends.height;
    boxes.push(...shifted(sheet.legends.boxes, y));
    y -= gap / 2;
  }
  const right = geometry.width - geometry.right;
  const totals = amountsBlock(amounts, right, sheet.contentWidth / 2, totalsStyle, measure);
  // The totals start level with the QR, below the same clear margin.
  const qrTop = sheet.stamp.boxes.find((box) => box.kind === 'qr')?.y ?? 0;
  const height = Math.max(sheet.stamp.height, qrTop + totals.height);
  y -= height;
  boxes.push(...shifted(sheet.stamp.boxes, y), ...shifted(totals.boxes, y + qrTop));
  return { boxes, top: y - gap };
}

export function rowsHeight(rows: readonly { block: Block }[]): number {
  return rows.reduce((height, row) => height + row.block.height, 0);
}

export function page(sheet: SheetParts, rows: readonly { block: Block }[], end: Bottom): PlanPage {
  const boxes: Box[] = [...sheet.top.boxes];
  let y = sheet.top.height;
  for (const row of rows) {
    boxes.push(...shifted(row.block.boxes, y));
    y += row.block.height;
  }
  boxes.push(rule(sheet.geometry, y + 1), ...end.boxes);
  return { width: sheet.geometry.width, height: sheet.geometry.height, boxes };
}

/** Room for rows on a page whose bottom is `end`. */
export function capacity(sheet: SheetParts, end: Bottom): number {
  return end.top - sheet.top.height;
}
