// Delivering a commercial response (ACECF): one delivery to the issuer's receiver and one to DGII
// (research/dgii-protocol.md §6.1: "if it does, it must also send a copy to DGII"), each a target of the outbound
// work engine (platform/work), which claims, leases, counts and retries. Each delivery has its own state (`pending` →
// `delivered` | `failed` (will retry) | `exhausted`), and every attempt is on the received document's timeline. Both
// send the archived signed bytes, never re-signed.
//
// Sending the same ACECF twice (a worker that died after sending, a timeout after the bytes left) is harmless: it is
// the same signed answer about the same e-CF, so an uncertain outcome is simply retried. Every failed attempt is
// retried, a refusal too: DGII takes an approval only once it has accepted the e-CF, which may be after the issuer
// sent it to us (§6.1), and a receiver may be briefly misconfigured.
import { maxRetryDelayMs, type FiscalEnvironment } from '../../config.js';
import type { DgiiClient, DgiiMessage, ReceiverClient, SendAcecfOutcome } from '../../dgii/index.js';
import { exponentialBackoff } from '../../platform/backoff.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { ResponseDeliveryTarget, ReceivedTables } from './tables.js';
import type { Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { readArchived, type BlobStore } from '../../platform/storage/index.js';
import type { Outcome, Settlement, WorkTarget } from '../../platform/work/work-engine.js';
import type { CompaniesService } from '../companies/index.js';
import type { Directory } from '../taxpayers/index.js';
import { deliverToIssuer } from './outgoing-response-issuer.js';
import * as responses from './outgoing-response.repo.js';
import * as repo from './received.repo.js';

export interface ResponseDeliveryPolicy {
  /** Attempts before a delivery is `exhausted`. */
  maxAttempts: number;
  /** First retry delay; doubled per attempt, with jitter, up to maxRetryDelayMs.commercialResponses. */
  retryDelayMs: number;
  /** How long one worker holds a delivery: longer than its calls (directory, seed, token, post). */
  leaseMs: number;
}

/**
 * The lease for the client's timeouts: an attempt to the issuer makes up to four calls (directory, seed, token, post),
 * each within them, and reads the archive and records besides.
 */
export function responseDeliveryLeaseMs(timeouts: { connectMs: number; responseMs: number }): number {
  return 5 * (timeouts.connectMs + timeouts.responseMs);
}

/** The outbound work target of each delivery (outbound_work.target). */
export const responseDeliveryTargets = { issuer: 'acecf.issuer', dgii: 'acecf.dgii' } as const satisfies Record<
  ResponseDeliveryTarget,
  string
>;

/** A delivery as an attempt needs it: its row and its received document. */
interface DeliveryItem {
  row: responses.DeliveryRow;
  received: repo.ReceivedRow;
}

/** Where an attempt went and what the other side answered. */
interface Reached {
  url: string | null;
  answer: Record<string, unknown> | null;
}

type Attempted =
  | { ok: true; url: string | null; answer: Record<string, unknown>; note: string }
  | {
      ok: false;
      url: string | null;
      answer: Record<string, unknown> | null;
      detail: string;
      notAttempted?: { retryAt: Date | undefined };
    };

function describeMessages(messages: readonly DgiiMessage[]): string {
  return messages.length === 0
    ? ''
    : `: ${messages.map((message) => (message.codigo === null ? message.valor : `${message.codigo} ${message.valor}`)).join('; ')}`;
}

function dgiiAttempted(outcome: SendAcecfOutcome, url: string): Attempted {
  switch (outcome.kind) {
    case 'accepted':
      return {
        ok: true,
        url,
        answer: { httpStatus: 200, estado: outcome.estado, codigo: outcome.codigo, mensajes: outcome.messages },
        note: `DGII took it: ${outcome.estado ?? 'accepted'}`,
      };
    case 'rejected':
      return {
        ok: false,
        url,
        answer: {
          httpStatus: outcome.httpStatus,
          estado: outcome.estado,
          codigo: outcome.codigo,
          mensajes: outcome.messages,
        },
        detail: `DGII refused it (HTTP ${String(outcome.httpStatus)}, ${outcome.estado ?? 'rejected'})${describeMessages(outcome.messages)}`,
      };
    case 'transient':
      // The circuit breaker is open: nothing left, so the attempt is not counted (as for sending).
      if (outcome.reason === 'unavailable')
        return {
          ok: false,
          url,
          answer: null,
          detail: `not attempted: ${outcome.detail}`,
          notAttempted: { retryAt: outcome.retryAt },
        };
      return {
        ok: false,
        url,
        answer: outcome.httpStatus === undefined ? null : { httpStatus: outcome.httpStatus },
        detail: `${outcome.kind} ${outcome.reason}: ${outcome.detail}`,
      };
    case 'uncertain':
      return {
        ok: false,
        url,
        answer: outcome.httpStatus === undefined ? null : { httpStatus: outcome.httpStatus },
        detail: `${outcome.kind} ${outcome.reason}: ${outcome.detail}`,
      };
    case 'unauthorized':
      return {
        ok: false,
        url,
        answer: null,
        detail: `DGII refused the authentication (${outcome.reason})${describeMessages(outcome.messages)}`,
      };
    case 'no_credentials':
      return {
        ok: false,
        url,
        answer: null,
        detail: 'the company has no certificate nor DGII session to authenticate with',
      };
  }
}

export function createResponseDeliveryTarget(deps: {
  db: Db<ReceivedTables>;
  clock: Clock;
  blobs: BlobStore;
  environment: FiscalEnvironment;
  dgii: DgiiClient;
  receivers: ReceiverClient;
  directory: Directory;
  companies: Pick<CompaniesService, 'get' | 'signingIdentity'>;
  target: ResponseDeliveryTarget;
  policy: ResponseDeliveryPolicy;
}): WorkTarget<DeliveryItem, Reached & { note: string }, Reached> {
  const { db, clock, blobs, environment, dgii, receivers, directory, companies, target, policy } = deps;

  async function perform(row: responses.DeliveryRow, received: repo.ReceivedRow, xml: Buffer): Promise<Attempted> {
    const company = await companies.get(row.company_id);
    if (company === undefined) throw new Error(`received document ${row.received_document_id}: its company is missing`);
    // ACECF file name: RNCComprador + eNCF + .xml (DT; research/dgii-protocol.md §9.4).
    const file = { xml, fileName: `${company.rnc}${received.encf}.xml` };
    if (row.target === 'dgii') return dgiiAttempted(await dgii.sendAcecf(row.company_id, file), dgii.acecfUrl);

    const found = await directory.lookup(received.issuer_rnc, row.company_id);
    if (found.kind === 'not_found')
      return {
        ok: false,
        url: null,
        answer: null,
        detail: `the issuer ${received.issuer_rnc} is not in DGII's directory of electronic receivers`,
      };
    if (found.kind === 'unknown') return { ok: false, url: null, answer: null, detail: found.detail };
    const key = await companies.signingIdentity(row.company_id);
    if (key === undefined)
      return {
        ok: false,
        url: null,
        answer: null,
        detail: 'the company has no certificate to authenticate at the issuer with',
      };
    const sent = await deliverToIssuer(receivers, { companyId: row.company_id, entry: found.entry, acecf: file, key });
    switch (sent.kind) {
      case 'delivered':
        return {
          ok: true,
          url: sent.url,
          answer: { httpStatus: sent.httpStatus },
          note: `the issuer's receiver took it (HTTP ${String(sent.httpStatus)})`,
        };
      case 'refused':
        return {
          ok: false,
          url: sent.url,
          answer: { httpStatus: sent.httpStatus },
          detail: `the issuer's receiver refused it: ${sent.detail}`,
        };
      case 'failed':
        return { ok: false, url: sent.url, answer: null, detail: sent.detail };
    }
  }

  /** The signed ACECF as archived: the bytes every delivery sends. */
  async function archivedAcecf(receivedDocumentId: string): Promise<Buffer> {
    const artefact = await repo.findArtefact(db, receivedDocumentId, 'acecf-xml');
    if (artefact === undefined) throw new Error(`received document ${receivedDocumentId} has no acecf-xml`);
    return readArchived(blobs, artefact);
  }

  async function record(
    trx: Trx<ReceivedTables>,
    { row, received }: DeliveryItem,
    settlement: Settlement<Reached & { note: string }, Reached>,
  ): Promise<void> {
    const now = clock.now();
    const { received_document_id: id } = row;
    const reached =
      settlement.kind === 'done'
        ? settlement.result
        : settlement.kind === 'retry' || settlement.kind === 'exhausted'
          ? settlement.failure
          : undefined;
    const where = reached?.url == null ? '' : ` at ${reached.url}`;
    const base = {
      receivedDocumentId: id,
      issuerRnc: received.issuer_rnc,
      eNCF: received.encf,
      ecfType: received.ecf_type,
      target,
      attempts: settlement.attempts,
    };
    const done = {
      attempts: settlement.attempts,
      target_url: reached?.url ?? row.target_url,
      answer: reached?.answer == null ? null : JSON.stringify(reached.answer),
      updated_at: now,
    };
    switch (settlement.kind) {
      case 'done':
        await responses.updateDelivery(trx, id, target, {
          ...done,
          status: 'delivered',
          last_error: null,
          next_attempt_at: null,
          delivered_at: now,
        });
        await repo
          .insertEventStatement(trx, {
            receivedDocumentId: id,
            at: now,
            type: `commercial_response.${target}.delivered`,
            status: 'delivered',
            cause: `ACECF to ${target}, attempt ${String(settlement.attempts)}: delivered${where}; ${settlement.result.note}`,
          })
          .execute();
        await recordDomainEvent(trx, {
          companyId: row.company_id,
          environment,
          type: 'received_document.commercial_response_delivered',
          payload: base,
          occurredAt: now,
        });
        return;
      case 'deferred':
        await responses.updateDelivery(trx, id, target, {
          attempts: settlement.attempts,
          next_attempt_at: settlement.at,
          updated_at: now,
        });
        await repo
          .insertEventStatement(trx, {
            receivedDocumentId: id,
            at: now,
            type: `commercial_response.${target}.deferred`,
            status: row.status,
            cause: `ACECF to ${target}: ${settlement.reason}; next attempt at ${settlement.at.toISOString()}`,
          })
          .execute();
        return;
      case 'exhausted':
        await responses.updateDelivery(trx, id, target, {
          ...done,
          status: 'exhausted',
          last_error: settlement.reason,
          next_attempt_at: null,
        });
        await repo
          .insertEventStatement(trx, {
            receivedDocumentId: id,
            at: now,
            type: `commercial_response.${target}.exhausted`,
            status: 'exhausted',
            cause: `ACECF to ${target}, attempt ${String(settlement.attempts)} of ${String(settlement.maxAttempts)} failed${where} (${settlement.reason}); no attempts left`,
          })
          .execute();
        await recordDomainEvent(trx, {
          companyId: row.company_id,
          environment,
          type: 'received_document.commercial_response_failed',
          payload: { ...base, reason: settlement.reason },
          occurredAt: now,
        });
        return;
      case 'retry':
        await responses.updateDelivery(trx, id, target, {
          ...done,
          status: 'failed',
          last_error: settlement.reason,
          next_attempt_at: settlement.at,
        });
        await repo
          .insertEventStatement(trx, {
            receivedDocumentId: id,
            at: now,
            type: `commercial_response.${target}.failed`,
            status: 'failed',
            cause: `ACECF to ${target}, attempt ${String(settlement.attempts)} of ${String(settlement.maxAttempts)} failed${where} (${settlement.reason}); next attempt at ${settlement.at.toISOString()}`,
          })
          .execute();
        return;
      case 'again':
        throw new Error('a commercial response is never asked again without an answer');
    }
  }

  return {
    name: responseDeliveryTargets[target],
    policy: {
      leaseMs: policy.leaseMs,
      maxAttempts: policy.maxAttempts,
      retryDelayMs: exponentialBackoff(policy.retryDelayMs, maxRetryDelayMs.commercialResponses),
    },

    async load(ids) {
      const rows = await responses.deliveriesWithReceived(db, ids, target);
      return new Map(rows.map((item) => [item.row.received_document_id, item]));
    },

    async perform({ row, received }): Promise<Outcome<Reached & { note: string }, Reached>> {
      const attempted = await perform(row, received, await archivedAcecf(row.received_document_id));
      if (attempted.ok)
        return { kind: 'done', result: { url: attempted.url, answer: attempted.answer, note: attempted.note } };
      if (attempted.notAttempted !== undefined)
        return {
          kind: 'deferred',
          reason: attempted.detail,
          until: attempted.notAttempted.retryAt ?? new Date(clock.now().getTime() + policy.retryDelayMs),
        };
      return { kind: 'failed', reason: attempted.detail, failure: { url: attempted.url, answer: attempted.answer } };
    },

    record,
  };
}
