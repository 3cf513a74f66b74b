// Idempotency-Key for document creation (DESIGN §4): the first response to a key, success or refusal, is kept and
// replayed for the same key and body without doing the work again (so a replay never takes an e-NCF); the same key
// with another body is refused; a request arriving while the first is still running is told so. The claim is
// committed before the work starts, so concurrent requests see it. Keys are kept at least 24 hours: a daily job
// (documents.jobs.ts) purges those older than 48.
//
// The database can go away at any point of a creation (issue 43). The document a key created is written in the very
// statement that stores the document (idempotent_creations), so a creation whose answer was lost is found again by
// its key, and two creations under one key cannot both commit. A claim left in flight by a request that could not
// release it is taken over: at once by this process when none of its requests holds it, by any after `claimLeaseMs`.
import { createHash, randomUUID } from 'node:crypto';
import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { DocumentsTables } from './tables.js';

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: unknown }
  /** The key's document was stored but its answer never was: the caller answers with the document as it is now. */
  | { kind: 'created'; documentId: string }
  | { kind: 'in_flight' }
  | { kind: 'different_body' };

export interface Idempotency {
  claim(companyId: string, key: string, body: unknown): Promise<Claim>;
  complete(companyId: string, key: string, status: number, body: unknown): Promise<void>;
  /** Lets the key be used again: the work ended without an answer worth keeping (a bug or an outage). Never throws:
   * a claim it could not release is taken over later (see claim). */
  release(companyId: string, key: string): Promise<void>;
  /** The document stored under the key, if one was. */
  documentOf(companyId: string, key: string): Promise<string | undefined>;
}

/**
 * How long another process waits before it takes over a claim still in flight. A creation takes well under a second;
 * one slower than this that still commits loses to the taker at the unique key of idempotent_creations.
 */
export const claimLeaseMs = 30_000;

/** Printable ASCII, as the IETF draft's keys are; 255 characters at most. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

function fingerprint(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(body === undefined ? null : body))
    .digest('hex');
}

export function createIdempotency(deps: {
  db: Db<DocumentsTables>;
  clock: Clock;
  environment: FiscalEnvironment;
}): Idempotency {
  const { db, clock, environment } = deps;
  /** This process, as claims name their holder. */
  const holder = randomUUID();
  /** The claims this process's requests hold now (company, NUL, key). */
  const held = new Set<string>();
  const heldKey = (companyId: string, key: string) => `${companyId}\u0000${key}`;

  async function documentOf(companyId: string, key: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('idempotent_creations')
      .select('document_id')
      .where('company_id', '=', companyId)
      .where('environment', '=', environment)
      .where('key', '=', key)
      .executeTakeFirst();
    return row?.document_id;
  }

  /** Takes over an in-flight claim whose holder is gone; false if another request took it first. */
  async function takeOver(companyId: string, key: string, claimedAt: Date | null): Promise<boolean> {
    const now = clock.now();
    const taken = await db
      .updateTable('idempotency_keys')
      .set({ claimed_by: holder, claimed_at: now })
      .where('company_id', '=', companyId)
      .where('environment', '=', environment)
      .where('key', '=', key)
      .where('state', '=', 'in_flight')
      .where((where) => (claimedAt === null ? where('claimed_at', 'is', null) : where('claimed_at', '=', claimedAt)))
      .executeTakeFirst();
    return taken.numUpdatedRows > 0n;
  }

  const idempotency: Idempotency = {
    documentOf,

    async claim(companyId, key, body) {
      const requestSha256 = fingerprint(body);
      const now = clock.now();
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({
          company_id: companyId,
          environment,
          key,
          request_sha256: requestSha256,
          state: 'in_flight',
          response_status: null,
          response_body: null,
          created_at: now,
          claimed_by: holder,
          claimed_at: now,
        })
        .onConflict((conflict) => conflict.columns(['company_id', 'environment', 'key']).doNothing())
        .executeTakeFirst();
      if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) {
        held.add(heldKey(companyId, key));
        return { kind: 'claimed' };
      }
      const existing = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('company_id', '=', companyId)
        .where('environment', '=', environment)
        .where('key', '=', key)
        .executeTakeFirst();
      // Released between our insert and this read: try once more.
      if (existing === undefined) return idempotency.claim(companyId, key, body);
      if (existing.request_sha256 !== requestSha256) return { kind: 'different_body' };
      if (existing.state === 'done' && existing.response_status !== null)
        return { kind: 'replay', status: existing.response_status, body: existing.response_body };
      const documentId = await documentOf(companyId, key);
      if (documentId !== undefined) return { kind: 'created', documentId };
      const abandoned =
        (existing.claimed_by === holder && !held.has(heldKey(companyId, key))) ||
        existing.claimed_at === null ||
        now.getTime() - existing.claimed_at.getTime() >= claimLeaseMs;
      if (abandoned && (await takeOver(companyId, key, existing.claimed_at))) {
        held.add(heldKey(companyId, key));
        return { kind: 'claimed' };
      }
      return { kind: 'in_flight' };
    },

    async complete(companyId, key, status, body) {
      try {
        await db
          .updateTable('idempotency_keys')
          .set({
            state: 'done',
            response_status: status,
            response_body: JSON.stringify(body),
            claimed_by: null,
            claimed_at: null,
          })
          .where('company_id', '=', companyId)
          .where('environment', '=', environment)
          .where('key', '=', key)
          .execute();
      } finally {
        held.delete(heldKey(companyId, key));
      }
    },

    async release(companyId, key) {
      try {
        await db
          .deleteFrom('idempotency_keys')
          .where('company_id', '=', companyId)
          .where('environment', '=', environment)
          .where('key', '=', key)
          .where('state', '=', 'in_flight')
          .where('claimed_by', '=', holder)
          .execute();
      } catch {
        // The database is away (or the claim was taken over): the claim stays in flight until the next request
        // with the key takes it over, once this process no longer holds it.
      } finally {
        held.delete(heldKey(companyId, key));
      }
    },
  };
  return idempotency;
}

/** The write that records the document a key created: unexecuted, it goes in the statement that stores the document. */
export function idempotentCreationStatement(
  db: Db<DocumentsTables>,
  row: { companyId: string; environment: FiscalEnvironment; key: string; documentId: string; at: Date },
) {
  return db.insertInto('idempotent_creations').values({
    company_id: row.companyId,
    environment: row.environment,
    key: row.key,
    document_id: row.documentId,
    created_at: row.at,
  });
}

/** Whether `error` is a second creation under a key whose document is already stored (see idempotentCreationStatement). */
export function isSecondCreationUnderKey(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === 'idempotent_creations_pkey';
}
