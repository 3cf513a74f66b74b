// Getting a signed document to DGII exactly once and following it to DGII's verdict (DESIGN §5.2), as two
// targets of the outbound work engine (platform/work): `document.send` and `document.poll`. The engine claims,
// leases, counts attempts and backs off; what is DGII's stays here.
//
// The rule that makes "exactly once" hold whatever DGII, the network or our processes do: a document is marked
// `sending` (committed) BEFORE its bytes leave, and only a definite answer moves it on. So a document found in
// `sending` by a later attempt — after an uncertain outcome (timeout after the bytes left, reset, 5xx) or after a
// worker died mid-call — may already be at DGII, and is resolved by asking DGII about its e-NCF first (trackIds for
// reception, consultaestado for an RFCE); only a definite "DGII has nothing" lets the bytes go again. One worker at a
// time may talk to DGII about a document: its queue row's lease is taken in the same statement that marks it
// `sending` (sending.repo.ts claimForSending), with a copy of the lease id on the document, and runs out if its
// worker dies (test/sending-crash.test.ts). The bytes sent are the archived signed bytes, never re-signed. The
// common steps (a trackId, a verdict, a poll's answer) are each ONE statement whose conditions (the lease, the state
// a poll saw) are its UPDATE's WHERE and which settles the queue row under its lease (sending.repo.ts
// changeDocumentsIf, batched with the other documents in flight): a worker whose lease passed, or a stale poll,
// changes nothing.
//
// How the engine's outcomes read for a send: `done` is a trackId or a verdict; `failed` is an attempt DGII certainly
// did not take (back to `queued`, `send_failed` when none is left); `deferred` is not attempted (DGII unavailable:
// not counted); `again` is an answer still unknown (stays `sending`, asked about before any resend, a failed job
// once attempts run out, and never given up: giving up would need a resend, and a resend without an answer could
// send twice).
import { maxRetryDelayMs, type Config, type FiscalEnvironment } from '../../config.js';
import {
  dgiiOutOfReach,
  type DgiiClient,
  type DgiiMessage,
  type SendEcfOutcome,
  type SendRfceOutcome,
  type StatusByEncfOutcome,
} from '../../dgii/index.js';
import { buildRfce } from '../../fiscal/responses/rfce.js';
import { consumerSummaryThreshold } from '../../fiscal/timbre-url.js';
import { signXml } from '../../fiscal/xmldsig/index.js';
import { backoffMs, exponentialBackoff } from '../../platform/backoff.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { DocumentStatus } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/db/transact.js';
import { recordDomainEvent, type DomainEvent, type DomainEventPayload } from '../../platform/events/domain-events.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/observability/logger.js';
import * as outbound from '../../platform/work/outbound-work.repo.js';
import {
  createWorkEngine,
  type ClaimedWork,
  type Outcome,
  type Settlement,
  type WorkEngine,
  type WorkTarget,
} from '../../platform/work/work-engine.js';
import type { CompaniesService } from '../companies/index.js';
import { documentEventInsertStatement, type DocumentsService } from '../documents/index.js';
import * as repo from './sending.repo.js';

/** How long one answer of DGII's status service is reused. */
const availabilityTtlMs = 5_000;

export interface DeliveryPolicy {
  /** Attempts that reach DGII (or fail to) before a document is `send_failed` and a failed job opens. */
  maxAttempts: number;
  /** First retry delay; doubled per attempt, with jitter, up to maxRetryDelayMs. */
  retryDelayMs: number;
  maxRetryDelayMs: number;
  /**
   * How long one worker holds a document while it talks to DGII (SEND_LEASE_SECONDS): longer than two of the
   * client's calls (ask, then send); a dead worker's documents fall due again when it runs out.
   */
  leaseMs: number;
  /** First poll after a trackId; doubled per poll up to maxPollDelayMs. */
  firstPollDelayMs: number;
  maxPollDelayMs: number;
  /** consultaresultado answers "not found" for a trackId it gave: after this many polls the document is `not_found`. */
  notFoundAfterPolls: number;
  /**
   * After an uncertain outcome, how long before DGII is asked about the e-NCF: a request our client gave up on may
   * still be working its way through DGII, and asking too soon would hear "nothing" and send a second copy. At least
   * twice the client's response timeout.
   */
  uncertainSettleMs: number;
}

