import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import { olderThan } from '../../platform/db/older-than.js';
import type { Db } from '../../platform/db/database.js';
import { executePrepared } from '../../platform/db/prepared.js';
import type { DgiiMessageRow, DocumentStatus, FailedJobsTable, SendRoute } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/db/transact.js';
import { domainEventRow, type DomainEvent } from '../../platform/events/domain-events.js';
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
  send_due_at?: Date | null;
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
  await documentUpdate(trx, id, change).execute();
}

/** The update that applies `change`, unexecuted: for writes sent together (platform/db/one-statement.ts). */
export function documentUpdate(executor: Db | Trx, id: string, change: StateChange) {
  const { dgii_messages: messages, ...rest } = change;
  return executor
    .updateTable('documents')
    .set({ ...rest, ...(messages === undefined ? {} : { dgii_messages: JSON.stringify(messages) }) })
    .where('id', '=', id);
}

/**
 * What must still hold of a document's current row for a change to apply: the lease a worker took, or the state
 * (and trackId, and polls counted) a poll saw.
 */
export interface Expected {
  leaseId?: string;
  status?: DocumentStatus;
  trackId?: string;
  pollCount?: number;
}

/** What is written with a change, only when the change applied. */
export interface ChangeRecords {
  event?: { at: Date; type: string; status: DocumentStatus | null; cause: string };
  closeFailedJobs?: { at: Date; because: string };
  domainEvent?: DomainEvent;
}

/**
 * Changes document `id` only while `expected` holds of its current row, and writes `records` only when it did, in
 * ONE statement of data-modifying CTEs (atomic without BEGIN and COMMIT: one round trip). The conditions are the
 * UPDATE's WHERE, so PostgreSQL checks them on the row's latest version, after waiting for any transaction holding
 * it (READ COMMITTED re-checks an UPDATE's WHERE): a worker whose lease passed, or a stale poll, changes nothing and
 * records nothing. Whether the change applied.
 */
export async function changeDocumentIf(executor: Db | Trx, id: string, expected: Expected, change: StateChange, records: ChangeRecords): Promise<boolean> {
  let update = documentUpdate(executor, id, change);
  if (expected.leaseId !== undefined) update = update.where('send_lease_id', '=', expected.leaseId);
  if (expected.status !== undefined) update = update.where('status', '=', expected.status);
  if (expected.trackId !== undefined) update = update.where('track_id', '=', expected.trackId);
  if (expected.pollCount !== undefined) update = update.where('poll_count', '=', expected.pollCount);
  // Each part below reads `changed`: it writes once if the update changed the row, else not at all.
  const parts: RawBuilder<unknown>[] = [sql`changed as (${update.returning('id')})`];
  const { event, closeFailedJobs, domainEvent } = records;
  if (event !== undefined) {
    parts.push(sql`event as (
      insert into document_events (document_id, at, type, status, cause)
      select id, ${event.at}, ${event.type}, ${event.status}, ${event.cause} from changed)`);
  }
  if (closeFailedJobs !== undefined) {
    parts.push(sql`closed as (
      update failed_jobs set closed_at = ${closeFailedJobs.at}, closed_because = ${closeFailedJobs.because}
      where document_id in (select id from changed) and closed_at is null)`);
  }
  if (domainEvent !== undefined) {
    const row = domainEventRow(domainEvent);
    parts.push(sql`outbox as (
      insert into domain_events (id, company_id, environment, type, payload, dedupe_key, occurred_at)
      select ${row.id}, ${row.company_id}, ${row.environment}, ${row.type}, ${row.payload}, ${row.dedupe_key}, ${row.occurred_at} from changed
      on conflict (dedupe_key) do nothing)`);
  }
  // Each call site sends parts of one shape, so the statement's text is fixed: prepared (platform/db/prepared.ts).
  const result = await executePrepared(executor, sql<{ id: string }>`with ${sql.join(parts, sql`, `)} select id from changed`);
  return result.rows.length > 0;
}

/**
 * A document claimed for sending, with the state it was claimed from and where its signed XML is archived (its
 * latest `signed-xml` artefact; null only if that is missing).
 */
