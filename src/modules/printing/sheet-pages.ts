// Which lines go on which A4 or Letter page (G8-G10): Paginacion followed exactly when the XML has one; else one page
// when everything fits, or pages filled by capacity with derived page subtotals, the grand totals and legends on
// the last. Each page is assembled from layout-sheet.ts's parts.
import { fail, ok, type Result } from '../../platform/result.js';
import type { Measure } from './fonts.js';
import { bottom, capacity, page, parts, rowsHeight, type SheetParts } from './layout-sheet.js';
import { derivedPageSubtotals } from './page-subtotals.js';
import type { SheetGeometry } from './paper.js';
import type { PlanPage } from './plan.js';
import type { PrintableDocument } from './printable.schema.js';
import { pageFooter } from './texts.js';

type Line = PrintableDocument['lines'][number];

export interface SheetInput {
  printable: PrintableDocument;
  geometry: SheetGeometry;
  logo: { width: number; height: number } | null;
  footerNote: string | null;
  qrModules: number;
  measure: Measure;
}

export function layoutSheet(input: SheetInput): Result<PlanPage[]> {
  const { printable, measure } = input;
  const sheet = parts(printable, input.geometry, input.logo, input.footerNote, input.qrModules, measure);
  const pagination = printable.pagination;
  if (pagination !== null) return declaredPages(sheet, printable, pagination);

  const lastBottom = (footer: string | null) => bottom(sheet, printable.totalLines, true, footer);
  if (rowsHeight(sheet.rows) <= capacity(sheet, lastBottom(null)))
    return ok([page(sheet, sheet.rows, lastBottom(null))]);

  // More than one page and no Paginacion: fill pages by capacity; the footer's text does not change heights.
  const lines = printable.lines;
  const middleRoom = capacity(sheet, bottom(sheet, derivedPageSubtotals(lines, lines), false, ''));
  const lastRoom = capacity(sheet, lastBottom(''));
  const groups: (typeof sheet.rows)[] = [[]];
  for (const row of sheet.rows) {
    if (row.block.height > Math.min(middleRoom, lastRoom))
      return fail('pagination_overflow', `Line ${row.line.lineNumber} is taller than a page's table.`);
    let current = groups[groups.length - 1] ?? [];
    if (rowsHeight(current) + row.block.height > middleRoom) {
      current = [];
      groups.push(current);
    }
    current.push(row);
  }
  // The last page also holds the grand totals and legends: while its lines do not fit, its trailing lines move
  // to a new last page (at least one line stays, as no line is taller than the last page's room).
  for (let tail = groups[groups.length - 1] ?? []; rowsHeight(tail) > lastRoom;) {
    const moved: typeof tail = [];
    while (rowsHeight(tail) > lastRoom) {
      const row = tail.pop();
      if (row !== undefined) moved.unshift(row);
    }
    groups.push(moved);
    tail = moved;
  }
  const total = groups.length;
  return ok(
    groups.map((rows, index) => {
      const footer = pageFooter(index + 1, total);
      const end =
        index === total - 1
          ? lastBottom(footer)
          : bottom(
              sheet,
              derivedPageSubtotals(
                rows.map((row) => row.line),
                lines,
              ),
              false,
              footer,
            );
      return page(sheet, rows, end);
    }),
  );
}

/** Paginacion followed exactly (G10): page k holds NoLineaDesde..NoLineaHasta and prints the XML's subtotals. */
function declaredPages(
  sheet: SheetParts,
  printable: PrintableDocument,
  pagination: NonNullable<PrintableDocument['pagination']>,
): Result<PlanPage[]> {
  const declared = pagination.pages;
  const placed = new Set<Line>();
  const pages: PlanPage[] = [];
  for (const [index, declaredPage] of declared.entries()) {
    const rows = sheet.rows.filter((row) => {
      const number = Number(row.line.lineNumber);
      return number >= declaredPage.fromLine && number <= declaredPage.toLine;
    });
    for (const row of rows) placed.add(row.line);
    const last = index === declared.length - 1;
    const footer = pageFooter(declaredPage.number, pagination.totalPages);
    const end = last
      ? bottom(sheet, printable.totalLines, true, footer)
      : bottom(sheet, declaredPage.subtotals, false, footer);
    if (rowsHeight(rows) > capacity(sheet, end))
      return fail(
        'pagination_overflow',
        `Paginacion puts lines ${declaredPage.fromLine}-${declaredPage.toLine} on page ${declaredPage.number}, more than its table holds.`,
      );
    pages.push(page(sheet, rows, end));
  }
  const unplaced = printable.lines.find((line) => !placed.has(line));
  if (unplaced !== undefined)
    return fail('pagination_overflow', `Paginacion places line ${unplaced.lineNumber} on no page.`);
  return ok(pages);
}

/** For tests and the builder: how many one-line items fit a page. */
export function sheetRowCapacity(input: SheetInput): { middle: number; last: number; row: number } {
  const sheet = parts(input.printable, input.geometry, input.logo, input.footerNote, input.qrModules, input.measure);
  const lines = input.printable.lines;
  const row = sheet.rows[0]?.block.height ?? 0;
  const middle = capacity(sheet, bottom(sheet, derivedPageSubtotals(lines, lines), false, ''));
  const last = capacity(sheet, bottom(sheet, input.printable.totalLines, true, ''));
  return { middle, last, row };
}
