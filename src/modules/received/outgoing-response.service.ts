// The company's commercial response to a received e-CF (SPEC §3 "Commercial response", §4.6; DESIGN §5.4): build
// the ACECF from what the e-CF said (Formato Aprobación Comercial v1.0), sign it with the company's certificate,
// check it against DGII's ACECF.xsd, archive it as the received document's acecf-xml artefact, and in the same
// transaction record the decision, the timeline event, the domain event and the two deliveries (issuer and DGII)
// with their jobs. Once only: the received document's row lock and the response's primary key decide between
// concurrent requests. The same request again (same decision and reason) answers the response already made, 200;
// a different one is 409 commercial_response_exists naming the first decision.
import type { FiscalEnvironment } from '../../config.js';
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import { buildAcecf, type Acecf } from '../../fiscal/responses/acecf.js';
import { takesCommercialApproval } from '../../fiscal/responses/acecf-read.js';
import { signCanonicalDocument } from '../../fiscal/xmldsig/index.js';
import type { SchemaSet } from '../../fiscal/xsd/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { ResponseDeliveryTarget, ReceivedTables } from './tables.js';
import { transact, type Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { fail, ok, type Result } from '../../platform/result.js';
import { BlobExistsError, type BlobStore } from '../../platform/storage/index.js';
import type { CompaniesService } from '../companies/index.js';
import { receivedArtefactKey, type ReceivedArtefactOwner } from './artefacts.js';
import * as responses from './outgoing-response.repo.js';
import {
  maxRejectionReason,
  type CommercialResponseRequest,
  type ReceivedWithResponseView,
} from './outgoing-response.schema.js';
import * as repo from './received.repo.js';
import type { ReceivedService } from './received.service.js';

/** Queues a delivery of a commercial response, inside the transaction that made it. */
export type ScheduleResponseDelivery = (
  trx: Trx<ReceivedTables>,
  receivedDocumentId: string,
  target: ResponseDeliveryTarget,
) => Promise<void>;

export interface OutgoingResponses {
  /** Makes the company's commercial response to a received document: `created` false when it repeats the one made. */
  respond(
    companyId: string,
    id: string,
    request: CommercialResponseRequest,
  ): Promise<Result<{ created: boolean; view: ReceivedWithResponseView }>>;
}

const targetNames: Record<ResponseDeliveryTarget, string> = {
  issuer: "the issuer's receiver",
  dgii: "DGII's ACECF service",
};
export const responseTargets: readonly ResponseDeliveryTarget[] = ['issuer', 'dgii'];

type Decision = { decision: 'approved'; reason: undefined } | { decision: 'rejected'; reason: string };

/** The request's decision, or the 422 naming /reason. */
function decisionOf(request: CommercialResponseRequest): Result<Decision> {
  const invalid = (code: string, detail: string) =>
    fail('commercial_response_invalid', detail, [{ pointer: '/reason', in: 'body', code, detail }]);
  if (request.decision === 'approved') {
    if (request.reason !== undefined)
      return invalid(
        'reason_not_allowed',
        'An approval carries no reason: DetalleMotivoRechazo is only for a rejection (ACECF Estado 2).',
      );
    return ok({ decision: 'approved', reason: undefined });
  }
  const reason = request.reason?.trim() ?? '';
  if (reason === '')
    return invalid('reason_required', 'A rejection must say why: reason (DetalleMotivoRechazo) is required.');
  if (reason.length > maxRejectionReason)
    return invalid(
      'too_long',
      `reason has ${String(reason.length)} characters; DetalleMotivoRechazo takes at most ${String(maxRejectionReason)}.`,
    );
  return ok({ decision: 'rejected', reason });
}

export function createOutgoingResponses(deps: {
  db: Db<ReceivedTables>;
  clock: Clock;
  blobs: BlobStore;
  environment: FiscalEnvironment;
  schemas: SchemaSet | undefined;
  companies: Pick<CompaniesService, 'get' | 'signingIdentity'>;
  received: Pick<ReceivedService, 'get'>;
  scheduleDelivery: ScheduleResponseDelivery;
  /** Deliveries were queued and committed: this process's workers may take them at once. */
  queued?: () => void;
}): OutgoingResponses {
  const { db, clock, blobs, environment, schemas, companies, received, scheduleDelivery } = deps;

  /** Archives the signed bytes write-once; a version left by a transaction that rolled back is skipped. */
  async function archive(
    owner: ReceivedArtefactOwner,
    bytes: Buffer,
  ): Promise<{ key: string; version: number; sha256: string; size: number }> {
    for (let version = 1; ; version++) {
      const key = receivedArtefactKey(owner, 'acecf-xml', version);
      try {
        const stored = await blobs.put(key, bytes, { contentType: 'application/xml', fresh: true });
        return { key, version, sha256: stored.sha256, size: stored.size };
      } catch (error) {
        if (!(error instanceof BlobExistsError) || version >= 5) throw error;
      }
    }
  }

  return {
    async respond(companyId, id, request) {
      const decided = decisionOf(request);
      if (!decided.ok) return decided;
      const { decision, reason } = decided.value;
      const company = await companies.get(companyId);
      if (company === undefined) return fail('company_not_found', `No company ${companyId}.`);
      const key = await companies.signingIdentity(companyId);

      const made = await transact(db, async (trx) => {
        const row = await responses.lockReceived(trx, companyId, environment, id);
        if (row === undefined) return fail('document_not_found', `No received document ${id}.`);
        const existing = await responses.findResponse(trx, id);
        if (existing !== undefined) {
          if (existing.decision === decision && (existing.reason ?? undefined) === reason) return ok(false);
          return fail(
            'commercial_response_exists',
            `Received document ${id} was already ${existing.decision}${existing.reason === null ? '' : ` (reason: ${existing.reason})`} on ${existing.created_at.toISOString()}; a commercial response is made once.`,
            [
              {
                pointer: '/decision',
                in: 'body',
                code: `already_${existing.decision}`,
                detail: `The first decision stands: ${existing.decision}.`,
              },
            ],
          );
        }
        if (row.status !== 'received') {
          return fail(
            'received_not_accepted',
            `Received document ${id} was not received (ARECF Estado 1, CodigoMotivoNoRecibido ${row.reason_code ?? '?'}): only an e-CF acknowledged with Estado 0 takes a commercial response.`,
          );
        }
        if (
          !takesCommercialApproval(row.encf) ||
          (row.ecf_type !== null && !takesCommercialApproval(`E${row.ecf_type}`))
        ) {
          return fail(
            'acecf_not_applicable',
            `An e-CF of type ${row.ecf_type ?? row.encf.slice(1, 3)} takes no commercial approval (Aprobación Comercial no es requerida para este tipo de e-CF).`,
          );
        }
        if (key === undefined)
          return fail(
            'certificate_missing',
            'The company has no certificate to sign the ACECF with: install one first.',
          );
        if (row.fecha_emision === null || row.monto_total === null)
          return fail('received_not_accepted', `Received document ${id} lacks its FechaEmision or MontoTotal.`);

        const now = clock.now();
        const fechaHora = formatDgiiTimestamp(now);
        const base = {
          RNCEmisor: row.issuer_rnc,
          eNCF: row.encf,
          FechaEmision: row.fecha_emision,
          MontoTotal: row.monto_total,
          RNCComprador: company.rnc,
          FechaHoraAprobacionComercial: fechaHora,
        };
        const approval: Acecf =
          decision === 'approved' ? { ...base, Estado: '1' } : { ...base, Estado: '2', DetalleMotivoRechazo: reason };
        const built = buildAcecf(approval);
        if (!built.ok)
          return fail(
            'commercial_response_invalid',
            'The ACECF could not be built from the received e-CF.',
            built.findings.map((finding) => ({
              pointer: finding.pointer,
              in: 'body' as const,
              code: finding.code,
              detail: finding.message,
            })),
          );
        const signed = Buffer.from(signCanonicalDocument(built.xml, key), 'utf8');
        // Everything we sign passes DGII's schema before it is kept or sent.
        const findings = schemas?.validate('ACECF', signed) ?? [];
        if (findings.length > 0) {
          return fail(
            'commercial_response_invalid',
            "The ACECF built from this received e-CF does not pass DGII's ACECF.xsd.",
            findings.map((finding) => ({
              pointer: finding.path,
              in: 'body' as const,
              code: finding.code,
              detail: finding.message,
            })),
          );
        }

        const stored = await archive({ companyId, receivedId: id, receivedAt: row.received_at }, signed);
        await repo
          .insertArtefactsStatement(trx, [
            {
              received_document_id: id,
              kind: 'acecf-xml',
              version: stored.version,
              blob_key: stored.key,
              sha256: stored.sha256,
              size: stored.size,
              content_type: 'application/xml',
              created_at: now,
            },
          ])
          .execute();
        await responses.insertResponse(trx, {
          received_document_id: id,
          company_id: companyId,
          environment,
          decision,
          reason: reason ?? null,
          fecha_hora_aprobacion: fechaHora,
          created_at: now,
        });
        await responses.insertDeliveries(
          trx,
          responseTargets.map((target) => ({
            received_document_id: id,
            target,
            company_id: companyId,
            environment,
            status: 'pending' as const,
            answer: null,
            next_attempt_at: now,
            created_at: now,
            updated_at: now,
          })),
        );
        await responses.setCommercialStatus(trx, id, decision, now);
        const estado = decision === 'approved' ? 'Estado 1 (e-CF Aceptado)' : `Estado 2 (e-CF Rechazado: ${reason})`;
        await repo
          .insertEventStatement(trx, {
            receivedDocumentId: id,
            at: now,
            type: 'commercial_response.created',
            status: decision,
            cause: `ACECF ${estado} signed and archived; delivering it to ${targetNames.issuer} (${row.issuer_rnc}) and to ${targetNames.dgii}`,
          })
          .execute();
        await recordDomainEvent(trx, {
          companyId,
          environment,
          type: 'received_document.commercial_response_created',
          payload: {
            receivedDocumentId: id,
            issuerRnc: row.issuer_rnc,
            eNCF: row.encf,
            ecfType: row.ecf_type,
            decision,
            reason: reason ?? null,
          },
          occurredAt: now,
        });
        for (const target of responseTargets) await scheduleDelivery(trx, id, target);
        return ok(true);
      });
      if (!made.ok) return made;
      if (made.value) deps.queued?.();
      const view = await received.get(companyId, id);
      return view.ok ? ok({ created: made.value, view: view.value }) : view;
    },
  };
}
