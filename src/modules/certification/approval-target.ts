// The sending of a certification approval case (ACECF, steps 10 and 11) to DGII, as a target of the outbound work
// engine (platform/work): one item per case (`<processId>/<caseKey>`), queued by the lane in the transaction that
// marks the case sent (lane.ts). DGII giving no answer, an uncertain one or "intentar nuevamente" is retried with
// backoff (COMMERCIAL_RESPONSE_*) and shown on the case's timeline; an open circuit breaker defers the attempt
// uncounted; DGII's verdict ends the item and is recorded on the case, once, and a rejection fails the process as
// any rejection does (reconcile.ts) — a refusal is never sent again. Every attempt sends the archived signed bytes.
//
// A target of its own rather than the received module's commercial responses (received/outgoing-response-delivery.ts):
// that one belongs to a received document (its artefact, its timeline) and retries refusals, since DGII takes an
// approval only once it has the e-CF; here there is no received document, and the lane must stop at DGII's rejection.
import { maxRetryDelayMs, type FiscalEnvironment } from '../../config.js';
import type { DgiiClient, SendAcecfOutcome } from '../../dgii/index.js';
import { exponentialBackoff } from '../../platform/backoff.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { DgiiMessageRow } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/db/transact.js';
import { readArchived, type BlobStore } from '../../platform/storage/index.js';
import type { Outcome, Settlement, WorkTarget } from '../../platform/work/work-engine.js';
import type { CaseChange, CaseChanges } from './case-changes.js';
import * as repo from './certification.repo.js';
import type { CertificationTables } from './tables.js';
import { reconcileProcess } from './reconcile.js';

/** The outbound work target of the approval cases (outbound_work.target). */
export const approvalTarget = 'certification.acecf';

/** An approval case's item id: its process and its case key. */
export const approvalItemId = (processId: string, caseKey: string) => `${processId}/${caseKey}`;

type ApprovalCase = repo.CaseRow & { company_id: string };

/** What ended an approval's sending: DGII's verdict, or the case no longer sent (handed elsewhere, process ended). */
type Ended = { kind: 'answered'; outcome: SendAcecfOutcome } | { kind: 'not_sent' };

export function createApprovalTarget(deps: {
  db: Db<CertificationTables>;
  clock: Clock;
  environment: FiscalEnvironment;
  blobs: BlobStore;
  dgii: Pick<DgiiClient, 'sendAcecf'>;
  changes: CaseChanges;
  policy: { maxAttempts: number; retryDelayMs: number; leaseMs: number };
  /** The case changed: hastens its process's lane, in the settling transaction. */
  laneChanged: (trx: Trx<CertificationTables>, processId: string) => Promise<void>;
}): WorkTarget<ApprovalCase, Ended, SendAcecfOutcome> {
  const { db, clock, environment, blobs, dgii, changes, policy } = deps;

  /** The case under its locked process, when it is still sent: what a settlement may change. */
  async function sentCase(trx: Trx<CertificationTables>, item: ApprovalCase) {
    // Waits for a reader holding the row: DGII's answer is never dropped, and counts only for the case as sent.
    const process = await repo.lockProcessById(trx, item.process_id);
    const current =
      process === undefined
        ? undefined
        : (await repo.casesOf(trx, item.process_id)).find(
            (other) => other.kind === 'ACECF' && other.case_key === item.case_key,
          );
    return process === undefined || current?.status !== 'sent' ? undefined : { process, current };
  }

  async function change(trx: Trx<CertificationTables>, item: ApprovalCase, next: CaseChange): Promise<void> {
    // The lane's queue row before the process's lock, in the order ejecutar takes them (no deadlock between them).
    await deps.laneChanged(trx, item.process_id);
    const found = await sentCase(trx, item);
    if (found === undefined) return;
    const now = clock.now();
    await changes.changeCase(trx, found.process, found.current, next, now);
    if (next.status === 'rejected') await reconcileProcess(trx, found.process, { changes, environment, now });
  }

  return {
    name: approvalTarget,
    policy: {
      leaseMs: policy.leaseMs,
      maxAttempts: policy.maxAttempts,
      retryDelayMs: exponentialBackoff(policy.retryDelayMs, maxRetryDelayMs.commercialResponses),
    },

    async load(ids) {
      const processIds = [...new Set(ids.map((id) => id.slice(0, id.indexOf('/'))))];
      const rows = await repo.approvalCasesOf(db, processIds);
      return new Map(rows.map((row) => [approvalItemId(row.process_id, row.case_key), row]));
    },

    async perform(item): Promise<Outcome<Ended, SendAcecfOutcome>> {
      if (item.status !== 'sent' || item.signed_blob_key === null || item.signed_sha256 === null)
        return { kind: 'done', result: { kind: 'not_sent' } };
      const xml = await readArchived(blobs, { blob_key: item.signed_blob_key, sha256: item.signed_sha256 });
      const detail = item.payload['DetalleAprobacionComercial'] as Record<string, string>;
      const outcome = await dgii.sendAcecf(item.company_id, {
        xml,
        fileName: `${detail['RNCComprador'] ?? ''}${detail['eNCF'] ?? ''}.xml`,
      });
      // The circuit breaker is open: nothing left, so the attempt is not counted.
      if (outcome.kind === 'transient' && outcome.reason === 'unavailable')
        return {
          kind: 'deferred',
          reason: `not attempted: ${outcome.detail}`,
          until: outcome.retryAt ?? new Date(clock.now().getTime() + policy.retryDelayMs),
        };
      if (outcome.kind === 'transient' || outcome.kind === 'uncertain')
        return {
          kind: 'failed',
          reason: `DGII did not answer (${outcome.reason}: ${outcome.detail})`,
          failure: outcome,
        };
      if (outcome.kind === 'rejected' && dgiiBusy(outcome))
        return {
          kind: 'failed',
          reason: `DGII could not process it now: ${said(outcome.messages)}`,
          failure: outcome,
        };
      return { kind: 'done', result: { kind: 'answered', outcome } };
    },

    async record(trx, item, settlement: Settlement<Ended, SendAcecfOutcome>) {
      switch (settlement.kind) {
        case 'done':
          if (settlement.result.kind === 'answered')
            await change(trx, item, approvalVerdict(settlement.result.outcome));
          return;
        case 'retry': {
          const found = await sentCase(trx, item);
          if (found === undefined) return;
          const now = clock.now();
          await repo.updateCase(trx, found.current, { waiting_for: 'dgii_unreachable', updated_at: now });
          await repo.insertEvent(trx, {
            processId: item.process_id,
            at: now,
            subject: `ACECF ${item.case_key}`,
            status: 'sent',
            cause: `attempt ${String(settlement.attempts)} of ${String(settlement.maxAttempts)}: ${settlement.reason}; the same signed approval is sent again at ${settlement.at.toISOString()}`,
          });
          return;
        }
        case 'exhausted': {
          const last =
            settlement.failure === undefined
              ? {
                  status: 'error' as const,
                  cause: `the service failed on it: ${settlement.reason}`,
                  waitingFor: 'service_error',
                  unqueue: true,
                }
              : approvalVerdict(settlement.failure);
          await change(trx, item, {
            ...last,
            cause: `after ${String(settlement.attempts)} attempts, ${last.cause}`,
          });
          return;
        }
        case 'deferred':
        case 'again':
          return;
      }
    },
  };
}

