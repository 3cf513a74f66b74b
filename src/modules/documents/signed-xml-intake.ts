// Signed XML handed in (POST /api/v1/documentos/xml-firmado): a document the integrator or a device signed itself.
// Its signature must verify and it must pass DGII's schema; its issuer must be the key's company and its e-NCF one
// of the company's authorised, unused numbers (claimed here, so it is never given again). The exact bytes received
// are archived: a signed document is never re-serialised.
import { isoDateOfDgiiDate } from '../../fiscal/dates.js';
import { textAt } from '../../fiscal/rules/document-view.js';
import type { FiscalEnvironment } from '../../config.js';
import { timbreUrl } from '../../fiscal/timbre-url.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { transact } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { fail, ok, type FieldError, type Result } from '../../platform/result.js';
import { newId } from '../../platform/ids.js';
import type { BlobStore } from '../../platform/storage/index.js';
import type { XmlChecks } from '../../platform/xml-checks/index.js';
import type { CompaniesService } from '../companies/index.js';
import type { SequencesService } from '../sequences/index.js';
import { archiveArtefacts } from './artefacts.js';
import * as repo from './documents.repo.js';
import type { DocumentsTables } from './tables.js';

export interface SignedXmlIntake {
  /** The id of the document recorded for the XML. */
  intake(companyId: string, xml: Buffer): Promise<Result<string>>;
}

function refusal(detail: string, errors: FieldError[]): Result<never> {
  return fail('signed_xml_invalid', detail, errors);
}

export function createSignedXmlIntake(deps: {
  db: Db<DocumentsTables>;
  clock: Clock;
  blobs: BlobStore;
  environment: FiscalEnvironment;
  companies: CompaniesService;
  sequences: SequencesService;
  xmlChecks: XmlChecks;
}): SignedXmlIntake {
  const { db, clock, blobs, environment, companies, sequences, xmlChecks } = deps;
  return {
    async intake(companyId, xml) {
      const checked = await xmlChecks.checkSignedEcf(xml);
      if (!checked.ok)
        return refusal(
          checked.detail,
          checked.errors.map((error) => ({ ...error, in: 'body' })),
        );
      const document = checked.document;
      const company = await companies.get(companyId);
      if (company === undefined) return fail('company_not_found', `No company ${companyId}.`);
      const rncEmisor = textAt(document, ['Encabezado', 'Emisor', 'RNCEmisor']);
      if (rncEmisor !== company.rnc) {
        return fail(
          'document_invalid',
          `RNCEmisor ${rncEmisor ?? '(none)'} is not the RNC of the company this key belongs to (${company.rnc}).`,
          [
            {
              pointer: '/ECF/Encabezado/Emisor/RNCEmisor',
              in: 'body',
              code: 'not_the_issuer',
              detail: "The e-CF must be issued by the key's company.",
            },
          ],
        );
      }
      const ecfType = textAt(document, ['Encabezado', 'IdDoc', 'TipoeCF']) ?? '';
      const encf = textAt(document, ['Encabezado', 'IdDoc', 'eNCF']) ?? '';
      const montoTotal = textAt(document, ['Encabezado', 'Totales', 'MontoTotal']) ?? '0.00';
      const rncComprador = textAt(document, ['Encabezado', 'Comprador', 'RNCComprador']);
      const fechaEmision = textAt(document, ['Encabezado', 'Emisor', 'FechaEmision']) ?? '';
      const fechaHoraFirma = textAt(document, ['FechaHoraFirma']) ?? '';
      const now = clock.now();
      const id = newId('doc');

      const recorded = await transact(db, async (trx) => {
        const claimed = await sequences.claimNumber(trx, companyId, encf, id);
        if (!claimed.ok) return claimed;
        await repo
          .insertDocumentStatement(trx, {
            id,
            company_id: companyId,
            environment,
            ecf_type: ecfType,
            encf,
            status: 'signed',
            origin: 'signed_xml',
            fecha_emision: fechaEmision,
            issued_on: isoDateOfDgiiDate(fechaEmision) ?? null,
            rnc_comprador: rncComprador ?? null,
            monto_total: montoTotal,
            total_itbis: textAt(document, ['Encabezado', 'Totales', 'TotalITBIS']) ?? null,
            security_code: checked.securityCode,
            fecha_hora_firma: fechaHoraFirma,
            timbre_url: timbreUrl(environment, {
              TipoeCF: ecfType,
              RNCEmisor: company.rnc,
              RNCComprador: rncComprador,
              eNCF: encf,
              FechaEmision: fechaEmision,
              MontoTotal: montoTotal,
              FechaHoraFirma: fechaHoraFirma,
              CodigoSeguridad: checked.securityCode,
            }),
            range_id: claimed.value.rangeId,
            warnings: [],
            created_at: now,
            updated_at: now,
          })
          .execute();
        await repo
          .insertArtefactsStatement(
            trx,
            await archiveArtefacts(
              blobs,
              { companyId, documentId: id, createdAt: now },
              { 'signed-xml': xml },
              now,
              true,
            ),
          )
          .execute();
        await repo
          .insertEventStatement(trx, {
            documentId: id,
            at: now,
            type: 'created',
            status: 'signed',
            cause: `signed XML handed in; e-NCF ${encf} claimed${claimed.value.allocationId === undefined ? '' : ` from block ${claimed.value.allocationId}`}`,
          })
          .execute();
        await recordDomainEvent(trx, {
          companyId,
          environment,
          type: 'document.signed',
          payload: { documentId: id, eNCF: encf, ecfType, status: 'signed', origin: 'signed_xml' },
          occurredAt: now,
        });
        return ok(id);
      });
      return recorded;
    },
  };
}
