// What the verifier finds wrong with one archived artefact, from its record and the bytes the store returned. The
// checks run in order and stop at the first failure of the content: bytes other than the archived ones say nothing
// of the signature or the record, so a tampered blob is one finding (content_mismatch), not three. Retention is
// independent of the content and checked apart (retentionFailure).
import { verifyEnvelopedSignature } from '../../fiscal/xmldsig/index.js';
import { recordedFieldMismatches, type RecordedFields } from '../../fiscal/rules/record-fields.js';
import { sha256Hex, type ObjectRetention } from '../../platform/storage/index.js';
import type { XmlChecks } from '../../platform/xml-checks/index.js';
import type { ArchivedArtefact } from './inventory.repo.js';

export const findingKinds = {
  missing_blob: { severity: 'critical', title: 'The record names a blob the store does not have.' },
  content_mismatch: { severity: 'critical', title: "The blob's size or SHA-256 differs from the record's." },
  bad_signature: { severity: 'critical', title: "The signed XML's signature no longer verifies." },
  record_mismatch: { severity: 'critical', title: 'The signed XML no longer says what its record says.' },
  short_retention: {
    severity: 'critical',
    title: "The object's Object Lock retention is missing or ends before the required horizon.",
  },
  orphan_blob: { severity: 'warning', title: 'A blob no record names, older than the grace period.' },
} as const;

export type FindingKind = keyof typeof findingKinds;

export interface Failure {
  kind: FindingKind;
  detail: string;
}

/** Artefacts that are XMLDSig-signed documents (sources are not signed). */
const signedKinds = new Set(['signed-xml', 'rfce-xml', 'acecf-xml', 'received-xml', 'arecf-xml', 'anecf-xml']);

export async function contentFailure(
  artefact: ArchivedArtefact,
  bytes: Buffer | undefined,
  xmlChecks: Pick<XmlChecks, 'readSignedEcf'>,
): Promise<Failure | undefined> {
  if (bytes === undefined) return { kind: 'missing_blob', detail: `The store has no object ${artefact.key}.` };
  const sha256 = sha256Hex(bytes);
  const sizeDiffers = artefact.size !== null && artefact.size !== bytes.byteLength;
  if (sizeDiffers || (artefact.sha256 !== null && artefact.sha256 !== sha256))
    return {
      kind: 'content_mismatch',
      detail: `Recorded ${artefact.size ?? '?'} bytes with SHA-256 ${artefact.sha256 ?? '(none)'}; stored ${String(bytes.byteLength)} bytes with SHA-256 ${sha256}.`,
    };
  if (!signedKinds.has(artefact.kind)) return undefined;
  // A received e-CF refused at reception ("not received") may never have verified: its bytes are kept as they came.
  if (artefact.kind === 'received-xml' && artefact.status !== 'received') return undefined;
  const main = mainXmlFields(artefact);
  if (main === undefined) {
    const verdict = verifyEnvelopedSignature(bytes);
    return verdict.ok ? undefined : signatureFailure(verdict.problems);
  }
  const reading = await xmlChecks.readSignedEcf(bytes);
  if (!reading.verdict.ok) return signatureFailure(reading.verdict.problems);
  const document = reading.parsed.ok ? reading.parsed.document : undefined;
  const mismatches = recordedFieldMismatches(document, main, reading.verdict.securityCode);
  return mismatches.length === 0
    ? undefined
    : { kind: 'record_mismatch', detail: `The signed XML disagrees with the record on ${mismatches.join(', ')}.` };
}

/** The record's copy of the fields of the owner's main XML (the e-CF issued or received), if this artefact is it. */
function mainXmlFields(artefact: ArchivedArtefact): RecordedFields | undefined {
  if (artefact.owner === 'document' && artefact.kind === 'signed-xml')
    return {
      eNCF: artefact.encf,
      TipoeCF: artefact.ecfType,
      FechaEmision: artefact.fechaEmision,
      MontoTotal: artefact.montoTotal,
      FechaHoraFirma: artefact.fechaHoraFirma,
      CodigoSeguridad: artefact.securityCode,
    };
  if (artefact.owner === 'received_document' && artefact.kind === 'received-xml')
    return {
      eNCF: artefact.encf,
      RNCEmisor: artefact.issuerRnc,
      // Null where the reception could not read them; then there is nothing recorded to compare.
      ...(artefact.ecfType === null ? {} : { TipoeCF: artefact.ecfType }),
      ...(artefact.fechaEmision === null ? {} : { FechaEmision: artefact.fechaEmision }),
      ...(artefact.montoTotal === null ? {} : { MontoTotal: artefact.montoTotal }),
    };
  return undefined;
}

function signatureFailure(problems: readonly { code: string; message: string }[]): Failure {
  return {
    kind: 'bad_signature',
    detail: `The signature does not verify: ${problems.map((problem) => `${problem.code} (${problem.message})`).join('; ')}.`,
  };
}

/**
 * With Object Lock required (S3_OBJECT_LOCK_DAYS), the object must be locked in COMPLIANCE mode until at least its
 * record's creation plus those days; an hour of slack covers the moments between the put and the record.
 */
export function retentionFailure(
  artefact: ArchivedArtefact,
  retention: ObjectRetention | undefined,
  requiredDays: number,
): Failure | undefined {
  const horizon = new Date(artefact.createdAt.getTime() + requiredDays * 86_400_000 - 3_600_000);
  if (retention?.retainUntil === undefined || retention.mode === undefined)
    return {
      kind: 'short_retention',
      detail: `The object has no Object Lock retention; it must be locked until ${horizon.toISOString()} or later.`,
    };
  if (retention.mode !== 'COMPLIANCE' || retention.retainUntil < horizon)
    return {
      kind: 'short_retention',
      detail: `The object is locked in ${retention.mode} mode until ${retention.retainUntil.toISOString()}; it must be COMPLIANCE until ${horizon.toISOString()} or later.`,
    };
  return undefined;
}
