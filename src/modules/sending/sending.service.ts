// The integrator's side of sending (SPEC §4.3): queue a document for DGII, ask DGII now, retry what may be retried,
// list the fiscal jobs that ran out of attempts, and the operators' view of DGII's health. The work itself is
// delivery.ts, run by the workers (the sender) and the scheduler (the poller).
import type { FiscalEnvironment } from '../../config.js';
import type { BreakerSnapshot, DgiiClient, ServiceStatusOutcome } from '../../dgii/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { tenantRow } from '../../platform/db/tenant-row.js';
import { groupCommit } from '../../platform/group-commit.js';
import type { DocumentStatus } from '../documents/index.js';
import { pageLimits, pageOf, startOf } from '../../platform/paging.js';
import { fail, ok, type Result } from '../../platform/result.js';
import {
  documentsById,
  findDocument,
  groupedDocumentChanges,
  listFailedJobs,
  pendingCounts,
  type DocumentRow,
  type FailedJobRow,
} from '../documents/index.js';
import { documentPolls, documentSends, type Delivery } from './delivery.js';
import type { FailedJobView, SendAnswer } from './sending.schema.js';

/** States a retry may start again from: DGII certainly does not hold the document as accepted. */
function retryRefusal(row: DocumentRow): string | undefined {
  switch (row.status) {
    case 'send_failed':
    case 'not_found':
      return undefined;
    case 'rejected':
      return row.secuencia_utilizada === false
        ? undefined
        : 'DGII rejected it and consumed its e-NCF: correct the document and create a new one (with a new e-NCF).';
    case 'signed':
      return 'It has not been sent yet: send it with POST /documentos/:id/enviar.';
    case 'queued':
    case 'sending':
    case 'in_process':
      return `It is on its way (${row.status}); retrying now could send it twice.`;
    case 'accepted':
    case 'accepted_conditional':
      return `DGII accepted it (${row.status}); there is nothing to retry.`;
  }
}

export interface DgiiHealth {
  environment: FiscalEnvironment;
  availability: ServiceStatusOutcome;
  breakers: BreakerSnapshot[];
  pending: Partial<Record<DocumentStatus, number>>;
}

export interface SendingService {
  send(companyId: string, id: string): Promise<Result<SendAnswer>>;
  refresh(companyId: string, id: string): Promise<Result<SendAnswer>>;
  retry(companyId: string, id: string): Promise<Result<SendAnswer>>;
  failedJobs(
    companyId: string,
    query: { open?: boolean | undefined; limit?: number | undefined; cursor?: string | undefined },
  ): Promise<Result<{ items: FailedJobView[]; nextCursor: string | null }>>;
  health(): Promise<DgiiHealth>;
}

function answer(row: DocumentRow, changed: boolean, detail: string): SendAnswer {
  return { id: row.id, eNCF: row.encf, status: row.status, changed, detail, trackId: row.track_id };
}

function failedJobView(row: FailedJobRow): FailedJobView {
  return {
    id: row.id,
    kind: row.kind,
    documentId: row.document_id,
    reason: row.reason,
    attempts: row.attempts,
    open: row.closed_at === null,
    openedAt: row.opened_at.toISOString(),
    closedAt: row.closed_at?.toISOString() ?? null,
    closedBecause: row.closed_because,
  };
}

/**
 * `queued`: a document's send came due, after its transaction committed (wakes this process's workers, when it runs
 * them; other processes' find it at their next claim).
 */
