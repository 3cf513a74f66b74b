// The derived views of a document, all read from what was archived rather than from the database columns: the
// signed XML is the fiscal record, so the model, the printed data and the integrity verdict come from its bytes.
// Integrity has three independent checks, because each catches a different failure: the SHA-256 recorded at
// archiving (storage changed the bytes), the XMLDSig signature (the content changed after signing, even if someone
// also rewrote the hash), and the record (the XML no longer says what the document row says).
import { recordedFieldMismatches, type RecordedFields } from '../../fiscal/rules/record-fields.js';
import { createHash } from 'node:crypto';
import type { FiscalEnvironment } from '../../config.js';
import type { EcfObject } from '../../fiscal/build/index.js';
import type { Db } from '../../platform/db/database.js';
import { fail, ok, type Result } from '../../platform/result.js';
import type { BlobStore } from '../../platform/storage/index.js';
import type { XmlChecks } from '../../platform/xml-checks/index.js';
import type { DocumentTimeline, NormalizedDocument } from './document-views.schema.js';
import { printableOf, type PrintableDocument } from '../printing/index.js';
import * as repo from './documents.repo.js';
import type { DocumentsTables } from './tables.js';

/** Plain functions (no `this`), so the documents service can hand them on as its own. */
export interface DocumentViews {
  normalized: (companyId: string, id: string) => Promise<Result<NormalizedDocument>>;
  printable: (companyId: string, id: string) => Promise<Result<PrintableDocument>>;
  /**
   * The printed data, the e-CF it was read from and the signed bytes (their SHA-256 checked), from one reading: a
   * delivery needs the buyer's e-mail and the bytes too.
   */
  printableWithModel: (
    companyId: string,
    id: string,
    known?: ArchivedRead,
  ) => Promise<Result<{ printable: PrintableDocument; document: EcfObject; signedXml: Buffer }>>;
  timeline: (companyId: string, id: string) => Promise<Result<DocumentTimeline>>;
}

/** What a caller read already (the deliveries load many at once): the row, its signed-xml artefact and its bytes. */
export interface ArchivedRead {
  row: repo.DocumentRow;
  artefact: repo.ArtefactRow;
  bytes: Buffer;
}

interface SignedReading {
  row: repo.DocumentRow;
  view: NormalizedDocument;
  /** The parsed model, when the bytes are still a readable e-CF. */
  document: EcfObject | undefined;
  /** The security code from the SignatureValue that verified; undefined unless the signature is valid. */
  securityCode: string | undefined;
  /** The archived signed bytes read; undefined when the blob is gone. */
  bytes: Buffer | undefined;
}

