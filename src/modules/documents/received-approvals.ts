// A buyer's commercial answer (ACECF) to an e-CF this company issued (Formato Aprobación Comercial v1.0; SPEC §4.9,
// research/dgii-protocol.md §6.3): the receiver route (POST .../fe/aprobacioncomercial/api/ecf) hands us the bytes.
// It must be an ACECF that passes DGII's schema, carry a valid XMLDSig signature, and name one of the company's
// documents with that document's buyer, issue date and total. Then its exact bytes become the document's acecf-xml
// artefact and one transaction records the decision, a timeline event and the domain event.
//
// A document takes one commercial answer. The same bytes again (a buyer retrying after a lost 200) are answered as
// the first time and change nothing; a different ACECF for a document that already has one is refused
// (acecf_already_received): the first answer stands, as at DGII, which takes one per e-CF.
import { createHash } from 'node:crypto';
import type { FiscalEnvironment } from '../../config.js';
import { parseXmlTree } from '../../fiscal/parse/index.js';
import {
  acecfDecision,
  acecfMismatches,
  readAcecf,
  takesCommercialApproval,
  type AcecfMismatch,
} from '../../fiscal/responses/acecf-read.js';
import { verifyEnvelopedSignature } from '../../fiscal/xmldsig/index.js';
import type { SchemaSet } from '../../fiscal/xsd/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { transact } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { fail, ok, type FieldError, type ProblemCode, type Result } from '../../platform/result.js';
import { BlobExistsError, type BlobStore } from '../../platform/storage/index.js';
import type { CompaniesService } from '../companies/index.js';
import { archiveArtefacts } from './artefacts.js';
import * as approvals from './received-approvals.repo.js';
import * as repo from './documents.repo.js';
import type { DocumentsTables } from './tables.js';

export type CommercialDecision = 'approved' | 'rejected';

export interface ReceivedApprovals {
  /** Records the buyer's ACECF `xml` (exact bytes) for one of the company's documents. */
  receive(companyId: string, xml: Buffer): Promise<Result<{ documentId: string; decision: CommercialDecision }>>;
}

const detailPath = '/ACECF/DetalleAprobacionComercial';

function at(field: string, code: string, detail: string): FieldError {
  return { pointer: `${detailPath}/${field}`, in: 'body', code, detail };
}

const mismatchCodes: Record<AcecfMismatch, { problem: ProblemCode; code: string; what: string }> = {
  RNCComprador: { problem: 'acecf_buyer_mismatch', code: 'buyer_mismatch', what: 'the buyer (RNCComprador)' },
  FechaEmision: { problem: 'acecf_date_mismatch', code: 'date_mismatch', what: 'the issue date (FechaEmision)' },
  MontoTotal: { problem: 'acecf_amount_mismatch', code: 'amount_mismatch', what: 'the total (MontoTotal)' },
};

function recordedOf(row: repo.DocumentRow): Record<AcecfMismatch, string | null> {
  return { RNCComprador: row.rnc_comprador, FechaEmision: row.fecha_emision, MontoTotal: row.monto_total };
}