export function createSendingService(deps: {
  db: Db;
  clock: Clock;
  environment: FiscalEnvironment;
  dgii: DgiiClient;
  delivery: Delivery;
  queued: () => void;
}): SendingService {
  const { db, clock, environment, dgii, delivery, queued } = deps;
  // enviar's read and its one-statement change, each batched with those of the other enviar calls in flight.
  const readDocument = groupCommit((ids: string[]) => documentsById(db, ids), { maxBatch: 100 });
  const changeDocumentIf = groupedDocumentChanges(db);

  /**
   * signed (or a retry's starting state) → queued, its send due at once: read, then ONE statement that applies only
   * while the document is still in the state read (documents' changeDocumentsIf), with its timeline event, its
   * outbox event and its send in the queue (delivery.ts, platform/work). A change in between (another enviar won) is read again.
   */
  async function enqueue(
    companyId: string,
    id: string,
    allowed: (row: DocumentRow) => Result<SendAnswer> | undefined,
    cause: string,
  ): Promise<Result<SendAnswer>> {
    for (;;) {
      const row = tenantRow(await readDocument(id), companyId, environment);
      if (row === undefined) return fail('document_not_found', `No document ${id}.`);
      const refusal = allowed(row);
      if (refusal !== undefined) return refusal;
      const now = clock.now();
      const queuedNow = await changeDocumentIf({
        id,
        expected: { status: row.status },
        change: {
          status: 'queued',
          send_attempts: 0,
          send_due_at: now,
          poll_count: 0,
          next_poll_at: null,
          updated_at: now,
        },
        records: {
          event: { at: now, type: 'queued', status: 'queued', cause },
          domainEvent: {
            companyId,
            environment,
            type: 'document.queued',
            payload: { documentId: id, eNCF: row.encf, ecfType: row.ecf_type, status: 'queued' },
            occurredAt: now,
          },
          enqueueWork: { target: documentSends, environment, dueAt: now },
        },
      });
      if (queuedNow) {
        queued();
        return ok(answer({ ...row, status: 'queued' }, true, cause));
      }
    }
  }

  return {
    send(companyId, id) {
      return enqueue(
        companyId,
        id,
        (row) => {
          if (row.status === 'signed') return undefined;
          if (row.status === 'send_failed' || row.status === 'not_found') {
            return fail(
              'document_not_sendable',
              `Document ${id} is ${row.status}: retry it with POST /documentos/${id}/reintentar, which checks it is safe to send again.`,
            );
          }
          // Queued, on its way or final: sending again would do nothing, and says so.
          return ok(answer(row, false, `Already ${row.status}: nothing was queued.`));
        },
        'queued for DGII (POST enviar)',
      );
    },

    async refresh(companyId, id) {
      const row = await findDocument(db, companyId, environment, id);
      if (row === undefined) return fail('document_not_found', `No document ${id}.`);
      if (row.status === 'in_process') {
        await delivery.pollNow(id);
      } else if (row.status === 'sending' && (row.send_lease_until === null || row.send_lease_until <= clock.now())) {
        // An uncertain send waiting for its next attempt: resolve it now (the attempt asks DGII first).
        await delivery.attempt(id);
      }
      const current = await findDocument(db, companyId, environment, id);
      if (current === undefined) return fail('document_not_found', `No document ${id}.`);
      const changed = current.status !== row.status;
      return ok(answer(current, changed, changed ? `${row.status} → ${current.status}` : `Still ${current.status}.`));
    },

    retry(companyId, id) {
      return enqueue(
        companyId,
        id,
        (row) => {
          const refusal = retryRefusal(row);
          return refusal === undefined
            ? undefined
            : fail('document_not_retryable', `Document ${id} cannot be retried: ${refusal}`);
        },
        'queued again for DGII (POST reintentar)',
      );
    },

    async failedJobs(companyId, query) {
      const after = startOf(query.cursor);
      if (!after.ok) return after;
      const limit = query.limit ?? pageLimits.default;
      const rows = await listFailedJobs(db, companyId, environment, {
        open: query.open,
        limit,
        after: after.value,
      });
      const page = pageOf(rows, limit, (row) => row.opened_at);
      return ok({ items: page.rows.map(failedJobView), nextCursor: page.nextCursor });
    },

    async health() {
      const pending: Partial<Record<DocumentStatus, number>> = {};
      for (const row of await pendingCounts(db, environment, [documentSends, documentPolls]))
        pending[row.status as DocumentStatus] = row.count;
      return { environment, availability: await dgii.serviceStatus(), breakers: dgii.breakers(), pending };
    },
  };
}
