// What other modules read of certification (docs/architecture.md), so that no other module names its tables.
import { sql, type RawBuilder } from 'kysely';

/**
 * The certification lane's signed approvals as a branch of archive's inventory (archive/inventory.repo.ts), a subquery of the caller's
 * statement with the inventory's columns in its order: the verifier reads all kinds as one keyset-paged list.
 * The document fields are those of the row's main XML only.
 */
export function approvalArtefactsInventory(): RawBuilder<unknown> {
  return sql`(select c.signed_blob_key as key, c.signed_sha256 as sha256, null::integer as size,
    'certification_case' as owner, c.process_id || '/' || c.case_key as owner_id, 'acecf-xml' as kind, p.company_id,
    p.environment, coalesce(c.sent_at, c.updated_at) as created_at, c.status::text, null::text as encf,
    null::text as ecf_type, null::text as issuer_rnc, null::text as fecha_emision, null::text as monto_total,
    null::text as fecha_hora_firma, null::text as security_code
  from certification_cases c join certification_processes p on p.id = c.process_id
  where c.signed_blob_key is not null)`;
}