function said(messages: readonly DgiiMessageRow[]): string {
  return messages.map((message) => message.valor).join('; ');
}

/** DGII's "No fue posible procesar … Favor intentar nuevamente": its own trouble, not a verdict on the approval. */
function dgiiBusy(outcome: { messages: readonly DgiiMessageRow[] }): boolean {
  return /intentar nuevamente/i.test(said(outcome.messages));
}

/** DGII's answer to an approval, as the case's next state (research/certification.md §4: "01" OK, "02" Error). */
export function approvalVerdict(outcome: SendAcecfOutcome): CaseChange & {
  status: 'accepted' | 'rejected' | 'pending' | 'error';
} {
  switch (outcome.kind) {
    case 'accepted': {
      const verdict = { estado: outcome.estado, codigo: outcome.codigo, mensajes: outcome.messages, verdict: true };
      return outcome.codigo === '02'
        ? {
            status: 'rejected',
            cause: `DGII answered Error (02): ${outcome.estado ?? ''}`,
            waitingFor: null,
            unqueue: true,
            ...verdict,
          }
        : {
            status: 'accepted',
            cause: `DGII answered ${outcome.codigo ?? ''} ${outcome.estado ?? ''}`.trim(),
            waitingFor: null,
            ...verdict,
          };
    }
    case 'rejected': {
      // Reached only once the retries are spent (the target retries it first).
      if (dgiiBusy(outcome))
        return {
          status: 'error',
          cause: `DGII could not process it now: ${said(outcome.messages)}; the same signed approval is sent again when the case is handed in again`,
          waitingFor: 'dgii_unreachable',
          mensajes: outcome.messages,
          unqueue: true,
        };
      // DGII's phase gate (research §4): not a rejection, nothing resets; the lane tries again later.
      // Out of the lane until ejecutar hands it in again (usually once the consumer invoices are uploaded).
      if (/etapa/i.test(said(outcome.messages)))
        return {
          status: 'pending',
          cause: `DGII is not taking approvals yet: ${said(outcome.messages)}`,
          waitingFor: 'dgii_stage',
          mensajes: outcome.messages,
          unqueue: true,
        };
      return {
        status: 'rejected',
        cause: `DGII refused it (${String(outcome.httpStatus)}): ${said(outcome.messages)}`,
        waitingFor: null,
        estado: outcome.estado,
        codigo: outcome.codigo,
        mensajes: outcome.messages,
        verdict: true,
        unqueue: true,
      };
    }
    case 'transient':
    case 'uncertain':
      return {
        status: 'error',
        cause: `DGII did not answer (${outcome.reason}: ${outcome.detail}); the same signed approval is sent again when the case is handed in again`,
        waitingFor: 'dgii_unreachable',
        unqueue: true,
      };
    case 'unauthorized':
    case 'no_credentials':
      return {
        status: 'error',
        cause:
          'DGII did not authenticate the company: check its certificate and delegation (POST /dgii/prueba-conexion)',
        waitingFor: 'dgii_authentication',
        unqueue: true,
      };
  }
}
