// DGII's certification set workbook (.xlsx) to the set file `iniciar` takes (SPEC §2.3): one ECF case per row of
// sheet `ECF`, one RFCE case per row of sheet `RFCE`, every value verbatim. The workbook is read by the project's own
// streaming reader (platform/xlsx: yauzl and a scanner, no new dependency), row by row.
import { basename } from 'node:path';
import { casesOfWorkbookRows, checkSetFile, type SetCase } from '../../fiscal/certification/index.js';
import { openXlsx, XlsxError } from '../../platform/xlsx/index.js';

export interface ConvertedSet {
  file: { label: string; cases: SetCase[] };
  /** One line per problem, naming the case key and the JSON pointer. */
  findings: string[];
}

/** The workbook is not a DGII set (or not a workbook): the converter's exit 2, with this one line. */
export class SetWorkbookError extends Error {}

export async function convertSetWorkbook(path: string, options: { label?: string; now: Date }): Promise<ConvertedSet> {
  let workbook;
  try {
    workbook = await openXlsx(path);
  } catch (error) {
    throw error instanceof XlsxError ? new SetWorkbookError(error.message) : error;
  }
  try {
    const read = await casesOfWorkbookRows(workbook);
    if (!read.ok) throw new SetWorkbookError(`${path} is not a DGII certification set: ${read.message}`);
    const findings = read.findings.map(
      ({ caseKey, finding }) => `${caseKey} ${finding.pointer || '/'}: ${finding.message}`,
    );
    for (const finding of checkSetFile(read.cases, { now: options.now }))
      findings.push(`${finding.caseKey} ${finding.pointer || '/'}: ${finding.message}`);
    return { file: { label: options.label ?? basename(path), cases: read.cases }, findings };
  } catch (error) {
    throw error instanceof XlsxError ? new SetWorkbookError(error.message) : error;
  } finally {
    workbook.close();
  }
}
