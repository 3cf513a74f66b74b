// What steps 2, 3 and 4 count, and against what: the composition of the postulación's set (research/certification.md
// §4: step 2 counts the set's 21 e-CF sent to reception, its 4 RFCE and 4 consumer-invoice uploads; step 3 its
// approvals; step 4 the same composition as step 2, with the taxpayer's own documents).
import { deriveAcecfCases, isRfceRouted, type SetCase } from '../../fiscal/certification/index.js';
import type { CertRecord } from '../state/postulaciones.js';

export interface StepTally {
  /** e-CF sent to reception, by type. */
  ecf: Record<string, number>;
  rfce: number;
  consumerInvoiceUploads: number;
  approvals: number;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function textAt(value: unknown, path: readonly string[]): string | undefined {
  let current = value;
  for (const name of path) current = isObject(current) ? current[name] : undefined;
  return typeof current === 'string' && current !== '' ? current : undefined;
}

export function encfOfCase(setCase: SetCase): string | undefined {
  return textAt(setCase.payload, ['Encabezado', 'IdDoc', 'eNCF']);
}

/** The set's row of that kind for an e-NCF. */
export function setRowFor(cases: readonly SetCase[], kind: 'ECF' | 'RFCE', encf: string): SetCase | undefined {
  return cases.find((setCase) => setCase.kind === kind && encfOfCase(setCase) === encf);
}

/** Both 2026 sets had this composition (research §2, §4); it stands in until a set is issued. */
const observedComposition: StepTally = {
  ecf: { '31': 4, '32': 2, '33': 1, '34': 2, '41': 2, '43': 2, '44': 2, '45': 2, '46': 2, '47': 2 },
  rfce: 4,
  consumerInvoiceUploads: 4,
  approvals: 11,
};

export function compositionOf(cases: readonly SetCase[] | undefined, rnc: string): StepTally {
  if (cases === undefined) return observedComposition;
  const ecf: Record<string, number> = {};
  for (const setCase of cases) {
    if (setCase.kind !== 'ECF' || isRfceRouted(setCase)) continue;
    const type = setCase.ecfType ?? '';
    ecf[type] = (ecf[type] ?? 0) + 1;
  }
  const rfce = cases.filter((setCase) => setCase.kind === 'RFCE').length;
  return { ecf, rfce, consumerInvoiceUploads: rfce, approvals: deriveAcecfCases(cases, rnc).length };
}

/** What a round's records count: each e-NCF once per kind. */
export function tallyOf(records: readonly CertRecord[]): StepTally {
  const seen = new Set<string>();
  const tally: StepTally = { ecf: {}, rfce: 0, consumerInvoiceUploads: 0, approvals: 0 };
  for (const record of records) {
    const id = `${record.kind} ${record.encf}`;
    if (seen.has(id)) continue;
    seen.add(id);
    switch (record.kind) {
      case 'ecf':
        tally.ecf[record.type] = (tally.ecf[record.type] ?? 0) + 1;
        break;
      case 'rfce':
        tally.rfce += 1;
        break;
      case 'fc_upload':
        tally.consumerInvoiceUploads += 1;
        break;
      case 'acecf':
        tally.approvals += 1;
        break;
    }
  }
  return tally;
}

/** Steps 2 and 4 are done when every count reached the set's; step 3 when every approval came. */
export function documentsComplete(tally: StepTally, expected: StepTally): boolean {
  return (
    Object.entries(expected.ecf).every(([type, count]) => (tally.ecf[type] ?? 0) >= count) &&
    tally.rfce >= expected.rfce &&
    tally.consumerInvoiceUploads >= expected.consumerInvoiceUploads
  );
}

export function approvalsComplete(tally: StepTally, expected: StepTally): boolean {
  return tally.approvals >= expected.approvals;
}
