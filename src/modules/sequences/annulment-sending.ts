// Sending an annulment's signed ANECF to DGII, as a target of the outbound work engine (platform/work): the engine
// claims, leases, counts and retries; this says what one attempt is and how its settlement shows on the annulment.
// DGII's answer moves the request to accepted (the numbers count as annulled), rejected (the numbers are given back)
// or failed (no attempt left; reintentar sends the same signed ANECF again).
//
// An ANECF sent twice annuls nothing twice, so an uncertain answer is simply retried. But the repeat of one that did
// reach DGII is refused because its numbers are annulled already: that refusal is the success it is, never a
// rejection that would hand annulled numbers out again.
import { maxRetryDelayMs, type FiscalEnvironment } from '../../config.js';
import type { DgiiClient, DgiiMessage, SendAnecfOutcome } from '../../dgii/index.js';
import { exponentialBackoff } from '../../platform/backoff.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { sha256Hex, type BlobStore } from '../../platform/storage/index.js';
import type { Outcome, Settlement, WorkTarget } from '../../platform/work/work-engine.js';
import * as repo from './annulments.repo.js';
import type { AnnulmentIssuer } from './annulments.service.js';
import type { SequencesTables } from './tables.js';

export const annulmentSendTarget = 'annulment.send';

/** DGII's answer to an ANECF that got there. */
interface Answer {
  status: 'accepted' | 'rejected';
  estado: string | null;
  codigo: string | null;
  messages: DgiiMessage[];
}

export interface AnnulmentSendPolicy {
  maxAttempts: number;
  /** First retry delay; doubled per attempt, with jitter, up to maxRetryDelayMs.annulments. */
  retryDelayMs: number;
  leaseMs: number;
}

/**
 * How long one worker holds an annulment: past the three calls an attempt may make (seed, token, ANECF), each
 * within the client's timeouts, and a margin for reading the archive and recording.
 */
export function annulmentLeaseMs(timeouts: { connectMs: number; responseMs: number }): number {
  return 3 * (timeouts.connectMs + timeouts.responseMs) + 5_000;
}

function describe(messages: readonly DgiiMessage[]): string {
  return messages.map((message) => message.valor).join('; ');
}

/**
 * A refusal that lists the request's numbers and says of every one that it is annulled already ("… : ya anulada",
 * as the sandbox words DGII's "sequences already used" message per run of numbers).
 */
export function refusedAsAlreadyAnnulled(messages: readonly DgiiMessage[]): boolean {
  const runs = messages.filter((message) => /^E\d{12}( - E\d{12})?: /.test(message.valor));
  return runs.length > 0 && runs.every((message) => message.valor.endsWith(': ya anulada'));
}

function answerOf(
  outcome: Extract<SendAnecfOutcome, { kind: 'accepted' | 'conditional' | 'rejected' }>,
  repeat: boolean,
): Answer {
  const { estado, codigo, messages } = outcome;
  // "Con excepción": DGII annulled the unused numbers and says which were not; its words are kept.
  if (outcome.kind !== 'rejected') return { status: 'accepted', estado, codigo, messages };
  if (repeat && refusedAsAlreadyAnnulled(messages)) {
    return {
      status: 'accepted',
      estado,
      codigo,
      messages: [
        ...messages,
        { codigo: null, valor: 'An earlier attempt of this annulment reached DGII: its numbers are annulled.' },
      ],
    };
  }
  return { status: 'rejected', estado, codigo, messages };
}