export function createDocumentViews(deps: {
  db: Db<DocumentsTables>;
  blobs: BlobStore;
  environment: FiscalEnvironment;
  xmlChecks: XmlChecks;
}): DocumentViews {
  const { db, blobs, environment, xmlChecks } = deps;

  async function readStored(
    companyId: string,
    id: string,
  ): Promise<Result<Omit<ArchivedRead, 'bytes'> & { bytes: Buffer | undefined }>> {
    const row = await repo.findDocument(db, companyId, environment, id);
    if (row === undefined) return fail('document_not_found', `No document ${id}.`);
    const artefact = await repo.findArtefact(db, id, 'signed-xml', undefined);
    if (artefact === undefined) throw new Error(`document ${id} has no signed-xml artefact`);
    return ok({ row, artefact, bytes: await blobs.get(artefact.blob_key) });
  }

  async function readSigned(companyId: string, id: string, known?: ArchivedRead): Promise<Result<SignedReading>> {
    const archived = known === undefined ? await readStored(companyId, id) : ok(known);
    if (!archived.ok) return archived;
    const { row, artefact, bytes } = archived.value;
    const sha256 = bytes === undefined ? null : createHash('sha256').update(bytes).digest('hex');
    const reading = bytes === undefined ? undefined : await xmlChecks.readSignedEcf(bytes);
    const verdict = reading?.verdict;
    const parsed = reading?.parsed;
    const document = parsed?.ok === true ? parsed.document : undefined;
    const code = verdict?.ok === true ? verdict.securityCode : undefined;
    const mismatches = recordedFieldMismatches(document, recordedFieldsOf(row), code);
    const view: NormalizedDocument = {
      id: row.id,
      eNCF: row.encf,
      artefact: { type: 'signed-xml', version: artefact.version },
      document: document ?? null,
      readFindings:
        bytes === undefined
          ? [
              {
                pointer: '/',
                code: 'blob_missing',
                detail: `The archived blob ${artefact.blob_key} is missing from storage.`,
              },
            ]
          : parsed?.ok === false
            ? parsed.findings.map((finding) => ({
                pointer: finding.pointer,
                code: finding.code,
                detail: finding.message,
              }))
            : [],
      integrity: {
        sha256,
        recordedSha256: artefact.sha256,
        sha256Matches: sha256 === artefact.sha256,
        signatureValid: verdict?.ok === true,
        signatureProblems:
          verdict === undefined
            ? [{ code: 'blob_missing', message: 'Nothing to verify: the blob is missing.' }]
            : verdict.ok
              ? []
              : verdict.problems.map((problem) => ({ code: problem.code, message: problem.message })),
        recordMatches: mismatches.length === 0,
        recordMismatches: mismatches,
      },
    };
    return ok({ row, view, document, securityCode: code, bytes });
  }

  async function printableWithModel(
    companyId: string,
    id: string,
    known?: ArchivedRead,
  ): Promise<Result<{ printable: PrintableDocument; document: EcfObject; signedXml: Buffer }>> {
    const reading = await readSigned(companyId, id, known);
    if (!reading.ok) return reading;
    const { row, view, document, securityCode: code, bytes } = reading.value;
    const { integrity } = view;
    // Printing a document whose archived bytes no longer hold would hand a customer something nobody signed.
    if (
      document === undefined ||
      code === undefined ||
      bytes === undefined ||
      !integrity.sha256Matches ||
      !integrity.recordMatches
    ) {
      const failed = [
        integrity.sha256Matches ? undefined : 'the SHA-256 differs from the one recorded',
        integrity.signatureValid ? undefined : 'the signature does not verify',
        integrity.recordMatches
          ? undefined
          : `the XML disagrees with the record on ${integrity.recordMismatches.join(', ')}`,
      ].filter((reason): reason is string => reason !== undefined);
      return fail(
        'document_integrity_failed',
        `The archived signed XML of ${id} cannot be printed: ${failed.join('; ')}. See GET /api/v1/documentos/${id}/normalizado.`,
      );
    }
    const printable = printableOf(document, {
      id: row.id,
      status: row.status,
      environment,
      securityCode: code,
      acceptedByDgii: row.status === 'accepted' || row.status === 'accepted_conditional',
      contingency: row.issued_in_contingency,
    });
    return ok({ printable, document, signedXml: bytes });
  }

  return {
    async normalized(companyId, id) {
      const reading = await readSigned(companyId, id);
      return reading.ok ? ok(reading.value.view) : reading;
    },

    async printable(companyId, id) {
      const read = await printableWithModel(companyId, id);
      return read.ok ? ok(read.value.printable) : read;
    },

    printableWithModel,

    async timeline(companyId, id) {
      const row = await repo.findDocument(db, companyId, environment, id);
      if (row === undefined) return fail('document_not_found', `No document ${id}.`);
      const events = await repo.eventsOf(db, id);
      return ok({
        id: row.id,
        eNCF: row.encf,
        status: row.status,
        events: events.map((event) => ({
          at: event.at.toISOString(),
          type: event.type,
          status: event.status,
          cause: event.cause,
          correlationId: event.correlation_id,
        })),
      });
    },
  };
}

/** The fields the document row copied from its signed XML when it was archived. */
export function recordedFieldsOf(
  row: Pick<
    repo.DocumentRow,
    'encf' | 'ecf_type' | 'fecha_emision' | 'monto_total' | 'fecha_hora_firma' | 'security_code'
  >,
): RecordedFields {
  return {
    eNCF: row.encf,
    TipoeCF: row.ecf_type,
    FechaEmision: row.fecha_emision,
    MontoTotal: row.monto_total,
    FechaHoraFirma: row.fecha_hora_firma,
    CodigoSeguridad: row.security_code,
  };
}
