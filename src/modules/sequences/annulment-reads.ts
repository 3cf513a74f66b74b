// What other modules read of annulments (docs/architecture.md), so that no other module names sequences' tables.
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { AnyDb } from '../../platform/db/database.js';
import { inPeriod, newerThan, type PagePosition, type PeriodScope } from '../../platform/db/period-pages.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnnulmentSpansTable, AnnulmentsTable, SequencesTables } from './tables.js';

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

/** How many annulments the company made in the period (the audit export, archive/export.ts). */
export async function annulmentsInPeriodCount(db: AnyDb, scope: PeriodScope): Promise<number> {
  const row = await tablesOf<SequencesTables>(db)
    .selectFrom('annulments')
    .select(sql<string>`count(*)::text`.as('count'))
    .where(inPeriod(scope, 'created_at'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** A page of the annulments the company made in the period, after `after` in (created_at, id) order. */
export function annulmentsInPeriodPage(
  db: AnyDb,
  scope: PeriodScope,
  after: PagePosition | undefined,
  limit: number,
): Promise<Pick<Selectable<AnnulmentsTable>, 'id' | 'status' | 'total' | 'blob_key' | 'dgii_estado' | 'created_at'>[]> {
  return tablesOf<SequencesTables>(db)
    .selectFrom('annulments')
    .select(['id', 'status', 'total', 'blob_key', 'dgii_estado', 'created_at'])
    .where(inPeriod(scope, 'created_at'))
    .where(newerThan(after, 'created_at'))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The numbers these annulments cover, in (annulment, type, first number) order. */
export function spansOfAnnulments(
  db: AnyDb,
  ids: readonly string[],
): Promise<Pick<Selectable<AnnulmentSpansTable>, 'annulment_id' | 'ecf_type' | 'first_number' | 'last_number'>[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return tablesOf<SequencesTables>(db)
    .selectFrom('annulment_spans')
    .select(['annulment_id', 'ecf_type', 'first_number', 'last_number'])
    .where('annulment_id', 'in', ids)
    .orderBy('annulment_id')
    .orderBy('ecf_type')
    .orderBy('first_number')
    .execute();
}
