// A set's defects as the problem iniciar answers: every defective case with its pointer into the request.
import type { CaseFinding } from '../../fiscal/certification/index.js';
import { fail } from '../../platform/result.js';

export function setFindingsProblem(findings: readonly CaseFinding[]) {
  return fail(
    'certification_set_invalid',
    `The set has ${String(findings.length)} defect(s) in ${String(new Set(findings.map((finding) => finding.index)).size)} case(s); nothing was started. Correct the set (say so in its label) or get a new one from the portal.`,
    findings.map((finding) => ({
      pointer: `/cases/${String(finding.index)}${finding.pointer === '/caseKey' || finding.pointer === '' ? finding.pointer : `/payload${finding.pointer}`}`,
      in: 'body' as const,
      code: finding.code,
      detail: `${finding.caseKey}: ${finding.message}`,
    })),
  );
}
