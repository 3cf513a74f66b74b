// Delivering a commercial response (ACECF) by jobs: one delivery to the issuer's receiver and one to DGII
// (research/dgii-protocol.md §6.1: "if it does, it must also send a copy to DGII"), each with its own state
// (`pending` → `delivered` | `failed` (will retry) | `exhausted`), attempts with backoff, and every attempt on the
// received document's timeline. Both send the archived signed bytes, never re-signed.
//
// One worker at a time per delivery: a lease is taken in the transaction that claims it and an outcome is recorded
// only while the lease is still held. Sending the same ACECF twice (a worker that died after sending, a timeout
// after the bytes left) is harmless: it is the same signed answer about the same e-CF, so an uncertain outcome is
// simply retried. Every failed attempt is retried, a refusal too: DGII takes an approval only once it has accepted
// the e-CF, which may be after the issuer sent it to us (§6.1), and a receiver may be briefly misconfigured.
import type { FiscalEnvironment } from '../../config.js';
import type { DgiiClient, DgiiMessage, HttpTransport, SendAcecfOutcome } from '../../dgii/index.js';
import { backoffMs } from '../../platform/backoff.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { ResponseDeliveryTarget } from '../../platform/db/schema.js';
import { transact, type Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { ok } from '../../platform/http/problems.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/observability/logger.js';
import { readArchived, type BlobStore } from '../../platform/storage/index.js';
import type { CompaniesService } from '../companies/index.js';
import { deliverToIssuer } from './commercial-response-issuer.js';
import * as responses from './commercial-response.repo.js';
import type { ScheduleResponseDelivery } from './commercial-response.service.js';
import * as repo from './received.repo.js';

export interface ResponseDeliveryPolicy {
  /** Attempts before a delivery is `exhausted`. */
  maxAttempts: number;
  /** First retry delay; doubled per attempt, with jitter, up to maxRetryDelayMs. */
  retryDelayMs: number;
  maxRetryDelayMs: number;
  /** How long one worker holds a delivery: longer than its calls (directory, seed, token, post). */
  leaseMs: number;
}

export const defaultResponseDeliveryPolicy: ResponseDeliveryPolicy = { maxAttempts: 8, retryDelayMs: 5_000, maxRetryDelayMs: 30 * 60_000, leaseMs: 120_000 };

/** The lease for the client's timeouts: an attempt to the issuer makes up to four calls (directory, seed, token, post). */
export function responseDeliveryLeaseMs(timeouts: { connectMs: number; responseMs: number }): number {
  return Math.max(defaultResponseDeliveryPolicy.leaseMs, 5 * (timeouts.connectMs + timeouts.responseMs));
}

export interface ResponseDelivery {
  /** One attempt of one delivery (the job). Safe to run twice, or at once on two workers. */
  attempt(receivedDocumentId: string, target: ResponseDeliveryTarget): Promise<void>;
}

type Attempted =
  | { ok: true; url: string | null; answer: Record<string, unknown>; note: string }
  | { ok: false; url: string | null; answer: Record<string, unknown> | null; detail: string; notAttempted?: { retryAt: Date | undefined } };

function describeMessages(messages: readonly DgiiMessage[]): string {
  return messages.length === 0 ? '' : `: ${messages.map((message) => (message.codigo === null ? message.valor : `${message.codigo} ${message.valor}`)).join('; ')}`;
}

function dgiiAttempted(outcome: SendAcecfOutcome, url: string): Attempted {
  switch (outcome.kind) {
    case 'accepted':
      return { ok: true, url, answer: { httpStatus: 200, estado: outcome.estado, codigo: outcome.codigo, mensajes: outcome.messages }, note: `DGII took it: ${outcome.estado ?? 'accepted'}` };
    case 'rejected':
      return { ok: false, url, answer: { httpStatus: outcome.httpStatus, estado: outcome.estado, codigo: outcome.codigo, mensajes: outcome.messages }, detail: `DGII refused it (HTTP ${String(outcome.httpStatus)}, ${outcome.estado ?? 'rejected'})${describeMessages(outcome.messages)}` };
    case 'transient':
      // The circuit breaker is open: nothing left, so the attempt is not counted (as for sending).
      if (outcome.reason === 'unavailable') return { ok: false, url, answer: null, detail: `not attempted: ${outcome.detail}`, notAttempted: { retryAt: outcome.retryAt } };
      return { ok: false, url, answer: outcome.httpStatus === undefined ? null : { httpStatus: outcome.httpStatus }, detail: `${outcome.kind} ${outcome.reason}: ${outcome.detail}` };
    case 'uncertain':
      return { ok: false, url, answer: outcome.httpStatus === undefined ? null : { httpStatus: outcome.httpStatus }, detail: `${outcome.kind} ${outcome.reason}: ${outcome.detail}` };
    case 'unauthorized':
      return { ok: false, url, answer: null, detail: `DGII refused the authentication (${outcome.reason})${describeMessages(outcome.messages)}` };
    case 'no_credentials':
      return { ok: false, url, answer: null, detail: 'the company has no certificate nor DGII session to authenticate with' };
  }
}

export function createResponseDelivery(deps: {
  db: Db;
  clock: Clock;
  log: Logger;
  blobs: BlobStore;
  environment: FiscalEnvironment;
  dgii: DgiiClient;
  /** Where DGII's ACECF service is, as the client reaches it (shown on the delivery). */
  dgiiAcecfUrl: string;
  transport: HttpTransport;
  companies: Pick<CompaniesService, 'get' | 'signingIdentity'>;
  scheduleDelivery: ScheduleResponseDelivery;
  policy: ResponseDeliveryPolicy;
}): ResponseDelivery {
  const { db, clock, log, blobs, environment, dgii, transport, companies, scheduleDelivery, policy } = deps;
  const later = (ms: number) => new Date(clock.now().getTime() + ms);

  async function claim(receivedDocumentId: string, target: ResponseDeliveryTarget): Promise<{ row: responses.DeliveryRow; leaseId: string } | undefined> {
    const claimed = await transact(db, async (trx) => {
      const row = await responses.lockDelivery(trx, receivedDocumentId, target);
      const now = clock.now();
      if (row === undefined || row.status === 'delivered' || row.status === 'exhausted') return ok(undefined);
      if (row.lease_until !== null && row.lease_until > now) {
        // Another worker holds it; if that worker died, this follow-up takes it up when the lease runs out.
        await scheduleDelivery(trx, { receivedDocumentId, target }, row.lease_until);
        return ok(undefined);
      }
      const leaseId = newId('lse');
      await responses.updateDelivery(trx, receivedDocumentId, target, { lease_id: leaseId, lease_until: later(policy.leaseMs), updated_at: now });
      return ok({ row, leaseId });
    });
    return claimed.ok ? claimed.value : undefined;
  }

  async function perform(row: responses.DeliveryRow, received: repo.ReceivedRow, xml: Buffer): Promise<Attempted> {
    const company = await companies.get(row.company_id);
    if (company === undefined) throw new Error(`received document ${row.received_document_id}: its company is missing`);
    // ACECF file name: RNCComprador + eNCF + .xml (DT; research/dgii-protocol.md §9.4).
    const file = { xml, fileName: `${company.rnc}${received.encf}.xml` };
    if (row.target === 'dgii') return dgiiAttempted(await dgii.sendAcecf(row.company_id, file), deps.dgiiAcecfUrl);

    const found = await dgii.directory(row.company_id, received.issuer_rnc);
    if (found.kind === 'not_found') return { ok: false, url: null, answer: null, detail: `the issuer ${received.issuer_rnc} is not in DGII's directory of electronic receivers` };
    if (found.kind !== 'found') return { ok: false, url: null, answer: null, detail: `DGII's directory did not answer (${found.kind === 'transient' ? `${found.reason}: ${found.detail}` : found.kind})` };
    const key = await companies.signingIdentity(row.company_id);
    if (key === undefined) return { ok: false, url: null, answer: null, detail: 'the company has no certificate to authenticate at the issuer with' };
    const sent = await deliverToIssuer(transport, found.entry, file, key);
    switch (sent.kind) {
      case 'delivered':
        return { ok: true, url: sent.url, answer: { httpStatus: sent.httpStatus }, note: `the issuer's receiver took it (HTTP ${String(sent.httpStatus)})` };
      case 'refused':
        return { ok: false, url: sent.url, answer: { httpStatus: sent.httpStatus }, detail: `the issuer's receiver refused it: ${sent.detail}` };
      case 'failed':
        return { ok: false, url: sent.url, answer: null, detail: sent.detail };
    }
  }

  async function record(trx: Trx, current: responses.DeliveryRow, received: repo.ReceivedRow, attempted: Attempted): Promise<void> {
    const now = clock.now();
    const attempts = current.attempts + 1;
    const { received_document_id: id, target } = current;
    const where = attempted.url === null ? '' : ` at ${attempted.url}`;
    const base = { receivedDocumentId: id, issuerRnc: received.issuer_rnc, eNCF: received.encf, ecfType: received.ecf_type, target, attempts };
    const done = { lease_id: null, lease_until: null, attempts, target_url: attempted.url ?? current.target_url, answer: attempted.answer === null ? null : JSON.stringify(attempted.answer), updated_at: now };
    if (attempted.ok) {
      await responses.updateDelivery(trx, id, target, { ...done, status: 'delivered', last_error: null, next_attempt_at: null, delivered_at: now });
      await repo.insertEvent(trx, { receivedDocumentId: id, at: now, type: `commercial_response.${target}.delivered`, status: 'delivered', cause: `ACECF to ${target}, attempt ${String(attempts)}: delivered${where}; ${attempted.note}` }).execute();
      await recordDomainEvent(trx, { companyId: current.company_id, environment, type: 'received_document.commercial_response_delivered', payload: base, occurredAt: now });
      return;
    }
    if (attempted.notAttempted !== undefined) {
      const at = attempted.notAttempted.retryAt ?? later(backoffMs(current.attempts + 1, policy.retryDelayMs, policy.maxRetryDelayMs));
      await responses.updateDelivery(trx, id, target, { lease_id: null, lease_until: null, next_attempt_at: at, updated_at: now });
      await repo.insertEvent(trx, { receivedDocumentId: id, at: now, type: `commercial_response.${target}.deferred`, status: current.status, cause: `ACECF to ${target}: ${attempted.detail}; next attempt at ${at.toISOString()}` }).execute();
      await scheduleDelivery(trx, { receivedDocumentId: id, target }, at);
      return;
    }
    if (attempts >= policy.maxAttempts) {
      await responses.updateDelivery(trx, id, target, { ...done, status: 'exhausted', last_error: attempted.detail, next_attempt_at: null });
      await repo.insertEvent(trx, { receivedDocumentId: id, at: now, type: `commercial_response.${target}.exhausted`, status: 'exhausted', cause: `ACECF to ${target}, attempt ${String(attempts)} of ${String(policy.maxAttempts)} failed${where} (${attempted.detail}); no attempts left` }).execute();
      await recordDomainEvent(trx, { companyId: current.company_id, environment, type: 'received_document.commercial_response_failed', payload: { ...base, reason: attempted.detail }, occurredAt: now });
      return;
    }
    const next = later(backoffMs(attempts, policy.retryDelayMs, policy.maxRetryDelayMs));
    await responses.updateDelivery(trx, id, target, { ...done, status: 'failed', last_error: attempted.detail, next_attempt_at: next });
    await repo.insertEvent(trx, { receivedDocumentId: id, at: now, type: `commercial_response.${target}.failed`, status: 'failed', cause: `ACECF to ${target}, attempt ${String(attempts)} of ${String(policy.maxAttempts)} failed${where} (${attempted.detail}); next attempt at ${next.toISOString()}` }).execute();
    await scheduleDelivery(trx, { receivedDocumentId: id, target }, next);
  }

  /** The signed ACECF as archived: the bytes every delivery sends. */
  async function archivedAcecf(receivedDocumentId: string): Promise<Buffer> {
    const artefact = await repo.findArtefact(db, receivedDocumentId, 'acecf-xml');
    if (artefact === undefined) throw new Error(`received document ${receivedDocumentId} has no acecf-xml`);
    return readArchived(blobs, artefact);
  }

  return {
    async attempt(receivedDocumentId, target) {
      const claimed = await claim(receivedDocumentId, target);
      if (claimed === undefined) return;
      const { row, leaseId } = claimed;
      // The delivery row's foreign key keeps its received document.
      const received = await responses.receivedById(db, receivedDocumentId);
      if (received === undefined) throw new Error(`received document ${receivedDocumentId} is missing`);
      let attempted: Attempted;
      try {
        attempted = await perform(row, received, await archivedAcecf(receivedDocumentId));
      } catch (error) {
        // A bug or broken infrastructure of ours (the archived ACECF gone, a database lost mid-way): logged, and
        // counted as a failed attempt, so it is retried with backoff and ends `exhausted` with its reason. Thrown
        // instead, the job's retries would find the lease still held and take it up again every lease, for ever,
        // with nothing counted or shown.
        log.error({ err: error, receivedDocumentId, target }, 'commercial response delivery failed unexpectedly');
        attempted = { ok: false, url: null, answer: null, detail: `an error of this service: ${error instanceof Error ? error.message : String(error)}` };
      }
      await transact(db, async (trx) => {
        const current = await responses.lockDelivery(trx, receivedDocumentId, target);
        if (current?.lease_id !== leaseId) {
          log.warn({ receivedDocumentId, target }, 'delivery outcome not recorded: the lease passed to another worker');
          return ok(undefined);
        }
        await record(trx, current, received, attempted);
        return ok(undefined);
      });
    },
  };
}
