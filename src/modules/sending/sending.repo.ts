import { sql, type Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import { olderThan } from '../../platform/db/older-than.js';
import type { Db } from '../../platform/db/database.js';
import type { DgiiMessageRow, DocumentStatus, FailedJobsTable, SendRoute } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/db/transact.js';
import type { DocumentRow } from '../documents/index.js';

export type { DocumentRow };
export type FailedJobRow = Selectable<FailedJobsTable>;

export function lockDocument(trx: Trx, id: string): Promise<DocumentRow | undefined> {
  return trx.selectFrom('documents').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export interface StateChange {
  status?: DocumentStatus;
  send_route?: SendRoute;
  send_attempts?: number;
  send_lease_id?: string | null;
  send_lease_until?: Date | null;
  track_id?: string | null;
  dgii_estado?: string | null;
  dgii_codigo?: string | null;
  dgii_messages?: DgiiMessageRow[];
  secuencia_utilizada?: boolean | null;
  poll_count?: number;
  next_poll_at?: Date | null;
  sent_at?: Date | null;
  final_at?: Date | null;
  updated_at: Date;
}

export async function updateDocument(trx: Trx, id: string, change: StateChange): Promise<void> {
  const { dgii_messages: messages, ...rest } = change;
  await trx
    .updateTable('documents')
    .set({ ...rest, ...(messages === undefined ? {} : { dgii_messages: JSON.stringify(messages) }) })
    .where('id', '=', id)
    .execute();
}

/**
 * Claims up to `limit` documents waiting for DGII's verdict whose next question is due, by moving their next poll
 * past `leaseUntil`: pollers running side by side never ask about the same document at once (SKIP LOCKED), and a
 * poller that dies leaves its documents due again when the lease runs out.
 */
export async function claimDuePolls(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<DocumentRow[]> {
  const result = await sql<DocumentRow>`
    update documents set next_poll_at = ${leaseUntil}
    where id in (
      select id from documents
      where status = 'in_process' and next_poll_at <= ${now}
      order by next_poll_at
      limit ${limit}
      for update skip locked
    )
    returning *`.execute(db);
  return result.rows;
}

export async function openFailedJob(trx: Trx, job: { id: string; companyId: string; environment: FiscalEnvironment; kind: string; documentId: string; reason: string; attempts: number; at: Date }): Promise<void> {
  await trx
    .insertInto('failed_jobs')
    .values({ id: job.id, company_id: job.companyId, environment: job.environment, kind: job.kind, document_id: job.documentId, reason: job.reason, attempts: job.attempts, opened_at: job.at, closed_at: null, closed_because: null })
    .onConflict((conflict) => conflict.columns(['document_id', 'kind']).where('closed_at', 'is', null).doUpdateSet({ reason: job.reason, attempts: job.attempts }))
    .execute();
}

export async function closeFailedJobs(trx: Trx, documentId: string, at: Date, because: string): Promise<void> {
  await trx.updateTable('failed_jobs').set({ closed_at: at, closed_because: because }).where('document_id', '=', documentId).where('closed_at', 'is', null).execute();
}

export function listFailedJobs(db: Db, companyId: string, environment: FiscalEnvironment, filter: { open?: boolean | undefined; limit: number; after?: { createdAt: Date; id: string } | undefined }): Promise<FailedJobRow[]> {
  let query = db.selectFrom('failed_jobs').selectAll().where('company_id', '=', companyId).where('environment', '=', environment);
  if (filter.open !== undefined) query = query.where('closed_at', filter.open ? 'is' : 'is not', null);
  const after = filter.after;
  if (after !== undefined) {
    query = query.where(olderThan(after, 'opened_at'));
  }
  return query.orderBy('opened_at', 'desc').orderBy('id', 'desc').limit(filter.limit + 1).execute();
}

/** Documents not yet final, per environment and status: what /internal/health/dgii calls pending. */
export async function pendingCounts(db: Db): Promise<{ environment: string; status: string; count: number }[]> {
  return db
    .selectFrom('documents')
    .select((eb) => ['environment', 'status', eb.fn.countAll<number>().as('count')])
    .where('status', 'in', ['queued', 'sending', 'in_process'])
    .groupBy(['environment', 'status'])
    .execute();
}
