import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { TaxpayersTable, TaxpayersTables } from './tables.js';
import { unnested, type InputColumn } from '../../platform/db/unnest.js';
import type { RegistryRow } from './registry-file.js';

export type TaxpayerRecord = TaxpayersTable;

export async function findTaxpayer(db: Db<TaxpayersTables>, taxId: string): Promise<TaxpayerRecord | undefined> {
  return db.selectFrom('taxpayers').selectAll().where('tax_id', '=', taxId).executeTakeFirst();
}

/**
 * One multi-row upsert. The rows travel as one array per column (`unnest`): eight parameters whatever the batch
 * size, which PostgreSQL parses several times faster than a VALUES list of thousands of placeholders.
 * A row whose values are unchanged is left alone (no write, no dead tuple), so a re-import of a listing that barely
 * changed is cheap; `imported_at` therefore says when a row last changed.
 * The rows must have distinct tax ids (ON CONFLICT cannot touch one row twice in a statement).
 */
export async function upsertTaxpayers(
  db: Db<TaxpayersTables>,
  rows: readonly RegistryRow[],
  importedAt: Date,
): Promise<{ inserted: number; updated: number }> {
  if (rows.length === 0) return { inserted: 0, updated: 0 };
  const column = (name: string, type: string, key: keyof RegistryRow): InputColumn => ({
    name,
    type,
    values: rows.map((row) => row[key]),
  });
  const incoming = unnested(
    [
      column('tax_id', 'text', 'taxId'),
      column('legal_name', 'text', 'legalName'),
      column('trade_name', 'text', 'tradeName'),
      column('economic_activity', 'text', 'economicActivity'),
      column('started_on', 'date', 'startedOn'),
      column('status', 'text', 'status'),
      column('payment_regime', 'text', 'paymentRegime'),
    ],
    'incoming',
  );
  const result = await sql<{ inserted: boolean }>`
    insert into taxpayers (tax_id, legal_name, trade_name, economic_activity, started_on, status, payment_regime, imported_at)
    select tax_id, legal_name, trade_name, economic_activity, started_on, status, payment_regime, ${importedAt}::timestamptz
    from ${incoming}
    on conflict (tax_id) do update set
      legal_name = excluded.legal_name,
      trade_name = excluded.trade_name,
      economic_activity = excluded.economic_activity,
      started_on = excluded.started_on,
      status = excluded.status,
      payment_regime = excluded.payment_regime,
      imported_at = excluded.imported_at
    where (taxpayers.legal_name, taxpayers.trade_name, taxpayers.economic_activity, taxpayers.started_on, taxpayers.status, taxpayers.payment_regime)
      is distinct from (excluded.legal_name, excluded.trade_name, excluded.economic_activity, excluded.started_on, excluded.status, excluded.payment_regime)
    -- xmax is 0 on a freshly inserted row version and the locking transaction's id on an updated one.
    returning (xmax = 0) as inserted`.execute(db);
  const inserted = result.rows.filter((row) => row.inserted).length;
  return { inserted, updated: result.rows.length - inserted };
}