/** The policy of a configuration: its attempts, delays and lease (SEND_*), and what follows from its DGII timeouts. */
export function deliveryPolicy(config: Pick<Config, 'sending' | 'dgiiClient'>): DeliveryPolicy {
  return {
    maxAttempts: config.sending.maxAttempts,
    retryDelayMs: config.sending.retryBaseMs,
    maxRetryDelayMs: maxRetryDelayMs.sending,
    leaseMs: config.sending.leaseMs,
    firstPollDelayMs: 1_000,
    maxPollDelayMs: 5 * 60_000,
    notFoundAfterPolls: 5,
    uncertainSettleMs: 2 * config.dgiiClient.responseTimeoutMs,
  };
}

/** DGII's verdict in our states. */
const verdictStatus = {
  accepted: 'accepted',
  conditional: 'accepted_conditional',
  rejected: 'rejected',
} as const satisfies Record<string, DocumentStatus>;

interface Verdict {
  kind: 'accepted' | 'conditional' | 'rejected';
  estado: string | null;
  codigo: string | null;
  messages: DgiiMessage[];
  secuenciaUtilizada: boolean | undefined;
}

function describeMessages(messages: readonly DgiiMessage[]): string {
  return messages.length === 0
    ? ''
    : `: ${messages.map((message) => (message.codigo === null ? message.valor : `${message.codigo} ${message.valor}`)).join('; ')}`;
}

/** The queues of documents' work (outbound_work.target). */
export const documentSends = 'document.send';
export const documentPolls = 'document.poll';

/** Where a document's signed XML is archived. */
interface SignedXmlEntry {
  blob_key: string;
  sha256: string;
}

/** A document this worker took to send: the row as claimed, the state it was claimed from, and this worker's lease. */
export interface ClaimedSend {
  row: repo.DocumentRow;
  previous: DocumentStatus;
  leaseId: string;
  signedXml: SignedXmlEntry | undefined;
}

/** What a send attempt got: a trackId or a verdict; `sent`: got by sending, so the attempt counts (not when found
 * by asking DGII about an attempt already counted). */
type SendDone =
  | { kind: 'track'; trackId: string; cause: string; sent: boolean }
  | { kind: 'verdict'; verdict: Verdict; source: string; sent: boolean };

/** A failed send attempt DGII certainly did not take; `counted` against the attempts (a missing certificate is not). */
interface NotTaken {
  untaken: true;
  counted: boolean;
  /** DGII could not be reached (unavailable, the connection failed): the e-CF is issued in contingency. */
  unreachable: boolean;
}

/** What a poll got: DGII's verdict, or, after enough questions, that DGII has no record of the trackId. */
type PollDone = { kind: 'verdict'; verdict: Verdict } | { kind: 'not_found' };

export interface Delivery {
  sends: WorkEngine<ClaimedSend>;
  polls: WorkEngine<repo.DocumentRow>;
  /** Claims up to `limit` documents whose send is due; during DGII's maintenance window, makes them wait instead. */
  claimDueSends(limit: number): Promise<ClaimedWork<ClaimedSend>[]>;
  /** One send attempt for document `documentId`, now, if no worker holds it. Safe to run twice, or on two workers. */
  attempt(documentId: string): Promise<void>;
  /** Asks DGII about document `documentId` waiting for its verdict, now, if no poller holds it. */
  pollNow(documentId: string): Promise<void>;
}

