// How each settlement of a send shows in the document's history, in the engine's settling transaction (its queue
// row already settled under the lease, platform/work): a trackId or a verdict, DGII did not take it (back to
// `queued`, or `send_failed` once no attempt is left), or DGII may have it (stays `sending`, asked about first).
import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { DocumentRow, DocumentStatus } from '../documents/index.js';
import type { Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { newId } from '../../platform/ids.js';
import * as outbound from '../../platform/work/outbound-work.repo.js';
import type { Settlement } from '../../platform/work/work-engine.js';
import { changeDocumentsIf, documentEventInsertStatement, openFailedJob, updateDocument } from '../documents/index.js';
import { documentSends, type ClaimedSend, type DocumentChanges, type SendDone } from './document-changes.js';

/** A failed send attempt DGII certainly did not take; `counted` against the attempts (a missing certificate is not). */
export interface NotTaken {
  untaken: true;
  counted: boolean;
  /** DGII could not be reached (unavailable, the connection failed): the e-CF is issued in contingency. */
  unreachable: boolean;
}

export function createSendRecords(deps: {
  clock: Clock;
  environment: FiscalEnvironment;
  changes: DocumentChanges;
  policy: { maxAttempts: number; maxRetryDelayMs: number; uncertainSettleMs: number };
}) {
  const { clock, environment, changes, policy } = deps;
  const later = (ms: number) => new Date(clock.now().getTime() + ms);

  async function event(
    trx: Trx,
    row: DocumentRow,
    type: string,
    status: DocumentStatus | null,
    cause: string,
  ): Promise<void> {
    await documentEventInsertStatement(trx, { documentId: row.id, at: clock.now(), type, status, cause }).execute();
  }

  /** DGII did not take the bytes: back to `queued`, due again at `at`. */
  async function recordNotTaken(
    trx: Trx,
    row: DocumentRow,
    detail: string,
    at: Date,
    failure: NotTaken,
  ): Promise<void> {
    const { counted } = failure;
    const attempts = row.send_attempts + (counted ? 1 : 0);
    await updateDocument(trx, row.id, {
      status: 'queued',
      // A recorded fact, set once and never cleared: the printed representation carries the contingency legend.
      ...(failure.unreachable ? { issued_in_contingency: true } : {}),
      send_attempts: attempts,
      send_lease_id: null,
      send_lease_until: null,
      send_due_at: at,
      updated_at: clock.now(),
    });
    await event(
      trx,
      row,
      'dgii.not_taken',
      'queued',
      `${counted ? `attempt ${String(attempts)} failed` : 'not attempted'} (${detail}); DGII did not take it; next attempt at ${at.toISOString()}`,
    );
  }

  /** DGII did not take it and no attempt is left: `send_failed`, a failed job and its event. */
  async function recordSendFailed(trx: Trx, row: DocumentRow, detail: string, counted: boolean): Promise<void> {
    const now = clock.now();
    const attempts = row.send_attempts + (counted ? 1 : 0);
    const cause = counted
      ? `attempt ${String(attempts)} of ${String(policy.maxAttempts)} failed (${detail}); no attempts left: retry it with POST /documentos/${row.id}/reintentar`
      : detail;
    await updateDocument(trx, row.id, {
      status: 'send_failed',
      send_attempts: attempts,
      send_lease_id: null,
      send_lease_until: null,
      send_due_at: null,
      updated_at: now,
    });
    await event(trx, row, 'dgii.send_failed', 'send_failed', cause);
    await openFailedJob(trx, {
      id: newId('fjb'),
      companyId: row.company_id,
      environment,
      kind: 'document.send',
      documentId: row.id,
      reason: detail,
      attempts,
      at: now,
    });
    await recordDomainEvent(
      trx,
      changes.domainEventOf(row, 'document.send_failed', { ...changes.documentNamed(row), reason: detail, attempts }),
    );
  }

  /**
   * DGII may have the bytes: the document stays `sending`, held by no worker until `askAt` (no one, a refresh either,
   * asks DGII before the request our client gave up on has settled), and the next attempt asks DGII before sending
   * anything. A failed job opens once attempts run out (or `giveUp`), but the questions go on.
   */
  async function recordUncertain(
    trx: Trx,
    row: DocumentRow,
    detail: string,
    askAt: Date,
    giveUp = false,
  ): Promise<void> {
    const now = clock.now();
    const attempts = row.send_attempts + 1;
    await updateDocument(trx, row.id, {
      status: 'sending',
      send_attempts: attempts,
      send_lease_id: null,
      send_lease_until: askAt,
      send_due_at: askAt,
      updated_at: now,
    });
    await event(
      trx,
      row,
      'dgii.uncertain',
      'sending',
      `DGII may have it (${detail}); it is asked about the e-NCF before anything is sent again`,
    );
    if (giveUp || attempts >= policy.maxAttempts) {
      await openFailedJob(trx, {
        id: newId('fjb'),
        companyId: row.company_id,
        environment,
        kind: 'document.send',
        documentId: row.id,
        reason: `DGII's answer is still unknown after ${String(attempts)} attempts: ${detail}`,
        attempts,
        at: now,
      });
    }
  }

  /** The send target's record (platform/work WorkTarget.record). */
  return async function recordSend(
    trx: Trx,
    claimed: ClaimedSend,
    settlement: Settlement<SendDone, NotTaken>,
  ): Promise<void> {
    const { row } = claimed;
    switch (settlement.kind) {
      case 'done':
        await changeDocumentsIf(trx, [changes.sendDone(claimed, settlement.result)]);
        return;
      case 'deferred':
        await recordNotTaken(trx, row, settlement.reason, settlement.at, {
          untaken: true,
          counted: false,
          unreachable: true,
        });
        return;
      case 'again':
        await recordUncertain(trx, row, settlement.reason ?? 'no answer', settlement.at);
        return;
      case 'retry':
        if (settlement.failure === undefined) await recordUncertain(trx, row, settlement.reason, settlement.at);
        else await recordNotTaken(trx, row, settlement.reason, settlement.at, settlement.failure);
        return;
      case 'exhausted': {
        if (settlement.failure !== undefined) {
          await recordSendFailed(trx, row, settlement.reason, settlement.failure.counted);
          return;
        }
        // Its attempts never finished, or could not be recorded: DGII may have it, so it is never given up. It waits
        // the longest retry delay, then is asked about again.
        const askAt = later(Math.max(policy.uncertainSettleMs, policy.maxRetryDelayMs));
        await recordUncertain(trx, row, settlement.reason, askAt, true);
        await outbound.enqueue(trx, [{ target: documentSends, itemId: row.id, environment, dueAt: askAt }]);
      }
    }
  };
}
