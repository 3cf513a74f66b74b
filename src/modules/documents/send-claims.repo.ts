// The documents in sending's queues (modules/sending: its sends and polls, platform/work). A claim takes its queue
// rows under a lease and their documents in ONE statement, marking the documents' send columns in the same
// statement; those columns are documents' (docs/architecture.md), so the SQL is here and sending calls it through
// index.ts. Also the count of what the queues hold, per document status.
import { sql } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { AnyDb } from '../../platform/db/database.js';
import { executePrepared } from '../../platform/db/prepared.js';
import { tablesOf } from '../../platform/db/tables-of.js';
import { claimableRows, claimUpdate, postponeUpdate, type ClaimTerms } from '../../platform/work/outbound-work.repo.js';
import type { DocumentRow } from './documents.repo.js';
import type { DocumentsTables, DocumentStatus } from './tables.js';

/** A queue row a claim took, left-joined to its document (whose id is null when it had none to give). */
type LeftJoined<Row extends { id: string }> = Omit<Row, 'id'> & {
  id: string | null;
  item_id: string;
  work_attempts: number;
  work_correlation_id: string;
};

function joinedRow<Row extends { id: string }>({
  item_id: itemId,
  work_attempts: attempts,
  work_correlation_id: correlationId,
  id,
  ...row
}: LeftJoined<Row>): { itemId: string; attempts: number; correlationId: string; row: Row | undefined } {
  return { itemId, attempts, correlationId, row: id === null ? undefined : ({ ...row, id } as unknown as Row) };
}

/**
 * A document claimed for sending, with the state it was claimed from and where its signed XML is archived (its
 * latest `signed-xml` artefact; null only if that is missing).
 */
export type ClaimedRow = DocumentRow & {
  previous_status: DocumentStatus;
  signed_xml_blob_key: string | null;
  signed_xml_sha256: string | null;
};

/** A queue row a claim took, with its document as claimed: undefined when the document had nothing to send. */
export interface ClaimedSendRow {
  itemId: string;
  attempts: number;
  correlationId: string;
  row: ClaimedRow | undefined;
}

/**
 * Takes documents for one worker in ONE statement: the queue rows of `terms` (platform/work outbound-work.repo.ts)
 * under the lease, and their documents that are `queued` or `sending` marked `sending` under the same lease id (the
 * documents' copy of it, send_lease_id, is what their one-statement changes check). The route is fixed as they are
 * taken (DGII's reception, or an RFCE summary for a type 32 under `rfceThreshold` DOP: fiscal/timbre-url.ts
 * isConsumerSummary, written in SQL; research/dgii-protocol.md §8.1) and the `dgii.sending` event recorded, with the
 * correlation id its send was queued with. The signed XML's archive entry comes with each, so the worker needs no
 * other read before it sends. A queue row whose document is not queued nor sending comes back without it.
 */
export async function claimForSending(db: AnyDb, terms: ClaimTerms, rfceThreshold: string): Promise<ClaimedSendRow[]> {
  const result = await executePrepared(
    db,
    sql<LeftJoined<ClaimedRow>>`
      with due as (${claimableRows(terms)}), work as (${claimUpdate(terms)}),
      previous as (select d.id, d.status from documents d join work w on d.id = w.item_id for update of d),
      claimed as (
        update documents d set
          status = 'sending',
          send_route = coalesce(d.send_route, case when d.ecf_type = '32' and d.monto_total::numeric < ${rfceThreshold}::numeric then 'rfce' else 'reception' end),
          send_lease_id = ${terms.leaseId},
          send_lease_until = ${terms.leaseUntil},
          send_due_at = ${terms.leaseUntil},
          updated_at = ${terms.now}
        from previous p
        where d.id = p.id and p.status in ('queued', 'sending')
        returning d.*, p.status as previous_status
      ), event as (
        insert into document_events (document_id, at, type, status, cause, correlation_id)
        select c.id, ${terms.now}, 'dgii.sending', 'sending', case
          when c.previous_status = 'queued' then 'attempt ' || (c.send_attempts + 1) || ': sending to DGII ' || case when c.send_route = 'rfce' then 'as an RFCE' else 'reception' end
          else 'DGII may already have it: asking about the e-NCF before anything is sent'
        end, w.correlation_id
        from claimed c join work w on w.item_id = c.id
      )
      select w.item_id, w.attempts as work_attempts, w.correlation_id as work_correlation_id, c.*, a.blob_key as signed_xml_blob_key, a.sha256 as signed_xml_sha256
      from work w left join claimed c on c.id = w.item_id
      left join lateral (
        select blob_key, sha256 from document_artefacts where document_id = c.id and kind = 'signed-xml' order by version desc limit 1
      ) a on true`,
  );
  return result.rows.map(joinedRow);
}

