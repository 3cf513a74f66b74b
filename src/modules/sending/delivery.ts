// Getting a signed document to DGII exactly once and following it to DGII's verdict (issue 6, DESIGN §5.2).
//
// The rule that makes "exactly once" hold whatever DGII, the network or our processes do: a document is marked
// `sending` (committed) BEFORE its bytes leave, and only a definite answer moves it on. So a document found in
// `sending` by a later attempt — after an uncertain outcome (timeout after the bytes left, reset, 5xx) or after a
// worker died mid-call — may already be at DGII, and is resolved by asking DGII about its e-NCF first (trackIds for
// reception, consultaestado for an RFCE); only a definite "DGII has nothing" lets the bytes go again. One worker at a
// time may talk to DGII about a document: the lease (send_lease_id/until) is taken in the same statement that
// marks it `sending`, and runs out if its worker dies. A document is its own send job: `send_due_at` says when a
// worker may next take it, and the workers' claim loop (platform/queue/claim-loop.ts) claims the due ones in
// batches; a claim moves it to when the lease runs out, so a killed worker's document is always taken up again
// (test/sending-crash.test.ts). The bytes sent are the archived signed bytes, never re-signed. The common steps (the
// claim, a trackId, a verdict, a poll's answer) are each ONE statement whose conditions (the lease, the state a poll
// saw) are its UPDATE's WHERE (sending.repo.ts changeDocumentsIf, batched with the other documents in flight): a worker whose lease passed, or a stale poll,
// changes nothing.
import Big from 'big.js';
import type { FiscalEnvironment } from '../../config.js';
import type { DgiiClient, DgiiMessage, ResultOutcome, SendEcfOutcome, SendRfceOutcome, StatusByEncfOutcome } from '../../dgii/index.js';
import { buildRfce } from '../../fiscal/responses/rfce.js';
import { signXml } from '../../fiscal/xmldsig/index.js';
import { backoffMs } from '../../platform/backoff.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { DocumentStatus } from '../../platform/db/schema.js';
import { transact, type Trx } from '../../platform/db/transact.js';
import { recordDomainEvent, type DomainEvent } from '../../platform/events/domain-events.js';
import { ok } from '../../platform/http/problems.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/observability/logger.js';
import type { CompaniesService } from '../companies/index.js';
import { insertDocumentEvent, type DocumentsService } from '../documents/index.js';
import * as repo from './sending.repo.js';

/** Type 32 under this amount (DOP) goes to DGII as an RFCE summary (Informe Técnico; research/dgii-protocol.md §8.1). */
const rfceThreshold = new Big('250000');

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

export const defaultDeliveryPolicy: DeliveryPolicy = {
  maxAttempts: 8,
  retryDelayMs: 2_000,
  maxRetryDelayMs: 5 * 60_000,
  leaseMs: 90_000,
  firstPollDelayMs: 1_000,
  maxPollDelayMs: 5 * 60_000,
  notFoundAfterPolls: 5,
  uncertainSettleMs: 60_000,
};

/** DGII's verdict in our states. */
const verdictStatus = { accepted: 'accepted', conditional: 'accepted_conditional', rejected: 'rejected' } as const satisfies Record<string, DocumentStatus>;

interface Verdict {
  kind: 'accepted' | 'conditional' | 'rejected';
  estado: string | null;
  codigo: string | null;
  messages: DgiiMessage[];
  secuenciaUtilizada: boolean | undefined;
}

function describeMessages(messages: readonly DgiiMessage[]): string {
  return messages.length === 0 ? '' : `: ${messages.map((message) => (message.codigo === null ? message.valor : `${message.codigo} ${message.valor}`)).join('; ')}`;
}

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

