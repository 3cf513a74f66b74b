// A DGII set workbook's sheets to the set's cases (research/certification.md §2): sheet ECF then RFCE, the first row
// of each its headers, one case per data row. The one reading of a workbook, for the converter and for the sandbox's
// portal alike. The workbook comes as rows to iterate (the caller opens the file): fiscal/ does no I/O.
import type { Finding } from '../finding.js';
import type { SetSheet } from './set-columns.js';
import { caseOfRow, DuplicateColumnError, readHeaderRow, type SetCase, type SheetColumns } from './set-rows.js';

export interface WorkbookRows {
  readonly sheetNames: readonly string[];
  rows(sheet: string): AsyncIterable<{ readonly number: number; readonly cells: readonly (string | undefined)[] }>;
}

/** Something a row holds that the layout cannot place, by where it is. */
export interface RowFinding {
  readonly sheet: SetSheet;
  readonly row: number;
  /** The row's CasoPrueba, or `<sheet> row <n>` for a row without one. */
  readonly caseKey: string;
  readonly finding: Finding;
}

export type WorkbookCases = { ok: true; cases: SetCase[]; findings: RowFinding[] } | { ok: false; message: string };

const sheets: readonly SetSheet[] = ['ECF', 'RFCE'];

/** The cases of a workbook, or why it is not a DGII certification set. */
export async function casesOfWorkbookRows(workbook: WorkbookRows): Promise<WorkbookCases> {
  const missing = sheets.filter((sheet) => !workbook.sheetNames.includes(sheet));
  if (missing.length > 0)
    return {
      ok: false,
      message: `it has no sheet ${missing.join(' or ')} (its sheets: ${workbook.sheetNames.join(', ') || 'none'})`,
    };
  const cases: SetCase[] = [];
  const findings: RowFinding[] = [];
  for (const sheet of sheets) {
    let columns: SheetColumns | undefined;
    for await (const row of workbook.rows(sheet)) {
      if (columns === undefined) {
        const header = headerOf(sheet, row.cells);
        if (!header.ok) return header;
        columns = header.columns;
        continue;
      }
      const read = caseOfRow(columns, row.cells);
      if (read === undefined) continue;
      const caseKey = read.case.caseKey === '' ? `${sheet} row ${String(row.number)}` : read.case.caseKey;
      if (read.case.caseKey === '')
        findings.push({
          sheet,
          row: row.number,
          caseKey,
          finding: { pointer: '', code: 'case_key_missing', severity: 'error', message: 'the row has no CasoPrueba' },
        });
      for (const finding of read.findings) findings.push({ sheet, row: row.number, caseKey, finding });
      cases.push(read.case);
    }
    if (columns === undefined) return { ok: false, message: `sheet ${sheet} is empty` };
  }
  return { ok: true, cases, findings };
}

function headerOf(
  sheet: SetSheet,
  cells: readonly (string | undefined)[],
): { ok: true; columns: SheetColumns } | { ok: false; message: string } {
  try {
    return readHeaderRow(sheet, cells);
  } catch (error) {
    if (error instanceof DuplicateColumnError) return { ok: false, message: error.message };
    throw error;
  }
}
