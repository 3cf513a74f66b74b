// The failed jobs (GET /trabajos-fallidos): work about a document that ran out of attempts, its send to DGII
// (modules/sending) or its delivery to the buyer (modules/buyer-delivery). Each row is about a document, so documents
// owns the table (docs/architecture.md); the work that opens and closes them does it here, through index.ts.
import type { Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { AnyDb } from '../../platform/db/database.js';
import { olderThan } from '../../platform/db/older-than.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import type { AnyTrx } from '../../platform/db/transact.js';
import type { DocumentsTables, FailedJobsTable } from './tables.js';

export type FailedJobRow = Selectable<FailedJobsTable>;

/** Opens the document's failed job of `kind`; one already open is updated with the latest reason and count. */
export async function openFailedJob(
  trx: AnyTrx,
  job: {
    id: string;
    companyId: string;
    environment: FiscalEnvironment;
    kind: string;
    documentId: string;
    reason: string;
    attempts: number;
    at: Date;
  },
): Promise<void> {
  await tablesOf<DocumentsTables>(trx)
    .insertInto('failed_jobs')
    .values({
      id: job.id,
      company_id: job.companyId,
      environment: job.environment,
      kind: job.kind,
      document_id: job.documentId,
      reason: job.reason,
      attempts: job.attempts,
      opened_at: job.at,
      closed_at: null,
      closed_because: null,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['document_id', 'kind'])
        .where('closed_at', 'is', null)
        .doUpdateSet({ reason: job.reason, attempts: job.attempts }),
    )
    .execute();
}

/** Closes the document's open failed jobs of `kind` (a delivery that got there, or was asked for again). */
export async function closeFailedJobs(
  trx: AnyTrx,
  documentId: string,
  kind: string,
  closing: { at: Date; because: string },
): Promise<void> {
  await tablesOf<DocumentsTables>(trx)
    .updateTable('failed_jobs')
    .set({ closed_at: closing.at, closed_because: closing.because })
    .where('document_id', '=', documentId)
    .where('kind', '=', kind)
    .where('closed_at', 'is', null)
    .execute();
}

/** A page of the company's failed jobs, newest first (one more than `limit`: whether another page follows). */
export function listFailedJobs(
  db: AnyDb,
  companyId: string,
  environment: FiscalEnvironment,
  filter: { open?: boolean | undefined; limit: number; after?: { createdAt: Date; id: string } | undefined },
): Promise<FailedJobRow[]> {
  let query = tablesOf<DocumentsTables>(db)
    .selectFrom('failed_jobs')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment);
  if (filter.open !== undefined) query = query.where('closed_at', filter.open ? 'is' : 'is not', null);
  const after = filter.after;
  if (after !== undefined) {
    query = query.where(olderThan(after, 'opened_at'));
  }
  return query
    .orderBy('opened_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}