export function createDelivery(deps: {
  db: Db;
  clock: Clock;
  log: Logger;
  environment: FiscalEnvironment;
  dgii: DgiiClient;
  companies: CompaniesService;
  documents: DocumentsService;
  policy: DeliveryPolicy;
  /** The work target that takes an accepted document on to its buyer (modules/buyer-delivery); absent: none. */
  deliverAccepted?: string | undefined;
  random?: () => number;
}): Delivery {
  const { db, clock, log, environment, dgii, companies, documents, policy, deliverAccepted } = deps;

  // The one-statement changes made while an attempt runs, batched with those of the other documents in flight.
  const changeDocumentIf = repo.groupedDocumentChanges(db);

  const later = (ms: number) => new Date(clock.now().getTime() + ms);
  const retryBackoff = (attempts: number) =>
    backoffMs(Math.max(1, attempts), policy.retryDelayMs, policy.maxRetryDelayMs);

  /** The document as every document event's payload names it. */
  const documentNamed = (row: repo.DocumentRow) => ({ documentId: row.id, eNCF: row.encf, ecfType: row.ecf_type });

  function domainEventOf<T extends DomainEvent['type']>(
    row: repo.DocumentRow,
    type: T,
    payload: DomainEventPayload<T>,
  ): DomainEvent<T> {
    return { companyId: row.company_id, environment, type, payload, occurredAt: clock.now() };
  }

  async function event(
    trx: Trx,
    row: repo.DocumentRow,
    type: string,
    status: DocumentStatus | null,
    cause: string,
  ): Promise<void> {
    await documentEventInsertStatement(trx, { documentId: row.id, at: clock.now(), type, status, cause }).execute();
  }

  // ---- What DGII's answers change, as one-statement changes (recorded together, or alone in the engine's
  // ---- settling transaction).

  /** DGII's verdict, while `expected` holds: a final state, its messages, and whether the e-NCF was consumed. */
  function verdictChange(
    row: repo.DocumentRow,
    expected: repo.Expected,
    verdict: Verdict,
    source: string,
    sent: Pick<repo.StateChange, 'sent_at' | 'send_attempts'>,
    settleWork: repo.ChangeRecords['settleWork'],
  ): repo.DocumentChange {
    const status = verdictStatus[verdict.kind];
    const now = clock.now();
    const change: repo.StateChange = {
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
  function sendDoneChange(
    claimed: ClaimedSend,
    done: SendDone,
    settleWork?: repo.ChangeRecords['settleWork'],
  ): repo.DocumentChange {
    const { row, leaseId } = claimed;
    const now = clock.now();
    const attempted = done.sent ? { send_attempts: row.send_attempts + 1 } : {};
    if (done.kind === 'verdict') {
      const sent = done.sent ? { sent_at: row.sent_at ?? now, ...attempted } : {};
      return verdictChange(row, { leaseId }, done.verdict, done.source, sent, settleWork);
    }
    // `row` is as claimed: no one else changes a document while its lease is this worker's.
    const firstPoll = later(policy.firstPollDelayMs);
    const change: repo.StateChange = {
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
  function pollDoneChange(
    row: repo.DocumentRow,
    done: PollDone,
    settleWork?: repo.ChangeRecords['settleWork'],
  ): repo.DocumentChange {
    const trackId = row.track_id ?? '';
    const seen: repo.Expected = { status: 'in_process', trackId };
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

  /** Records changes together, each settling its queue row under its lease. Whether each applied. */
  function recordTogether<Item, Done>(
    target: string,
    changeOf: (item: Item, done: Done, settleWork: repo.ChangeRecords['settleWork']) => repo.DocumentChange,
  ) {
    return (batch: readonly { item: Item; result: Done; leaseId: string }[]) =>
      repo.changeDocumentsIf(
        db,
        batch.map(({ item, result, leaseId }) => changeOf(item, result, { target, leaseId, next: null })),
      );
  }

  // ---- The send's other settlements, in the engine's settling transaction.

  /** DGII did not take the bytes: back to `queued`, due again at `at`. */
  async function recordNotTaken(
    trx: Trx,
    row: repo.DocumentRow,
    detail: string,
    at: Date,
    failure: NotTaken,
  ): Promise<void> {
    const { counted } = failure;
    const attempts = row.send_attempts + (counted ? 1 : 0);
    await repo.updateDocument(trx, row.id, {
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
  async function recordSendFailed(trx: Trx, row: repo.DocumentRow, detail: string, counted: boolean): Promise<void> {
    const now = clock.now();
    const attempts = row.send_attempts + (counted ? 1 : 0);
    const cause = counted
      ? `attempt ${String(attempts)} of ${String(policy.maxAttempts)} failed (${detail}); no attempts left: retry it with POST /documentos/${row.id}/reintentar`
      : detail;
    await repo.updateDocument(trx, row.id, {
      status: 'send_failed',
      send_attempts: attempts,
      send_lease_id: null,
      send_lease_until: null,
      send_due_at: null,
      updated_at: now,
    });
    await event(trx, row, 'dgii.send_failed', 'send_failed', cause);
    await repo.openFailedJob(trx, {
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
      domainEventOf(row, 'document.send_failed', { ...documentNamed(row), reason: detail, attempts }),
    );
  }

  /**
   * DGII may have the bytes: the document stays `sending`, held by no worker until `askAt` (no one, a refresh either,
   * asks DGII before the request our client gave up on has settled), and the next attempt asks DGII before sending
   * anything. A failed job opens once attempts run out (or `giveUp`), but the questions go on.
   */
  async function recordUncertain(
    trx: Trx,
    row: repo.DocumentRow,
    detail: string,
    askAt: Date,
    giveUp = false,
  ): Promise<void> {
    const now = clock.now();
    const attempts = row.send_attempts + 1;
    await repo.updateDocument(trx, row.id, {
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
      await repo.openFailedJob(trx, {
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

  async function recordSend(trx: Trx, claimed: ClaimedSend, settlement: Settlement<SendDone, NotTaken>): Promise<void> {
    const { row } = claimed;
    switch (settlement.kind) {
      case 'done':
        await repo.changeDocumentsIf(trx, [sendDoneChange(claimed, settlement.result)]);
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
  }

  // ---- One send attempt.

  /** What DGII knows about an e-NCF we may have sent: a trackId, a verdict, nothing, or no answer now. */
  type Resolution =
    | { kind: 'track'; trackId: string }
    | { kind: 'verdict'; verdict: Verdict }
    | { kind: 'nothing' }
    | { kind: 'unknown'; detail: string };

  async function resolve(row: repo.DocumentRow, rnc: string): Promise<Resolution> {
    if (row.send_route === 'rfce') {
      const status: StatusByEncfOutcome = await dgii.statusByEncf(row.company_id, {
        rncEmisor: rnc,
        eNCF: row.encf,
        rncComprador: row.rnc_comprador ?? undefined,
        securityCode: row.security_code,
      });
      if (status.kind === 'accepted' || status.kind === 'conditional' || status.kind === 'rejected')
        return { kind: 'verdict', verdict: status };
      if (status.kind === 'not_found') return { kind: 'nothing' };
      return { kind: 'unknown', detail: status.kind === 'transient' ? status.detail : status.kind };
    }
    const tracks = await dgii.trackIds(row.company_id, { rncEmisor: rnc, eNCF: row.encf });
    if (tracks.kind === 'found') {
      const latest = [...tracks.entries].sort(
        (a, b) => (b.receivedAt?.getTime() ?? 0) - (a.receivedAt?.getTime() ?? 0),
      )[0];
      if (latest !== undefined) return { kind: 'track', trackId: latest.trackId };
      return { kind: 'nothing' };
    }
    if (tracks.kind === 'not_found') return { kind: 'nothing' };
    return { kind: 'unknown', detail: tracks.kind === 'transient' ? tracks.detail : tracks.kind };
  }

  /**
   * The bytes to DGII: the archived signed XML, named as DGII expects, or for an RFCE its summary. `leaving` is
   * called just before anything goes to DGII.
   */
  async function sendFile(
    row: repo.DocumentRow,
    file: { xml: Buffer; fileName: string },
    leaving: () => void,
  ): Promise<SendEcfOutcome | SendRfceOutcome> {
    if (row.send_route !== 'rfce') {
      leaving();
      return dgii.sendEcf(row.company_id, file);
    }
    // The RFCE summarises the archived e-CF 32 and is signed with the company's certificate; the full e-CF stays
    // archived and is what the integrator downloads. The RFCE is archived too, before it leaves: a resend after an
    // uncertain answer sends those same bytes.
    const kept = await documents.artefact(row.company_id, row.id, 'rfce-xml', 1);
    let rfce: Buffer;
    if (kept.ok) {
      rfce = kept.value.bytes;
    } else {
      const summary = buildRfce(file.xml.toString('utf8'));
      if (!summary.ok)
        return {
          kind: 'rejected',
          estado: null,
          codigo: null,
          messages: summary.findings.map((finding) => ({ codigo: finding.code, valor: finding.message })),
          secuenciaUtilizada: false,
          httpStatus: 0,
          encf: row.encf,
        };
      const identity = await companies.signingIdentity(row.company_id);
      if (identity === undefined) return { kind: 'no_credentials' };
      rfce = await documents.keepArtefact(
        row.company_id,
        row.id,
        'rfce-xml',
        Buffer.from(signXml(summary.xml, identity)),
      );
    }
    leaving();
    return dgii.sendRfce(row.company_id, { xml: rfce, fileName: file.fileName });
  }

  /** An answer still unknown: asked about again once the request our client gave up on has settled. */
  function unknownYet(row: repo.DocumentRow, reason: string): Outcome<SendDone, NotTaken> {
    return {
      kind: 'again',
      at: later(Math.max(policy.uncertainSettleMs, retryBackoff(row.send_attempts + 1))),
      reason,
    };
  }

  /** Not taken: a counted attempt (retried, or `send_failed` once attempts run out by the document's count). */
  function notTaken(
    row: repo.DocumentRow,
    reason: string,
    retryAt: Date | undefined,
    unreachable: boolean,
  ): Outcome<SendDone, NotTaken> {
    return {
      kind: 'failed',
      reason,
      retryAt,
      final: row.send_attempts + 1 >= policy.maxAttempts,
      failure: { untaken: true, counted: true, unreachable },
    };
  }

  function sendOutcome(claimed: ClaimedSend, outcome: SendEcfOutcome | SendRfceOutcome): Outcome<SendDone, NotTaken> {
    const { row, previous } = claimed;
    switch (outcome.kind) {
      case 'received':
        return {
          kind: 'done',
          result: {
            kind: 'track',
            trackId: outcome.trackId,
            cause: `DGII received it: trackId ${outcome.trackId}`,
            sent: true,
          },
        };
      case 'accepted':
      case 'conditional':
      case 'rejected':
        return {
          kind: 'done',
          result: {
            kind: 'verdict',
            verdict: outcome,
            source: row.send_route === 'rfce' ? 'DGII answered the RFCE' : 'DGII refused it at reception',
            sent: true,
          },
        };
      case 'transient':
        // DGII unavailable (its breaker open, a 503 before anything was read): not attempted, not counted.
        if (outcome.reason === 'unavailable')
          return {
            kind: 'deferred',
            reason: `${outcome.reason}: ${outcome.detail}`,
            until: outcome.retryAt ?? later(retryBackoff(row.send_attempts)),
          };
        return notTaken(row, `${outcome.reason}: ${outcome.detail}`, outcome.retryAt, dgiiOutOfReach[outcome.reason]);
      case 'uncertain':
        return unknownYet(row, `${outcome.reason}: ${outcome.detail}`);
      case 'unauthorized':
        return notTaken(
          row,
          `DGII refused the authentication (${outcome.reason})${describeMessages(outcome.messages)}`,
          undefined,
          false,
        );
      case 'no_credentials': {
        const detail =
          'the company has no certificate nor DGII session to authenticate with: install its certificate, then retry';
        // Taken from `sending`, it may be at DGII: it must be asked, not failed; the question waits like an uncertain one.
        if (previous === 'sending') return unknownYet(row, detail);
        return {
          kind: 'failed',
          reason: detail,
          final: true,
          failure: { untaken: true, counted: false, unreachable: false },
        };
      }
    }
  }

  /**
   * One attempt. An error of ours on the way (the signed XML's blob missing, the database lost mid-way) is a counted
   * attempt: before the bytes may have left (taken from `queued`, or DGII just said it has nothing), one DGII did not
   * take, retried and in the end `send_failed` with its reason; after, an answer still unknown, asked about before
   * anything is sent again.
   */
  async function performSend(claimed: ClaimedSend): Promise<Outcome<SendDone, NotTaken>> {
    const { row, previous, leaseId, signedXml } = claimed;
    let mayHaveIt = previous === 'sending';
    try {
      // Read as API issuing reads it (kept for recentReadMs): the company's RNC names the file sent.
      const company = (await companies.issuer(row.company_id))?.company;
      if (company === undefined) throw new Error(`document ${row.id}: its company is missing`);
      if (mayHaveIt) {
        const known = await resolve(row, company.rnc);
        switch (known.kind) {
          case 'track':
            return {
              kind: 'done',
              result: {
                kind: 'track',
                trackId: known.trackId,
                cause: `DGII already had it: trackId ${known.trackId} (found by asking about ${row.encf})`,
                sent: false,
              },
            };
          case 'verdict':
            return {
              kind: 'done',
              result: {
                kind: 'verdict',
                verdict: known.verdict,
                source: `DGII already had it (found by asking about ${row.encf})`,
                sent: false,
              },
            };
          case 'unknown':
            return unknownYet(row, `asking DGII about ${row.encf} failed: ${known.detail}`);
          case 'nothing': {
            const now = clock.now();
            const held = await changeDocumentIf({
              id: row.id,
              expected: { leaseId },
              change: { updated_at: now },
              records: {
                event: {
                  at: now,
                  type: 'dgii.resolved',
                  status: 'sending',
                  cause: `DGII has nothing for ${row.encf}: it is sent again`,
                },
              },
            });
            // The lease passed to another worker: it asks and sends, not this one (what is returned is not recorded).
            if (!held) return unknownYet(row, 'the lease passed to another worker');
            mayHaveIt = false;
          }
        }
      }
      if (signedXml === undefined) throw new Error(`document ${row.id}: its signed XML is missing from the archive`);
      const file = { xml: await documents.archivedBytes(signedXml), fileName: `${company.rnc}${row.encf}.xml` };
      const outcome = await sendFile(row, file, () => {
        mayHaveIt = true;
      });
      return sendOutcome(claimed, outcome);
    } catch (error) {
      const reason = `an error of this service: ${error instanceof Error ? error.message : String(error)}`;
      log.error({ err: error, documentId: row.id }, 'document send failed');
      if (mayHaveIt) return unknownYet(row, reason);
      return {
        kind: 'failed',
        reason,
        ours: true,
        final: row.send_attempts + 1 >= policy.maxAttempts,
        failure: { untaken: true, counted: true, unreachable: false },
      };
    }
  }

  const sendTarget: WorkTarget<ClaimedSend, SendDone, NotTaken> = {
    name: documentSends,
    policy: {
      leaseMs: policy.leaseMs,
      maxAttempts: policy.maxAttempts,
      retryDelayMs: exponentialBackoff(policy.retryDelayMs, policy.maxRetryDelayMs),
    },
    async claim(terms) {
      // Type 32 under DGII's threshold goes as an RFCE summary (Informe Técnico; research/dgii-protocol.md §8.1).
      const rows = await repo.claimForSending(db, terms, consumerSummaryThreshold);
      return rows.map(({ itemId, attempts, row }) => {
        if (row === undefined) return { itemId, attempts, item: undefined };
        const { previous_status: previous, signed_xml_blob_key: blobKey, signed_xml_sha256: sha256, ...document } = row;
        return {
          itemId,
          attempts,
          item: {
            row: document,
            previous,
            leaseId: terms.leaseId,
            signedXml: blobKey === null || sha256 === null ? undefined : { blob_key: blobKey, sha256 },
          },
        };
      });
    },
    perform: performSend,
    record: recordSend,
    recordDone: recordTogether(documentSends, sendDoneChange),
  };

  // ---- Polls.

  const pollTarget: WorkTarget<repo.DocumentRow, PollDone> = {
    name: documentPolls,
    // Attempts here are polls that failed on an error of ours (a DGII that does not answer is asked again, uncounted).
    policy: {
      leaseMs: policy.leaseMs,
      maxAttempts: policy.maxAttempts,
      retryDelayMs: exponentialBackoff(policy.firstPollDelayMs, policy.maxPollDelayMs),
    },
    async claim(terms) {
      return (await repo.claimPolls(db, terms)).map(({ itemId, attempts, row }) => ({ itemId, attempts, item: row }));
    },
    async perform(row) {
      if (row.track_id === null) throw new Error(`document ${row.id} is in process without a trackId`);
      const outcome = await dgii.result(row.company_id, row.track_id);
      switch (outcome.kind) {
        case 'accepted':
        case 'conditional':
        case 'rejected':
          return { kind: 'done', result: { kind: 'verdict', verdict: outcome } };
        case 'not_found':
          if (row.poll_count + 1 >= policy.notFoundAfterPolls) return { kind: 'done', result: { kind: 'not_found' } };
          break;
        case 'in_process':
        case 'transient':
        case 'unauthorized':
        case 'no_credentials':
          break;
      }
      // Still working, or no answer now: asked again later.
      return {
        kind: 'again',
        at: later(backoffMs(row.poll_count + 1, policy.firstPollDelayMs, policy.maxPollDelayMs)),
      };
    },
    async record(trx, row, settlement) {
      switch (settlement.kind) {
        case 'done':
          await repo.changeDocumentsIf(trx, [pollDoneChange(row, settlement.result)]);
          return;
        case 'again':
          // The poll counted, only while the document is as the poll saw it; nothing else about it changed.
          await repo.changeDocumentsIf(trx, [
            {
              id: row.id,
              expected: { status: 'in_process', trackId: row.track_id ?? '', pollCount: row.poll_count },
              change: { poll_count: row.poll_count + 1, next_poll_at: settlement.at, updated_at: clock.now() },
              records: {},
            },
          ]);
          return;
        case 'exhausted':
          // A document in process is never abandoned: DGII's verdict is still to come. Asked again at the longest wait.
          await outbound.enqueue(trx, [
            { target: documentPolls, itemId: row.id, environment, dueAt: later(policy.maxPollDelayMs) },
          ]);
          return;
        case 'retry':
        case 'deferred':
          return;
      }
    },
    recordDone: recordTogether(documentPolls, pollDoneChange),
  };

  const engineDeps = { db, clock, log, environment, ...(deps.random === undefined ? {} : { random: deps.random }) };
  const sends = createWorkEngine({ ...engineDeps, target: sendTarget });
  const polls = createWorkEngine({ ...engineDeps, target: pollTarget });

  /**
   * DGII's announced maintenance window running now, if any (statusecf; asked at most every few seconds per
   * process). Without the status service's API key, or when it does not answer, sending goes ahead: a DGII that is
   * down anyway answers 503, which is retried like any transient failure.
   */
  let availability: { at: number; window: { end: Date } | null } | undefined;
  async function maintenanceNow(): Promise<{ end: Date } | null> {
    const now = clock.now().getTime();
    if (availability === undefined || now - availability.at > availabilityTtlMs) {
      const status = await dgii.serviceStatus();
      availability = { at: now, window: status.kind === 'status' ? status.activeWindow : null };
    }
    return availability.window !== null && availability.window.end.getTime() > now ? availability.window : null;
  }

  return {
    sends,
    polls,
    async claimDueSends(limit) {
      const maintenance = await maintenanceNow();
      if (maintenance === null) return sends.claim(limit);
      // Paused, not failed: the documents wait for the window's end, and no attempt is counted.
      const end = maintenance.end.toISOString();
      await repo.holdDueSends(db, {
        target: documentSends,
        environment,
        now: clock.now(),
        until: maintenance.end,
        limit,
        cause: `not attempted (DGII is in a maintenance window until ${end}); DGII did not take it; next attempt at ${end}`,
      });
      return [];
    },
    async attempt(documentId) {
      // Asked now (a refresh): during a maintenance window it waits, due at the window's end, like the others.
      if ((await maintenanceNow()) !== null) return;
      for (const claimed of await sends.claimNow(documentId)) await sends.work(claimed);
    },
    async pollNow(documentId) {
      for (const claimed of await polls.claimNow(documentId)) await polls.work(claimed);
    },
  };
}