export function createAnnulmentSendTarget(deps: {
  db: Db<SequencesTables>;
  clock: Clock;
  environment: FiscalEnvironment;
  blobs: BlobStore;
  dgii: DgiiClient;
  issuer: (companyId: string) => Promise<AnnulmentIssuer | undefined>;
  policy: AnnulmentSendPolicy;
}): WorkTarget<repo.AnnulmentRow, Answer> {
  const { db, clock, environment, blobs, dgii, issuer, policy } = deps;

  async function finish(
    trx: Trx<SequencesTables>,
    row: repo.AnnulmentRow,
    status: 'accepted' | 'rejected' | 'failed',
    answer: { estado?: string | null; codigo?: string | null; messages: DgiiMessage[] },
    attempts: number,
  ): Promise<void> {
    const now = clock.now();
    await repo.updateAnnulment(trx, row.id, {
      status,
      attempts,
      dgii_estado: answer.estado ?? null,
      dgii_codigo: answer.codigo ?? null,
      dgii_messages: answer.messages,
      final_at: status === 'failed' ? null : now,
      updated_at: now,
    });
    if (status === 'rejected') await repo.release(trx, row.id);
    await recordDomainEvent(trx, {
      companyId: row.company_id,
      environment,
      type: `annulment.${status}`,
      payload: { annulmentId: row.id, total: row.total, estado: answer.estado ?? null, mensajes: answer.messages },
      occurredAt: now,
    });
  }

  return {
    name: annulmentSendTarget,
    policy: {
      leaseMs: policy.leaseMs,
      maxAttempts: policy.maxAttempts,
      retryDelayMs: exponentialBackoff(policy.retryDelayMs, maxRetryDelayMs.annulments),
    },

    async load(ids) {
      return new Map((await repo.annulmentsById(db, ids)).map((row) => [row.id, row]));
    },

    async perform(row, attempt): Promise<Outcome<Answer>> {
      await repo.markSending(db, row.id, attempt.number, clock.now());
      const xml = await blobs.get(row.blob_key);
      if (xml === undefined) throw new Error(`annulment ${row.id}: its signed ANECF is missing from the archive`);
      // What is sent again is what was archived (rows from before migration 0023 have no SHA-256 on record).
      if (row.sha256 !== null && sha256Hex(xml) !== row.sha256)
        throw new Error(`annulment ${row.id}: its signed ANECF does not match its recorded SHA-256`);
      const signer = await issuer(row.company_id);
      if (signer === undefined) throw new Error(`annulment ${row.id}: its company is missing`);
      const outcome = await dgii.sendAnecf(row.company_id, { xml, fileName: `${signer.rnc}ANECF${row.id}.xml` });
      switch (outcome.kind) {
        case 'accepted':
        case 'conditional':
        case 'rejected':
          return { kind: 'done', result: answerOf(outcome, attempt.number > 1) };
        case 'no_credentials':
          return {
            kind: 'failed',
            reason: 'The company has no certificate nor DGII session to authenticate with.',
            final: true,
          };
        case 'unauthorized':
          return {
            kind: 'failed',
            reason: `DGII refused the authentication${describe(outcome.messages) === '' ? '' : `: ${describe(outcome.messages)}`}`,
          };
        case 'transient':
          // The circuit breaker is open: nothing left, so the attempt is not counted (as for sending).
          if (outcome.reason === 'unavailable')
            return {
              kind: 'deferred',
              reason: `not attempted: ${outcome.detail}`,
              until: outcome.retryAt ?? new Date(clock.now().getTime() + policy.retryDelayMs),
            };
          return { kind: 'failed', reason: `${outcome.reason}: ${outcome.detail}`, retryAt: outcome.retryAt };
        case 'uncertain':
          return { kind: 'failed', reason: `${outcome.reason}: ${outcome.detail}` };
      }
    },

    async record(trx, row, settlement: Settlement<Answer>) {
      switch (settlement.kind) {
        case 'done':
          await finish(trx, row, settlement.result.status, settlement.result, settlement.attempts);
          return;
        case 'exhausted':
          await finish(
            trx,
            row,
            'failed',
            { messages: [{ codigo: null, valor: settlement.reason }] },
            settlement.attempts,
          );
          return;
        case 'retry':
        case 'deferred':
          await repo.updateAnnulment(trx, row.id, {
            status: 'pending',
            attempts: settlement.attempts,
            dgii_messages: [{ codigo: null, valor: settlement.reason }],
            updated_at: clock.now(),
          });
          return;
        case 'again':
          throw new Error('an annulment is never asked again without an answer');
      }
    },
  };
}
