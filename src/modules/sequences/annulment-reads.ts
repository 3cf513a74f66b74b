// What other modules read of annulments (docs/architecture.md), so that no other module names sequences' tables.
import { sql, type RawBuilder } from 'kysely';

/**
 * The annulments' archived ANECF as a branch of archive's inventory (archive/inventory.repo.ts), a subquery of the caller's
 * statement with the inventory's columns in its order: the verifier reads all kinds as one keyset-paged list.
 * The document fields are those of the row's main XML only.
 */
export function annulmentArtefactsInventory(): RawBuilder<unknown> {
  return sql`(select n.blob_key as key, n.sha256, n.size, 'annulment' as owner, n.id as owner_id, 'anecf-xml' as kind,
    n.company_id, n.environment, n.created_at, n.status::text, null::text as encf, null::text as ecf_type,
    null::text as issuer_rnc, null::text as fecha_emision, null::text as monto_total, null::text as fecha_hora_firma,
    null::text as security_code
  from annulments n)`;
}
