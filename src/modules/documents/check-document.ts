// The judgement of a client's e-CF before anything is taken for it, in one place for its two callers: creation
// (POST /documentos), which numbers, signs and stores what passes, and the preview (POST /documentos/vista-previa),
// which answers the judgement and stops there. The client's JSON is completed with what the service knows
// (compose-document.ts), then checked against the model of its type, the fiscal rules and the totals
// (fiscal/validate-ecf.ts).
import type { Finding } from '../../fiscal/finding.js';
import type { LineaCalculada } from '../../fiscal/totals/index.js';
import { validateEcfDocument } from '../../fiscal/validate-ecf.js';
import { composeDocument, type IssuerProfile } from './compose-document.js';

export type DocumentCheck =
  /** The body cannot be completed (a group of the wrong shape, another company's RNCEmisor): nothing else was checked. */
  | { composed: false; findings: Finding[] }
  | {
      composed: true;
      /** The document as it would be built: the client's values, then the service's defaults and computed totals. */
      document: Record<string, unknown>;
      lineas: LineaCalculada[];
      /** No finding is an error: creation would go on to number and sign it. */
      acceptable: boolean;
      /** Errors and warnings (totals beyond DGII's tolerance), with JSON pointers into the body. */
      findings: Finding[];
    };

export function checkDocument(body: unknown, issuer: IssuerProfile, now: Date): DocumentCheck {
  const composed = composeDocument(body, issuer, now);
  if (!composed.ok) return { composed: false, findings: composed.findings };
  const validation = validateEcfDocument(composed.document, { now });
  return {
    composed: true,
    document: composed.document,
    lineas: composed.lineas,
    acceptable: validation.acceptable,
    findings: validation.findings,
  };
}
