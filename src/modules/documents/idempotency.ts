// Idempotency-Key for document creation (DESIGN §4): the first response to a key, success or refusal, is kept and
// replayed for the same key and body without doing the work again (so a replay never takes an e-NCF); the same key
// with another body is refused; a request arriving while the first is still running is told so. The claim is
// committed before the work starts, so concurrent requests see it. Keys are kept at least 24 hours: a daily job
// (documents.jobs.ts) purges those older than 48.
import { createHash } from 'node:crypto';
import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'in_flight' }
  | { kind: 'different_body' };

export interface Idempotency {
  claim(companyId: string, key: string, body: unknown): Promise<Claim>;
  complete(companyId: string, key: string, status: number, body: unknown): Promise<void>;
  /** Lets the key be used again: the work ended without an answer worth keeping (a bug or an outage). */
  release(companyId: string, key: string): Promise<void>;
}

/** Printable ASCII, as the IETF draft's keys are; 255 characters at most. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

function fingerprint(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(body === undefined ? null : body))
    .digest('hex');
}

export function createIdempotency(deps: { db: Db; clock: Clock; environment: FiscalEnvironment }): Idempotency {
  const { db, clock, environment } = deps;
  return {
    async claim(companyId, key, body) {
      const requestSha256 = fingerprint(body);
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
          created_at: clock.now(),
        })
        .onConflict((conflict) => conflict.columns(['company_id', 'environment', 'key']).doNothing())
        .executeTakeFirst();
      if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return { kind: 'claimed' };
      const existing = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('company_id', '=', companyId)
        .where('environment', '=', environment)
        .where('key', '=', key)
        .executeTakeFirst();
      // Released between our insert and this read: try once more.
      if (existing === undefined) return this.claim(companyId, key, body);
      if (existing.request_sha256 !== requestSha256) return { kind: 'different_body' };
      if (existing.state === 'in_flight' || existing.response_status === null) return { kind: 'in_flight' };
      return { kind: 'replay', status: existing.response_status, body: existing.response_body };
    },

    async complete(companyId, key, status, body) {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', response_status: status, response_body: JSON.stringify(body) })
        .where('company_id', '=', companyId)
        .where('environment', '=', environment)
        .where('key', '=', key)
        .execute();
    },

    async release(companyId, key) {
      await db
        .deleteFrom('idempotency_keys')
        .where('company_id', '=', companyId)
        .where('environment', '=', environment)
        .where('key', '=', key)
        .where('state', '=', 'in_flight')
        .execute();
    },
  };
}