/**
 * DGII's maintenance window: up to `limit` documents whose send is due wait for its end instead, in ONE statement
 * (their queue rows due then, no attempt counted). A queued one records why (`dgii.not_taken`) and is now issued in
 * contingency (the printed representation's 72-hour legend; never cleared); a `sending` one, which DGII may hold, is
 * asked about when the window ends. How many were held.
 */
export async function holdDueSends(
  db: AnyDb,
  terms: { target: string; environment: FiscalEnvironment; now: Date; until: Date; limit: number; cause: string },
): Promise<number> {
  const result = await executePrepared(
    db,
    sql<{ item_id: string }>`
      with due as (${claimableRows({ ...terms, which: { limit: terms.limit } })}),
      held as (${postponeUpdate(terms.target, terms.until)}),
      documents_held as (
        update documents d set send_due_at = ${terms.until}, updated_at = ${terms.now},
          issued_in_contingency = d.issued_in_contingency or d.status = 'queued'
        from held h where d.id = h.item_id returning d.id, d.status
      ), event as (
        insert into document_events (document_id, at, type, status, cause, correlation_id)
        select d.id, ${terms.now}, 'dgii.not_taken', 'queued', ${terms.cause}, h.correlation_id
        from documents_held d join held h on h.item_id = d.id where d.status = 'queued'
      )
      select item_id from held`,
  );
  return result.rows.length;
}

/** A queue row of a poll a claim took, with its document while it waits for DGII's verdict. */
export interface ClaimedPollRow {
  itemId: string;
  attempts: number;
  correlationId: string;
  row: DocumentRow | undefined;
}

/**
 * Takes the polls of `terms` under the lease, with their documents still `in_process`, in ONE statement (the
 * question's conditions are checked again when its answer is recorded: changeDocumentsIf).
 */
export async function claimPolls(db: AnyDb, terms: ClaimTerms): Promise<ClaimedPollRow[]> {
  const result = await executePrepared(
    db,
    sql<LeftJoined<DocumentRow>>`
      with due as (${claimableRows(terms)}), work as (${claimUpdate(terms)})
      select w.item_id, w.attempts as work_attempts, w.correlation_id as work_correlation_id, d.* from work w left join documents d on d.id = w.item_id and d.status = 'in_process'`,
  );
  return result.rows.map(joinedRow);
}

/**
 * Documents of one environment on their way to DGII, per status: what /internal/health/dgii calls pending. Read
 * from the queues of their sends and polls (platform/work), so the count costs the work waiting, not the table.
 */
export async function pendingCounts(
  db: AnyDb,
  environment: FiscalEnvironment,
  targets: readonly string[],
): Promise<{ status: string; count: number }[]> {
  const rows = await tablesOf<DocumentsTables>(db)
    .selectFrom('outbound_work as w')
    .innerJoin('documents as d', 'd.id', 'w.item_id')
    .select((eb) => ['d.status', eb.fn.countAll<string>().as('count')])
    .where('w.target', 'in', [...targets])
    .where('w.environment', '=', environment)
    .groupBy('d.status')
    .execute();
  return rows.map((row) => ({ status: row.status, count: Number(row.count) }));
}
