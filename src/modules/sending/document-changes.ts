// What DGII's answers change on a document, as the one-statement changes of documents' changeDocumentsIf
// (send-state.repo.ts): a trackId, a verdict, a poll's "not found". Each applies only while the document is as the
// worker saw it (its lease, or the state a poll saw), and settles the attempt's queue row under its lease when
// recorded with others. Shared by the send (send-target.ts) and the poll (poll-target.ts).
import type { FiscalEnvironment } from '../../config.js';
import type { DgiiMessage } from '../../dgii/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import {
  changeDocumentsIf,
  type ChangeRecords,
  type DocumentChange,
  type DocumentRow,
  type DocumentStatus,
  type ExpectedState,
  type SendStateChange,
} from '../documents/index.js';
import type { DomainEvent, DomainEventPayload } from '../../platform/events/domain-events.js';
import type { DoneItem } from '../../platform/work/work-engine.js';

/** The queues of documents' work (outbound_work.target). */
export const documentSends = 'document.send';
export const documentPolls = 'document.poll';

/** DGII's verdict in our states. */
const verdictStatus = {
  accepted: 'accepted',
  conditional: 'accepted_conditional',
  rejected: 'rejected',
} as const satisfies Record<string, DocumentStatus>;

export interface Verdict {
  kind: 'accepted' | 'conditional' | 'rejected';
  estado: string | null;
  codigo: string | null;
  messages: DgiiMessage[];
  secuenciaUtilizada: boolean | undefined;
}

export function describeMessages(messages: readonly DgiiMessage[]): string {
  return messages.length === 0
    ? ''
    : `: ${messages.map((message) => (message.codigo === null ? message.valor : `${message.codigo} ${message.valor}`)).join('; ')}`;
}

/** Where a document's signed XML is archived. */
export interface SignedXmlEntry {
  blob_key: string;
  sha256: string;
}

/** A document this worker took to send: the row as claimed, the state it was claimed from, and this worker's lease. */
export interface ClaimedSend {
  row: DocumentRow;
  previous: DocumentStatus;
  leaseId: string;
  signedXml: SignedXmlEntry | undefined;
}

/** What a send attempt got: a trackId or a verdict; `sent`: got by sending, so the attempt counts (not when found
 * by asking DGII about an attempt already counted). */
export type SendDone =
  | { kind: 'track'; trackId: string; cause: string; sent: boolean }
  | { kind: 'verdict'; verdict: Verdict; source: string; sent: boolean };

/** What a poll got: DGII's verdict, or, after enough questions, that DGII has no record of the trackId. */
export type PollDone = { kind: 'verdict'; verdict: Verdict } | { kind: 'not_found' };

type SettleWork = ChangeRecords['settleWork'];

export type DocumentChanges = ReturnType<typeof createDocumentChanges>;