export function createReceivedApprovals(deps: {
  db: Db<DocumentsTables>;
  clock: Clock;
  blobs: BlobStore;
  environment: FiscalEnvironment;
  companies: CompaniesService;
  schemas: SchemaSet | undefined;
  /**
   * Whether DGII's certification test of the company's approval receiver (step 11) is open and `encf` is one of the
   * set's: DGII then sends ACECFs whose RNCComprador is its own test taxpayer, not the e-CF's buyer, and expects 200
   * (research/certification.md §1, "Step 11 in detail"). Such a buyer mismatch is recorded, not refused.
   */
  certificationApprovalTest?: (companyId: string, encf: string) => Promise<boolean>;
}): ReceivedApprovals {
  const { db, clock, blobs, environment, companies, schemas } = deps;

  /** A second ACECF for a document that has one: the same bytes are the first answer again, others are refused. */
  function answeredBefore(
    row: repo.DocumentRow,
    existing: approvals.ReceivedApprovalRow,
    sha256: string,
  ): Result<{ documentId: string; decision: CommercialDecision }> {
    if (existing.acecf_sha256 === sha256) return ok({ documentId: row.id, decision: existing.decision });
    return fail(
      'acecf_already_received',
      `Document ${row.id} (e-NCF ${row.encf}) already has the buyer's commercial answer, ${existing.decision}, received ${existing.received_at.toISOString()}; a document takes one. This ACECF differs from it and is not recorded.`,
    );
  }

  return {
    async receive(companyId, xml) {
      const parsed = parseXmlTree(xml);
      if (!parsed.ok)
        return fail(
          'acecf_malformed',
          `The body is not an XML document that can be read: ${parsed.findings.map((finding) => finding.message).join('; ')}.`,
          parsed.findings.map((finding) => ({
            pointer: finding.pointer,
            in: 'body',
            code: finding.code,
            detail: finding.message,
          })),
        );
      if (parsed.root !== 'ACECF')
        return fail('acecf_malformed', `The root element is ${parsed.root}; a commercial approval is an ACECF.`, [
          { pointer: `/${parsed.root}`, in: 'body', code: 'not_an_acecf', detail: 'The root element must be ACECF.' },
        ]);
      const schemaFindings = schemas?.validate('ACECF', xml) ?? [];
      if (schemaFindings.length > 0) {
        return fail(
          'acecf_schema_invalid',
          "The ACECF does not pass DGII's ACECF schema.",
          schemaFindings
            .slice(0, 20)
            .map((finding) => ({ pointer: finding.path, in: 'body', code: finding.code, detail: finding.message })),
        );
      }
      const approval = readAcecf(parsed.tree);
      if (approval === undefined)
        return fail(
          'acecf_malformed',
          'The ACECF lacks DetalleAprobacionComercial or one of RNCEmisor, eNCF, FechaEmision, MontoTotal, RNCComprador and Estado.',
          [
            {
              pointer: detailPath,
              in: 'body',
              code: 'required',
              detail: 'Formato Aprobación Comercial §4: these fields are required.',
            },
          ],
        );
      const verified = verifyEnvelopedSignature(xml);
      if (!verified.ok)
        return fail(
          'acecf_not_verified',
          'The signature of the ACECF does not verify.',
          verified.problems.map((problem) => ({
            pointer: '/ACECF/Signature',
            in: 'body',
            code: problem.code,
            detail: problem.message,
          })),
        );
      const decision = acecfDecision(approval);
      if ('problem' in decision) {
        const error = {
          estado_invalid: at(
            'Estado',
            'estado_invalid',
            `Estado is 1 (e-CF Aceptado) or 2 (e-CF Rechazado), not ${approval.Estado}.`,
          ),
          reason_required: at(
            'DetalleMotivoRechazo',
            'reason_required',
            'A rejection (Estado 2) says why in DetalleMotivoRechazo.',
          ),
          reason_not_allowed: at(
            'DetalleMotivoRechazo',
            'reason_not_allowed',
            'DetalleMotivoRechazo goes only with a rejection (Estado 2).',
          ),
        }[decision.problem];
        return fail('acecf_decision_invalid', error.detail, [error]);
      }

      const company = await companies.get(companyId);
      if (company === undefined) return fail('company_not_found', `No company ${companyId}.`);
      if (approval.RNCEmisor !== company.rnc) {
        return fail(
          'acecf_no_matching_document',
          `The ACECF is about an e-CF issued by ${approval.RNCEmisor}, not by this company (${company.rnc}).`,
          [at('RNCEmisor', 'not_the_issuer', `RNCEmisor must be ${company.rnc}.`)],
        );
      }
      const row = await repo.findByEncf(db, companyId, environment, approval.eNCF);
      if (row === undefined)
        return fail('acecf_no_matching_document', `This company issued no e-CF ${approval.eNCF} in ${environment}.`, [
          at('eNCF', 'unknown_encf', `No document of this company has e-NCF ${approval.eNCF}.`),
        ]);
      // DT simulator validations: "Aprobación Comercial no es requerida para este tipo de e-CF".
      if (!takesCommercialApproval(row.encf))
        return fail(
          'acecf_not_applicable',
          `e-CF of type ${row.ecf_type} take no commercial approval (types 32, 41, 43, 46 and 47 are never sent to a buyer).`,
          [at('eNCF', 'type_takes_no_approval', `Document ${row.id} is of type ${row.ecf_type}.`)],
        );
      const recorded = recordedOf(row);
      const mismatches = acecfMismatches(approval, {
        RNCComprador: row.rnc_comprador,
        FechaEmision: row.fecha_emision,
        MontoTotal: row.monto_total,
      });
      const [first] = mismatches;
      const certificationTest =
        first !== undefined &&
        mismatches.every((field) => field === 'RNCComprador') &&
        (await deps.certificationApprovalTest?.(companyId, row.encf)) === true;
      if (first !== undefined && !certificationTest) {
        const errors = mismatches.map((field) =>
          at(
            field,
            mismatchCodes[field].code,
            `The ACECF says ${approval[field]}; document ${row.id} has ${recorded[field] ?? '(none)'}.`,
          ),
        );
        return fail(
          mismatchCodes[first].problem,
          `The ACECF does not match e-CF ${row.encf} in ${mismatches.map((field) => mismatchCodes[field].what).join(', ')}.`,
          errors,
        );
      }

      const sha256 = createHash('sha256').update(xml).digest('hex');
      const [existing] = await approvals.receivedApprovalsOf(db, [row.id]);
      if (existing !== undefined) return answeredBefore(row, existing, sha256);

      const now = clock.now();
      let artefacts: repo.ArtefactRow[];
      try {
        artefacts = await archiveArtefacts(
          blobs,
          { companyId, documentId: row.id, createdAt: row.created_at },
          { 'acecf-xml': xml },
          now,
          false,
        );
      } catch (error) {
        // Another ACECF's bytes hold the key: one recorded meanwhile, or one whose recording stopped after its write.
        if (!(error instanceof BlobExistsError)) throw error;
        const [winner] = await approvals.receivedApprovalsOf(db, [row.id]);
        if (winner !== undefined) return answeredBefore(row, winner, sha256);
        return fail(
          'acecf_already_received',
          `Another ACECF for document ${row.id} (e-NCF ${row.encf}) was archived first; this one is not recorded.`,
        );
      }
      const { decision: outcome, reason } = decision;
      const inserted = await transact(db, async (trx) => {
        const first = await approvals.insertReceivedApproval(trx, {
          document_id: row.id,
          decision: outcome,
          reason: reason ?? null,
          rnc_comprador: approval.RNCComprador,
          fecha_hora_aprobacion: approval.FechaHoraAprobacionComercial ?? null,
          acecf_sha256: sha256,
          received_at: now,
        });
        if (!first) return ok(false);
        await repo.insertArtefactsStatement(trx, artefacts).execute();
        const signed =
          approval.FechaHoraAprobacionComercial === undefined ? '' : ` of ${approval.FechaHoraAprobacionComercial}`;
        const test = certificationTest
          ? ` (DGII's certification test of the approval receiver; the e-CF's buyer is ${row.rnc_comprador ?? '(none)'})`
          : '';
        const cause =
          outcome === 'approved'
            ? `ACECF${signed} from buyer ${approval.RNCComprador}: approved (Estado 1)${test}`
            : `ACECF${signed} from buyer ${approval.RNCComprador}: rejected (Estado 2): ${reason}${test}`;
        await repo
          .insertEventStatement(trx, {
            documentId: row.id,
            at: now,
            type: `commercial.${outcome}`,
            status: null,
            cause,
          })
          .execute();
        await recordDomainEvent(trx, {
          companyId,
          environment,
          type: 'document.commercial_approval_received',
          payload: {
            documentId: row.id,
            eNCF: row.encf,
            ecfType: row.ecf_type,
            decision: outcome,
            reason: reason ?? null,
            rncComprador: approval.RNCComprador,
          },
          dedupeKey: `document.commercial_approval_received:${row.id}`,
          occurredAt: now,
        });
        return ok(true);
      });
      if (!inserted.ok) return inserted;
      if (inserted.value) return ok({ documentId: row.id, decision: outcome });
      // A concurrent call with the same bytes recorded it first.
      const [winner] = await approvals.receivedApprovalsOf(db, [row.id]);
      if (winner === undefined)
        throw new Error(`document ${row.id}: the commercial response that won the insert is gone`);
      return answeredBefore(row, winner, sha256);
    },
  };
}
