// DGII's certification set workbook (.xlsx) to the set file `iniciar` takes (SPEC §2.3): one ECF case per row of
// sheet `ECF`, one RFCE case per row of sheet `RFCE`, every value verbatim. The workbook is read by the project's own
// streaming reader (platform/xlsx: yauzl and a scanner, no new dependency), row by row.
import { basename } from 'node:path';
import { caseOfRow, checkSetFile, DuplicateColumnError, readHeaderRow, type SetCase, type SetSheet, type SheetColumns } from '../../fiscal/certification/index.js';
import { openXlsx, XlsxError } from '../../platform/xlsx/index.js';

export interface ConvertedSet {
  file: { label: string; cases: SetCase[] };
  /** One line per problem, naming the case key and the JSON pointer. */
  findings: string[];
}

/** The workbook is not a DGII set (or not a workbook): the converter's exit 2, with this one line. */
export class SetWorkbookError extends Error {}

const sheets: readonly SetSheet[] = ['ECF', 'RFCE'];

export async function convertSetWorkbook(path: string, options: { label?: string; now: Date }): Promise<ConvertedSet> {
  let workbook;
  try {
    workbook = await openXlsx(path);
  } catch (error) {
    throw error instanceof XlsxError ? new SetWorkbookError(error.message) : error;
  }
  try {
    const missing = sheets.filter((sheet) => !workbook.sheetNames.includes(sheet));
    if (missing.length > 0) throw new SetWorkbookError(`${path} is not a DGII certification set: it has no sheet ${missing.join(' or ')} (its sheets: ${workbook.sheetNames.join(', ') || 'none'})`);
    const cases: SetCase[] = [];
    const findings: string[] = [];
    for (const sheet of sheets) {
      let columns: SheetColumns | undefined;
      for await (const row of workbook.rows(sheet)) {
        if (columns === undefined) {
          const header = readHeader(sheet, row.cells);
          if (!header.ok) throw new SetWorkbookError(`${path}: ${header.message}`);
          columns = header.columns;
          continue;
        }
        const read = caseOfRow(columns, row.cells);
        if (read === undefined) continue;
        const key = read.case.caseKey === '' ? `${sheet} row ${String(row.number)}` : read.case.caseKey;
        if (read.case.caseKey === '') findings.push(`${key}: the row has no CasoPrueba`);
        for (const finding of read.findings) findings.push(`${key} ${finding.pointer || '/'}: ${finding.message}`);
        cases.push(read.case);
      }
      if (columns === undefined) throw new SetWorkbookError(`${path}: sheet ${sheet} is empty: it is not a DGII certification set`);
    }
    for (const finding of checkSetFile(cases, { now: options.now })) findings.push(`${finding.caseKey} ${finding.pointer || '/'}: ${finding.message}`);
    return { file: { label: options.label ?? basename(path), cases }, findings };
  } catch (error) {
    throw error instanceof XlsxError ? new SetWorkbookError(error.message) : error;
  } finally {
    workbook.close();
  }
}

function readHeader(sheet: SetSheet, cells: readonly (string | undefined)[]) {
  try {
    return readHeaderRow(sheet, cells);
  } catch (error) {
    if (error instanceof DuplicateColumnError) return { ok: false as const, message: error.message };
    throw error;
  }
}
