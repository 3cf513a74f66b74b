// The set workbook DGII's portal hands a taxpayer in step 2 (research/certification.md §2): sheets ECF and RFCE, one
// row per case under DGII's headers (`CasoPrueba` first, every leaf with its indices), every cell text, `#e` for an
// empty one. Written from the same column layout the converter reads, so converting it gives back the cases.
import {
  caseKeyColumn,
  cellsOfCase,
  emptyCell,
  sheetHeaders,
  type SetSheet,
} from '../../fiscal/certification/index.js';
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import { writeXlsx } from '../../platform/xlsx/index.js';

export interface WorkbookCase {
  /** ACECF cases have no sheet here: DGII's ACECF workbook is another file. */
  kind: 'ECF' | 'RFCE' | 'ACECF';
  caseKey: string;
  payload: Record<string, unknown>;
}

function sheetRows(sheet: SetSheet, cases: readonly WorkbookCase[]): string[][] {
  const headers = sheetHeaders(sheet);
  const rows = cases
    .filter((setCase) => setCase.kind === sheet)
    .map((setCase) => {
      const cells = cellsOfCase(sheet, setCase.payload);
      cells.set(caseKeyColumn, setCase.caseKey);
      return headers.map((header) => cells.get(header) ?? emptyCell);
    });
  return [headers, ...rows];
}

export function setWorkbook(cases: readonly WorkbookCase[]): Buffer {
  return writeXlsx((['ECF', 'RFCE'] as const).map((sheet) => ({ name: sheet, rows: sheetRows(sheet, cases) })));
}

/** DGII names the file `<RNC>-<ddMMyyyyHHmmss>.xlsx`, the generation time in GMT-4 (research §2). */
export function setWorkbookName(rnc: string, generatedAt: Date): string {
  return `${rnc}-${formatDgiiTimestamp(generatedAt).replace(/[- :]/g, '')}.xlsx`;
}