export interface Delivery {
  /** Claims up to `limit` documents whose send is due, for send() (the workers' claim loop). */
  claimDue(limit: number): Promise<ClaimedSend[]>;
  /** One send attempt for a claimed document. Safe to run twice, or at once on two workers. */
  send(claimed: ClaimedSend): Promise<void>;
  /** One send attempt for document `documentId`, now, if no worker holds it. */
  attempt(documentId: string): Promise<void>;
  /** Asks DGII about one document waiting for its verdict, now. */
  poll(row: repo.DocumentRow): Promise<void>;
  /** Claims up to `limit` documents whose next question to DGII is due, for poll() (the scheduler's poller). */
  claimDuePolls(limit: number): Promise<repo.DocumentRow[]>;
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
}): Delivery {
  const { db, clock, log, environment, dgii, companies, documents, policy } = deps;

  // The common steps' one-statement changes, batched with those of the other documents in flight.
  const changeDocumentIf = repo.groupedDocumentChanges(db);

  const later = (ms: number) => new Date(clock.now().getTime() + ms);

  async function event(trx: Trx, row: repo.DocumentRow, type: string, status: DocumentStatus | null, cause: string): Promise<void> {
    await insertDocumentEvent(trx, { documentId: row.id, at: clock.now(), type, status, cause }).execute();
  }

  function domainEventOf(row: repo.DocumentRow, type: string, extra: Record<string, unknown> = {}): DomainEvent {
    return { companyId: row.company_id, environment, type, payload: { documentId: row.id, eNCF: row.encf, ecfType: row.ecf_type, ...extra }, occurredAt: clock.now() };
  }

  async function domainEvent(trx: Trx, row: repo.DocumentRow, type: string, extra: Record<string, unknown> = {}): Promise<void> {
    await recordDomainEvent(trx, domainEventOf(row, type, extra));
  }

  /**
   * Records DGII's verdict while `expected` holds (one statement): a final state, its messages, and whether the
   * e-NCF was consumed. `sent`: what a verdict given at sending adds. Whether it was recorded.
   */
  function recordVerdict(row: repo.DocumentRow, expected: repo.Expected, verdict: Verdict, source: string, sent: Pick<repo.StateChange, 'sent_at' | 'send_attempts'> = {}): Promise<boolean> {
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
    return changeDocumentIf({ id: row.id, expected, change, records: {
      event: { at: now, type: `dgii.${verdict.kind}`, status, cause: `${source}: ${verdict.estado ?? verdict.kind}${describeMessages(verdict.messages)}` },
      closeFailedJobs: { at: now, because: `DGII's verdict: ${status}` },
      domainEvent: domainEventOf(row, `document.${status}`, { status, estado: verdict.estado, mensajes: verdict.messages }),
    } });
  }

  /** Records the trackId DGII gave while this worker holds the document (one statement). Whether it was recorded. */
  function recordTrackId(row: repo.DocumentRow, leaseId: string, trackId: string, cause: string): Promise<boolean> {
    const now = clock.now();
    // `row` is as claimed: no one else changes a document while its lease is this worker's.
    const change: repo.StateChange = { status: 'in_process', send_lease_id: null, send_lease_until: null, send_due_at: null, track_id: trackId, poll_count: 0, next_poll_at: later(policy.firstPollDelayMs), sent_at: row.sent_at ?? now, updated_at: now };
    return changeDocumentIf({ id: row.id, expected: { leaseId }, change, records: { event: { at: now, type: 'dgii.received', status: 'in_process', cause } } });
  }

  function warnUnlessHeld(recorded: boolean, row: repo.DocumentRow): void {
    if (!recorded) log.warn({ documentId: row.id }, 'send outcome not recorded: the lease passed to another worker');
  }

  /** A failure that proves DGII did not take the bytes: back to `queued` for a later attempt, or `send_failed`. */
  async function recordNotTaken(trx: Trx, row: repo.DocumentRow, detail: string, retryAt: Date | undefined, counts: boolean): Promise<void> {
    const now = clock.now();
    const attempts = row.send_attempts + (counts ? 1 : 0);
    if (counts && attempts >= policy.maxAttempts) {
      await repo.updateDocument(trx, row.id, { status: 'send_failed', send_attempts: attempts, send_lease_id: null, send_lease_until: null, send_due_at: null, updated_at: now });
      await event(trx, row, 'dgii.send_failed', 'send_failed', `attempt ${String(attempts)} of ${String(policy.maxAttempts)} failed (${detail}); no attempts left: retry it with POST /documentos/${row.id}/reintentar`);
      await repo.openFailedJob(trx, { id: newId('fjb'), companyId: row.company_id, environment, kind: 'document.send', documentId: row.id, reason: detail, attempts, at: now });
      await domainEvent(trx, row, 'document.send_failed', { reason: detail, attempts });
      return;
    }
    const at = retryAt ?? later(backoffMs(attempts, policy.retryDelayMs, policy.maxRetryDelayMs));
    await repo.updateDocument(trx, row.id, { status: 'queued', send_attempts: attempts, send_lease_id: null, send_lease_until: null, send_due_at: at, updated_at: now });
    await event(trx, row, 'dgii.not_taken', 'queued', `${counts ? `attempt ${String(attempts)} failed` : 'not attempted'} (${detail}); DGII did not take it; next attempt at ${at.toISOString()}`);
  }

  /**
   * DGII may hold the bytes (an uncertain outcome, or a worker that died mid-call): the document stays `sending`
   * and the next attempt asks DGII before sending anything. A failed job opens once attempts run out, but the
   * questions go on: giving up would need a resend, and a resend without an answer could send twice.
   */
  async function recordUncertain(trx: Trx, row: repo.DocumentRow, detail: string): Promise<void> {
    const now = clock.now();
    const attempts = row.send_attempts + 1;
    const askAt = later(Math.max(policy.uncertainSettleMs, backoffMs(attempts, policy.retryDelayMs, policy.maxRetryDelayMs)));
    // Held by no worker until the question is due: no one (a refresh either) asks DGII before the request our client
    // gave up on has settled.
    await repo.updateDocument(trx, row.id, { status: 'sending', send_attempts: attempts, send_lease_id: null, send_lease_until: askAt, send_due_at: askAt, updated_at: now });
    await event(trx, row, 'dgii.uncertain', 'sending', `DGII may have it (${detail}); it is asked about the e-NCF before anything is sent again`);
    if (attempts >= policy.maxAttempts) {
      await repo.openFailedJob(trx, { id: newId('fjb'), companyId: row.company_id, environment, kind: 'document.send', documentId: row.id, reason: `DGII's answer is still unknown after ${String(attempts)} attempts: ${detail}`, attempts, at: now });
    }
  }

  async function recordNoCredentials(trx: Trx, row: repo.DocumentRow, detail: string, previous: DocumentStatus): Promise<void> {
    if (previous === 'sending') {
      // It may be at DGII: it must be asked, not failed; the question waits like an uncertain one.
      await recordUncertain(trx, row, detail);
      return;
    }
    const now = clock.now();
    await repo.updateDocument(trx, row.id, { status: 'send_failed', send_lease_id: null, send_lease_until: null, send_due_at: null, updated_at: now });
    await event(trx, row, 'dgii.send_failed', 'send_failed', detail);
    await repo.openFailedJob(trx, { id: newId('fjb'), companyId: row.company_id, environment, kind: 'document.send', documentId: row.id, reason: detail, attempts: row.send_attempts, at: now });
    await domainEvent(trx, row, 'document.send_failed', { reason: detail, attempts: row.send_attempts });
  }

  /** Takes documents for this worker (sending.repo.ts claimForSending): one named, or up to a number of the due ones. */
  async function claim(target: repo.ClaimTarget): Promise<ClaimedSend[]> {
    const leaseId = newId('lse');
    const now = clock.now();
    const claimed = await repo.claimForSending(db, target, { leaseId, leaseUntil: later(policy.leaseMs), now, rfceThreshold: rfceThreshold.toString() });
    return claimed.map(({ previous_status: previous, signed_xml_blob_key: blobKey, signed_xml_sha256: sha256, ...row }) => ({
      row,
      previous,
      leaseId,
      signedXml: blobKey === null || sha256 === null ? undefined : { blob_key: blobKey, sha256 },
    }));
  }

  /** Records an outcome only while this worker still holds the document: a lease that ran out belongs to another. */
  async function whileHeld(row: repo.DocumentRow, leaseId: string, record: (trx: Trx, current: repo.DocumentRow) => Promise<void>): Promise<void> {
    await transact(db, async (trx) => {
      const current = await repo.lockDocument(trx, row.id);
      if (current?.send_lease_id !== leaseId) {
        log.warn({ documentId: row.id }, 'send outcome not recorded: the lease passed to another worker');
        return ok(undefined);
      }
      await record(trx, current);
      return ok(undefined);
    });
  }

  /** The archived signed XML the claim found, read and checked: the bytes sent, named as DGII expects. */
  async function fileOf(row: repo.DocumentRow, rnc: string, signedXml: SignedXmlEntry): Promise<{ xml: Buffer; fileName: string }> {
    return { xml: await documents.archivedBytes(signedXml), fileName: `${rnc}${row.encf}.xml` };
  }

  /** What DGII knows about an e-NCF we may have sent: a trackId, a verdict, nothing, or no answer now. */
  type Resolution = { kind: 'track'; trackId: string } | { kind: 'verdict'; verdict: Verdict } | { kind: 'nothing' } | { kind: 'unknown'; detail: string };

  async function resolve(row: repo.DocumentRow, rnc: string): Promise<Resolution> {
    if (row.send_route === 'rfce') {
      const status: StatusByEncfOutcome = await dgii.statusByEncf(row.company_id, { rncEmisor: rnc, eNCF: row.encf, rncComprador: row.rnc_comprador ?? undefined, securityCode: row.security_code });
      if (status.kind === 'accepted' || status.kind === 'conditional' || status.kind === 'rejected') return { kind: 'verdict', verdict: status };
      if (status.kind === 'not_found') return { kind: 'nothing' };
      return { kind: 'unknown', detail: status.kind === 'transient' ? status.detail : status.kind };
    }
    const tracks = await dgii.trackIds(row.company_id, { rncEmisor: rnc, eNCF: row.encf });
    if (tracks.kind === 'found') {
      const latest = [...tracks.entries].sort((a, b) => (b.receivedAt?.getTime() ?? 0) - (a.receivedAt?.getTime() ?? 0))[0];
      if (latest !== undefined) return { kind: 'track', trackId: latest.trackId };
      return { kind: 'nothing' };
    }
    if (tracks.kind === 'not_found') return { kind: 'nothing' };
    return { kind: 'unknown', detail: tracks.kind === 'transient' ? tracks.detail : tracks.kind };
  }

  async function sendFile(row: repo.DocumentRow, file: { xml: Buffer; fileName: string }): Promise<SendEcfOutcome | SendRfceOutcome> {
    if (row.send_route !== 'rfce') return dgii.sendEcf(row.company_id, file);
    // The RFCE summarises the archived e-CF 32 and is signed with the company's certificate; the full e-CF stays
    // archived and is what the integrator downloads. The RFCE is archived too, before it leaves: a resend after an
    // uncertain answer sends those same bytes.
    const kept = await documents.artefact(row.company_id, row.id, 'rfce-xml', 1);
    if (kept.ok) return dgii.sendRfce(row.company_id, { xml: kept.value.bytes, fileName: file.fileName });
    const summary = buildRfce(file.xml.toString('utf8'));
    if (!summary.ok) return { kind: 'rejected', estado: null, codigo: null, messages: summary.findings.map((finding) => ({ codigo: finding.code, valor: finding.message })), secuenciaUtilizada: false, httpStatus: 0, encf: row.encf };
    const identity = await companies.signingIdentity(row.company_id);
    if (identity === undefined) return { kind: 'no_credentials' };
    const rfce = await documents.keepArtefact(row.company_id, row.id, 'rfce-xml', Buffer.from(signXml(summary.xml, identity)));
    return dgii.sendRfce(row.company_id, { xml: rfce, fileName: file.fileName });
  }

  async function recordSendOutcome(row: repo.DocumentRow, leaseId: string, outcome: SendEcfOutcome | SendRfceOutcome, previous: DocumentStatus): Promise<void> {
    switch (outcome.kind) {
      case 'received':
        warnUnlessHeld(await recordTrackId(row, leaseId, outcome.trackId, `DGII received it: trackId ${outcome.trackId}`), row);
        return;
      case 'accepted':
      case 'conditional':
      case 'rejected': {
        const sent = { sent_at: row.sent_at ?? clock.now(), send_attempts: row.send_attempts + 1 };
        warnUnlessHeld(await recordVerdict(row, { leaseId }, outcome, row.send_route === 'rfce' ? 'DGII answered the RFCE' : 'DGII refused it at reception', sent), row);
        return;
      }
      case 'transient':
      case 'uncertain':
      case 'unauthorized':
      case 'no_credentials':
        // The outcomes that schedule another attempt: in a transaction, with their events and failed jobs.
        await whileHeld(row, leaseId, (trx, current) => recordFailedSend(trx, current, outcome, previous));
    }
  }

  async function recordFailedSend(trx: Trx, row: repo.DocumentRow, outcome: Exclude<SendEcfOutcome | SendRfceOutcome, { kind: 'received' | 'accepted' | 'conditional' | 'rejected' }>, previous: DocumentStatus): Promise<void> {
    switch (outcome.kind) {
      case 'transient':
        await recordNotTaken(trx, row, `${outcome.reason}: ${outcome.detail}`, outcome.retryAt, outcome.reason !== 'unavailable');
        return;
      case 'uncertain':
        await recordUncertain(trx, row, `${outcome.reason}: ${outcome.detail}`);
        return;
      case 'unauthorized':
        await recordNotTaken(trx, row, `DGII refused the authentication (${outcome.reason})${describeMessages(outcome.messages)}`, undefined, true);
        return;
      case 'no_credentials':
        await recordNoCredentials(trx, row, 'the company has no certificate nor DGII session to authenticate with: install its certificate, then retry', previous);
        return;
    }
  }

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

  /** Claims up to `limit` due documents; during a maintenance window, makes them wait for its end instead. */
  async function claimDue(limit: number): Promise<ClaimedSend[]> {
    const maintenance = await maintenanceNow();
    if (maintenance === null) return claim({ due: limit });
    // Paused, not failed: the documents wait for the window's end, and no attempt is counted.
    const end = maintenance.end.toISOString();
    await repo.holdDueSends(db, clock.now(), maintenance.end, limit, `not attempted (DGII is in a maintenance window until ${end}); DGII did not take it; next attempt at ${end}`);
    return [];
  }

  /**
   * One attempt; an error of ours on the way (the signed XML's blob missing, the database lost mid-way) is recorded
   * as an uncertain attempt, since DGII may or may not have the bytes by then: counted, shown in the timeline, asked
   * about before anything is sent again, and a failed job once attempts run out. Left to the lease, the document
   * would be taken up every lease for ever, with nothing to show for it.
   */
  async function send(claimed: ClaimedSend): Promise<void> {
    try {
      await sendOnce(claimed);
    } catch (error) {
      const detail = `an error of this service: ${error instanceof Error ? error.message : String(error)}`;
      log.error({ err: error, documentId: claimed.row.id }, 'document send failed');
      await whileHeld(claimed.row, claimed.leaseId, (trx, current) => recordUncertain(trx, current, detail));
    }
  }

  async function sendOnce(claimed: ClaimedSend): Promise<void> {
    const { row, previous, leaseId, signedXml } = claimed;
    // Read as API issuing reads it (kept for recentReadMs): the company's RNC names the file sent.
    const company = (await companies.issuer(row.company_id))?.company;
    if (company === undefined || signedXml === undefined) throw new Error(`document ${row.id}: its company or its signed XML is missing`);
    const file = await fileOf(row, company.rnc, signedXml);

    if (previous === 'sending') {
      const known = await resolve(row, company.rnc);
      switch (known.kind) {
        case 'track':
          warnUnlessHeld(await recordTrackId(row, leaseId, known.trackId, `DGII already had it: trackId ${known.trackId} (found by asking about ${row.encf})`), row);
          return;
        case 'verdict':
          warnUnlessHeld(await recordVerdict(row, { leaseId }, known.verdict, `DGII already had it (found by asking about ${row.encf})`), row);
          return;
        case 'unknown':
          await whileHeld(row, leaseId, (trx, current) => recordUncertain(trx, current, `asking DGII about ${row.encf} failed: ${known.detail}`));
          return;
        case 'nothing':
          await whileHeld(row, leaseId, (trx, current) => event(trx, current, 'dgii.resolved', 'sending', `DGII has nothing for ${row.encf}: it is sent again`));
      }
    }

    const outcome = await sendFile(row, file);
    await recordSendOutcome(row, leaseId, outcome, previous);
  }

  /**
   * Records DGII's answer about `trackId` in one statement, only while the document is as the poll saw it: still
   * `in_process` under that trackId (and, for an answer that counts a poll, with the polls it saw counted). A stale
   * poll (the document moved on, or another poll recorded its answer first) changes nothing.
   */
  async function recordResult(row: repo.DocumentRow, trackId: string, outcome: ResultOutcome): Promise<void> {
    const now = clock.now();
    const seen: repo.Expected = { status: 'in_process', trackId };
    const polls = row.poll_count + 1;
    const pollCounted = { ...seen, pollCount: row.poll_count };
    switch (outcome.kind) {
      case 'accepted':
      case 'conditional':
      case 'rejected':
        await recordVerdict(row, seen, outcome, `DGII's verdict for trackId ${trackId}`);
        return;
      case 'not_found':
        if (polls >= policy.notFoundAfterPolls) {
          await changeDocumentIf({ id: row.id, expected: pollCounted, change: { status: 'not_found', poll_count: polls, next_poll_at: null, updated_at: now }, records: {
            event: { at: now, type: 'dgii.not_found', status: 'not_found', cause: `DGII has no record of trackId ${trackId} after ${String(polls)} questions; retry it with POST /documentos/${row.id}/reintentar` },
            domainEvent: domainEventOf(row, 'document.not_found', { trackId }),
          } });
          return;
        }
        break;
      case 'in_process':
      case 'transient':
      case 'unauthorized':
      case 'no_credentials':
        break;
    }
    // Still working, or no answer now: ask again later; nothing about the document changed.
    await changeDocumentIf({ id: row.id, expected: pollCounted, change: { poll_count: polls, next_poll_at: later(backoffMs(polls, policy.firstPollDelayMs, policy.maxPollDelayMs)), updated_at: now }, records: {} });
  }

  async function poll(row: repo.DocumentRow): Promise<void> {
    if (row.track_id === null) return;
    await recordResult(row, row.track_id, await dgii.result(row.company_id, row.track_id));
  }

  return {
    claimDue,
    send,
    async attempt(documentId) {
      // Asked now (a refresh): during a maintenance window it waits, due at the window's end, like the others.
      if ((await maintenanceNow()) !== null) return;
      for (const claimed of await claim({ id: documentId })) await send(claimed);
    },
    poll,
    claimDuePolls(limit) {
      return repo.claimDuePolls(db, clock.now(), later(policy.leaseMs), limit);
    },
  };
}