export function createDocumentChanges(deps: {
  clock: Clock;
  environment: FiscalEnvironment;
  /** First poll after a trackId. */
  firstPollDelayMs: number;
  /** The work target that takes an accepted document on to its buyer (modules/buyer-delivery); absent: none. */
  deliverAccepted?: string | undefined;
}) {
  const { clock, environment, firstPollDelayMs, deliverAccepted } = deps;

  /** The document as every document event's payload names it. */
  const documentNamed = (row: DocumentRow) => ({ documentId: row.id, eNCF: row.encf, ecfType: row.ecf_type });

  function domainEventOf<T extends DomainEvent['type']>(
    row: DocumentRow,
    type: T,
    payload: DomainEventPayload<T>,
  ): DomainEvent<T> {
    return { companyId: row.company_id, environment, type, payload, occurredAt: clock.now() };
  }

  /** DGII's verdict, while `expected` holds: a final state, its messages, and whether the e-NCF was consumed. */
  function verdictChange(
    row: DocumentRow,
    expected: ExpectedState,
    verdict: Verdict,
    source: string,
    sent: Pick<SendStateChange, 'sent_at' | 'send_attempts'>,
    settleWork: SettleWork,
  ): DocumentChange {
    const status = verdictStatus[verdict.kind];
    const now = clock.now();
    const change: SendStateChange = {
      ...sent,
      status,
      send_lease_id: null,
      send_lease_until: null,
      send_due_at: null,
      dgii_estado: verdict.estado,
      dgii_codigo: verdict.codigo,
      dgii_messages: verdict.messages,
      // DGII consumes the number of what it accepts; for a rejection it says (secuenciaUtilizada) or, silent, it did.
      secuencia_utilizada: verdict.secuenciaUtilizada ?? true,
      next_poll_at: null,
      final_at: now,
      updated_at: now,
    };
    return {
      id: row.id,
      expected,
      change,
      records: {
        event: {
          at: now,
          type: `dgii.${verdict.kind}`,
          status,
          cause: `${source}: ${verdict.estado ?? verdict.kind}${describeMessages(verdict.messages)}`,
        },
        closeFailedJobs: { at: now, because: `DGII's verdict: ${status}` },
        domainEvent: domainEventOf(row, `document.${status}`, {
          ...documentNamed(row),
          status,
          estado: verdict.estado,
          mensajes: verdict.messages,
        }),
        ...(settleWork === undefined ? {} : { settleWork }),
        // DGII accepted it: on to its buyer (DESIGN §5.3). Not a certification case: those are DGII's test set.
        ...(deliverAccepted !== undefined && status !== 'rejected' && row.origin !== 'certification'
          ? { enqueueWork: { target: deliverAccepted, environment, dueAt: now, openDelivery: true as const } }
          : {}),
      },
    };
  }

  /** What a send got, while this worker holds the document; `settleWork`: when recorded together, its queue row. */
  function sendDone(claimed: ClaimedSend, done: SendDone, settleWork?: SettleWork): DocumentChange {
    const { row, leaseId } = claimed;
    const now = clock.now();
    const attempted = done.sent ? { send_attempts: row.send_attempts + 1 } : {};
    if (done.kind === 'verdict') {
      const sent = done.sent ? { sent_at: row.sent_at ?? now, ...attempted } : {};
      return verdictChange(row, { leaseId }, done.verdict, done.source, sent, settleWork);
    }
    // `row` is as claimed: no one else changes a document while its lease is this worker's.
    const firstPoll = new Date(now.getTime() + firstPollDelayMs);
    const change: SendStateChange = {
      status: 'in_process',
      send_lease_id: null,
      send_lease_until: null,
      send_due_at: null,
      track_id: done.trackId,
      poll_count: 0,
      next_poll_at: firstPoll,
      sent_at: row.sent_at ?? now,
      ...attempted,
      updated_at: now,
    };
    return {
      id: row.id,
      expected: { leaseId },
      change,
      records: {
        event: { at: now, type: 'dgii.received', status: 'in_process', cause: done.cause },
        enqueueWork: { target: documentPolls, environment, dueAt: firstPoll },
        ...(settleWork === undefined ? {} : { settleWork }),
      },
    };
  }

  /** What a poll got, while the document is as the poll saw it: still `in_process` under that trackId. */
  function pollDone(row: DocumentRow, done: PollDone, settleWork?: SettleWork): DocumentChange {
    const trackId = row.track_id ?? '';
    const seen: ExpectedState = { status: 'in_process', trackId };
    if (done.kind === 'verdict')
      return verdictChange(row, seen, done.verdict, `DGII's verdict for trackId ${trackId}`, {}, settleWork);
    const now = clock.now();
    const polls = row.poll_count + 1;
    return {
      id: row.id,
      expected: { ...seen, pollCount: row.poll_count },
      change: { status: 'not_found', poll_count: polls, next_poll_at: null, updated_at: now },
      records: {
        event: {
          at: now,
          type: 'dgii.not_found',
          status: 'not_found',
          cause: `DGII has no record of trackId ${trackId} after ${String(polls)} questions; retry it with POST /documentos/${row.id}/reintentar`,
        },
        domainEvent: domainEventOf(row, 'document.not_found', { ...documentNamed(row), trackId }),
        ...(settleWork === undefined ? {} : { settleWork }),
      },
    };
  }

  return { documentNamed, domainEventOf, sendDone, pollDone };
}

/**
 * A target's recordDone (platform/work): its successes recorded together, each settling its queue row under its
 * lease, its records under its own correlation id (the batch runs under whichever item set it off). Whether each
 * applied.
 */
export function recordTogether<Item, Done>(
  db: Db,
  target: string,
  changeOf: (item: Item, done: Done, settleWork: SettleWork) => DocumentChange,
) {
  return (batch: readonly Pick<DoneItem<Item, Done>, 'item' | 'result' | 'leaseId' | 'correlationId'>[]) =>
    changeDocumentsIf(
      db,
      batch.map(({ item, result, leaseId, correlationId }) => ({
        ...changeOf(item, result, { target, leaseId, next: null }),
        correlationId,
      })),
    );
}