export type ClaimedRow = DocumentRow & { previous_status: DocumentStatus; signed_xml_blob_key: string | null; signed_xml_sha256: string | null };

/** Which documents a claim takes: one named (asked now), or up to `due` of those whose send is due. */
export type ClaimTarget = { id: string } | { due: number };

/** Documents a worker may take: queued or sending, and no worker's lease on them running. */
function takable(now: Date) {
  return sql`status in ('queued', 'sending') and (send_lease_until is null or send_lease_until <= ${now})`;
}

/** The rows a claim or a hold takes, locked (FOR UPDATE, latest version), with the state they are taken from. */
function targetRows(target: ClaimTarget, now: Date) {
  if ('id' in target) return sql`select id, status from documents where id = ${target.id} for update`;
  return sql`
    select id, status from documents where ${takable(now)} and send_due_at <= ${now}
    order by send_due_at limit ${target.due} for update skip locked`;
}

/**
 * Takes documents for one worker in ONE statement: those of `target` that are `queued` or `sending` with no
 * worker's lease on them running are marked `sending` under the lease, their next send falls due when it runs out
 * (so a dead worker's documents are taken up again), their route is fixed (DGII's reception, or an RFCE summary
 * for a type 32 under `rfceThreshold` DOP: research/dgii-protocol.md §8.1) and the `dgii.sending` event recorded.
 * Workers claiming due documents side by side skip each other's (SKIP LOCKED). The signed XML's archive entry comes
 * with each, so the worker needs no other read before it sends. Empty: nothing claimable now (final, not queued,
 * or held by another worker).
 */
export async function claimForSending(executor: Db | Trx, target: ClaimTarget, claim: { leaseId: string; leaseUntil: Date; now: Date; rfceThreshold: string }): Promise<ClaimedRow[]> {
  const result = await executePrepared(
    executor,
    sql<ClaimedRow>`
      with previous as (${targetRows(target, claim.now)}), claimed as (
        update documents d set
          status = 'sending',
          send_route = coalesce(d.send_route, case when d.ecf_type = '32' and d.monto_total::numeric < ${claim.rfceThreshold}::numeric then 'rfce' else 'reception' end),
          send_lease_id = ${claim.leaseId},
          send_lease_until = ${claim.leaseUntil},
          send_due_at = ${claim.leaseUntil},
          updated_at = ${claim.now}
        from previous p
        where d.id = p.id and p.status in ('queued', 'sending') and (d.send_lease_until is null or d.send_lease_until <= ${claim.now})
        returning d.*, p.status as previous_status
      ), event as (
        insert into document_events (document_id, at, type, status, cause)
        select id, ${claim.now}, 'dgii.sending', 'sending', case
          when previous_status = 'queued' then 'attempt ' || (send_attempts + 1) || ': sending to DGII ' || case when send_route = 'rfce' then 'as an RFCE' else 'reception' end
          else 'DGII may already have it: asking about the e-NCF before anything is sent'
        end
        from claimed
      )
      select c.*, a.blob_key as signed_xml_blob_key, a.sha256 as signed_xml_sha256 from claimed c
      left join lateral (
        select blob_key, sha256 from document_artefacts where document_id = c.id and kind = 'signed-xml' order by version desc limit 1
      ) a on true`,
  );
  return result.rows;
}

/**
 * DGII's maintenance window: up to `limit` documents whose send is due wait for its end instead, in ONE statement
 * (no attempt counted). A queued one records why (`dgii.not_taken`); a `sending` one, which DGII may hold, is asked
 * about when the window ends. How many were held.
 */
export async function holdDueSends(db: Db, now: Date, until: Date, limit: number, cause: string): Promise<number> {
  const result = await executePrepared(
    db,
    sql<{ id: string }>`
      with previous as (${targetRows({ due: limit }, now)}), held as (
        update documents d set send_due_at = ${until}, updated_at = ${now} from previous p where d.id = p.id returning d.id, d.status
      ), event as (
        insert into document_events (document_id, at, type, status, cause)
        select id, ${now}, 'dgii.not_taken', 'queued', ${cause} from held where status = 'queued'
      )
      select id from held`,
  );
  return result.rows.length;
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
