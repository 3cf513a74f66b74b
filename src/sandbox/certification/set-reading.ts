// A set an operator gives the portal, as DGII would have generated it: the set file `{label, cases}` (SPEC §2.3),
// or DGII's workbook itself, read with the same column layout the converter uses (fiscal/certification) by the
// project's xlsx reader. Anything that is not a set is refused with what is wrong, never stored.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { casesOfWorkbookRows, cellsOfCase, isRfceRouted, type SetCase } from '../../fiscal/certification/index.js';
import { isEcfType } from '../../fiscal/model/index.js';
import { openXlsx, XlsxError } from '../../platform/xlsx/index.js';
import { encfOfCase, textAt } from './set-composition.js';

export type SetReading = { ok: true; cases: SetCase[] } | { ok: false; problems: string[] };

/** Problems shown at most: enough to see what is wrong with a file. */
const shownProblems = 10;

function refused(problems: string[]): SetReading {
  return { ok: false, problems: problems.slice(0, shownProblems) };
}

/** `{label?, cases: [{kind, caseKey, ecfType?, payload}]}`. */
export function casesOfSetFile(body: unknown): SetReading {
  const cases = typeof body === 'object' && body !== null && 'cases' in body ? body.cases : undefined;
  if (!Array.isArray(cases))
    return refused(['A set file is {label, cases: [{kind, caseKey, ecfType, payload}]}: cases is missing.']);
  const read: SetCase[] = [];
  const problems: string[] = [];
  for (const [index, entry] of (cases as unknown[]).entries()) {
    const at = `cases/${String(index)}`;
    const fields = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
    const { kind, caseKey, ecfType, payload } = fields;
    // DGII's step-3 approvals follow from the ECF rows (research §2): a file's own ACECF cases are not the portal's.
    if (kind === 'ACECF') continue;
    if (kind !== 'ECF' && kind !== 'RFCE') problems.push(`${at}: kind is ECF, RFCE or ACECF.`);
    else if (typeof caseKey !== 'string') problems.push(`${at}: caseKey is missing.`);
    else if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      problems.push(`${at}: payload is missing.`);
    else {
      const type = typeof ecfType === 'string' ? ecfType : textAt(payload, ['Encabezado', 'IdDoc', 'TipoeCF']);
      read.push({
        kind,
        caseKey,
        ...(type === undefined ? {} : { ecfType: type }),
        payload: payload as Record<string, unknown>,
      });
    }
  }
  return problems.length > 0 ? refused(problems) : checkedSet(read);
}

/** DGII's workbook: sheets ECF and RFCE, one case per row. */
export async function casesOfWorkbook(bytes: Buffer): Promise<SetReading> {
  // The reader opens files (it reads the zip through its central directory): the bytes go to a private temporary one.
  const dir = await mkdtemp(join(tmpdir(), 'sandbox-set-'));
  try {
    const path = join(dir, 'set.xlsx');
    await writeFile(path, bytes);
    return await readWorkbook(path);
  } catch (error) {
    if (error instanceof XlsxError) return refused([`The workbook is not a DGII certification set: ${error.message}`]);
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function readWorkbook(path: string): Promise<SetReading> {
  const workbook = await openXlsx(path);
  try {
    const read = await casesOfWorkbookRows(workbook);
    if (!read.ok) return refused([`The workbook is not a DGII certification set: ${read.message}.`]);
    if (read.findings.length > 0)
      return refused(
        read.findings.map(({ sheet, row, finding }) => `${sheet} row ${String(row)}: ${finding.message}.`),
      );
    return checkedSet(read.cases);
  } finally {
    workbook.close();
  }
}

/**
 * What makes it a set the portal can judge against: one RNCEmisor, the rows keyed RNCEmisor + eNCF without
 * repeats, ECF rows of e-CF types, each RFCE row with its type-32 ECF row under DOP 250,000.00 and the reverse
 * (research/certification.md §2), and every value text, so that its workbook can be written.
 */
function checkedSet(cases: readonly SetCase[]): SetReading {
  const problems: string[] = [];
  const ecf = cases.filter((setCase) => setCase.kind === 'ECF');
  if (ecf.length === 0) return refused(['The set has no ECF case.']);
  const issuers = new Set(cases.map((setCase) => textAt(setCase.payload, ['Encabezado', 'Emisor', 'RNCEmisor'])));
  if (issuers.size !== 1)
    problems.push(
      `Every case of a set has the same RNCEmisor; these have ${[...issuers].map((rnc) => rnc ?? 'none').join(', ')}.`,
    );
  const seen = new Set<string>();
  for (const setCase of cases) {
    const encf = encfOfCase(setCase);
    const rnc = textAt(setCase.payload, ['Encabezado', 'Emisor', 'RNCEmisor']);
    const type = textAt(setCase.payload, ['Encabezado', 'IdDoc', 'TipoeCF']);
    const name = `${setCase.kind} ${setCase.caseKey}`;
    if (encf === undefined || !/^E\d{12}$/.test(encf)) problems.push(`${name}: no e-NCF (Encabezado/IdDoc/eNCF).`);
    else if (setCase.caseKey !== `${rnc ?? ''}${encf}`)
      problems.push(`${name}: the case key is not RNCEmisor + eNCF (${rnc ?? ''}${encf}).`);
    if (type === undefined || !isEcfType(type) || encf?.slice(1, 3) !== type)
      problems.push(`${name}: TipoeCF ${type ?? 'missing'} is not the e-NCF's type.`);
    if (seen.has(name)) problems.push(`${name}: the key appears twice.`);
    seen.add(name);
  }
  const rfceKeys = new Set(cases.filter((setCase) => setCase.kind === 'RFCE').map((setCase) => setCase.caseKey));
  const routed = new Set(ecf.filter(isRfceRouted).map((setCase) => setCase.caseKey));
  for (const key of rfceKeys)
    if (!routed.has(key)) problems.push(`RFCE ${key}: no ECF case of type 32 under DOP 250,000.00 has its key.`);
  for (const key of routed)
    if (!rfceKeys.has(key)) problems.push(`ECF ${key}: a type 32 under DOP 250,000.00 needs its RFCE case.`);
  for (const setCase of cases) {
    try {
      cellsOfCase(setCase.kind === 'ECF' ? 'ECF' : 'RFCE', setCase.payload);
    } catch (error) {
      problems.push(`${setCase.kind} ${setCase.caseKey}: ${error instanceof Error ? error.message : String(error)}.`);
    }
  }
  return problems.length > 0 ? refused(problems) : { ok: true, cases: [...cases] };
}
