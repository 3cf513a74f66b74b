// Blocks shared by the layouts: each is laid out from y = 0 and placed on a page by shifting it.
import type { Measure } from './fonts.js';
import type { LabelledAmount } from './page-subtotals.js';
import { grouped, lineHeight, paragraph, type Align, type Box, type Style } from './plan.js';
import { mm } from './paper.js';

export interface Block {
  boxes: Box[];
  height: number;
}

export const emptyBlock: Block = { boxes: [], height: 0 };

/** Paragraphs one under the other in one column. */
export function column(
  texts: readonly { text: string; style: Style }[],
  at: { x: number; width: number; align: Align },
  measure: Measure,
): Block {
  const boxes: Box[] = [];
  let y = 0;
  for (const { text, style } of texts) y = paragraph(boxes, text, { ...at, y }, style, measure);
  return { boxes, height: y };
}

/** Informe Técnico §17.2.3: a 3 mm margin around the QR where nothing is drawn. */
export const qrClear = mm(3);

/**
 * QR size: at least 22 mm (Informe Técnico), and whole 0.5 mm modules, which are 4 dots at 203 dpi, so a thermal
 * head prints every module alike (a v10 symbol, 57 modules, is 28.5 mm).
 */
export function qrSide(modules: number): number {
  return Math.max(mm(22), modules * mm(0.5));
}

/** The QR with its clear margin, then the security code and signature date under it. */
export function stampBlock(
  lines: readonly string[],
  qrSize: number,
  at: { x: number; width: number; align: Align },
  style: Style,
  measure: Measure,
): Block {
  const qrX = at.align === 'center' ? at.x + (at.width - qrSize) / 2 : at.x;
  const boxes: Box[] = [{ kind: 'qr', x: qrX, y: qrClear, size: qrSize, clear: qrClear }];
  let y = qrClear + qrSize + qrClear;
  for (const line of lines) y = paragraph(boxes, line, { ...at, y }, style, measure);
  return { boxes, height: y };
}

/** Label: amount rows, right-aligned against `right`; the last row bold when it is the document's total. */
export function amountsBlock(
  rows: readonly LabelledAmount[],
  right: number,
  maxWidth: number,
  style: Style,
  measure: Measure,
): Block & { width: number } {
  const bold: Style = { ...style, weight: 'bold' };
  const texts = rows.map((row) => ({
    label: `${row.label}:`,
    amount: grouped(row.amount),
    style: row.code === 'MontoTotal' ? bold : style,
  }));
  const amountWidth = Math.max(0, ...texts.map((row) => measure(row.amount, row.style.size, row.style.weight)));
  const labelWidth = Math.min(
    maxWidth - amountWidth - 6,
    Math.max(0, ...texts.map((row) => measure(row.label, row.style.size, row.style.weight))),
  );
  const width = labelWidth + 6 + amountWidth;
  const boxes: Box[] = [];
  let y = 0;
  for (const row of texts) {
    if (row.style === bold) {
      boxes.push({ kind: 'rule', x: right - width, y: y + 1, width, dashed: false });
      y += 3;
    }
    const top = y;
    y = paragraph(
      boxes,
      row.label,
      { x: right - width, y: top, width: labelWidth, align: 'right' },
      row.style,
      measure,
    );
    boxes.push({
      kind: 'text',
      text: row.amount,
      x: right - amountWidth,
      y: top,
      width: amountWidth,
      align: 'right',
      ...row.style,
    });
    y = Math.max(y, top + lineHeight(row.style.size));
  }
  return { boxes, height: y, width };
}
