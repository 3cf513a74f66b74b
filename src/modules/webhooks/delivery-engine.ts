// Deliveries: the fan-out of outbox events into one delivery per subscribed endpoint, the claim of the deliveries
// due (new ones, and failed ones whose retry is due) and one attempt of one claimed delivery. Each attempt is
// recorded; its outcome decides the delivery's next state (succeeded, failed with a next attempt, exhausted) and,
// for a 410 or five days of failures, disables the endpoint with an event. Runs in workers only (the delivery loop,
// dispatcher.ts), never in an API request. The hot path costs a delivery a share of two statements: one claim for up
// to a batch, one statement recording every success that finished meanwhile; a failure is a transaction of its own.
import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import { openSecret } from '../../platform/crypto/secret-box.js';
import type { Db } from '../../platform/db/database.js';
import { transact, type Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { groupCommit } from '../../platform/group-commit.js';
import { ok } from '../../platform/http/problems.js';
import { randomBase62 } from '../../platform/ids.js';
import type { Logger } from '../../platform/observability/logger.js';
import { isEventType, onDemandTypes } from './event-types.js';
import { postWebhook } from './post-webhook.js';
import { nextRetryDelayMs, retryAfterMs } from './retry-schedule.js';
import { deliveryHeaders, secretContext } from './signing.js';
import * as repo from './webhooks.repo.js';

export interface DeliveryPolicy {
  timeoutMs: number;
  allowPrivate: boolean;
  disableAfterMs: number;
}

export interface WebhookDelivery {
  /** Fans out up to `limit` new events; the number taken. */
  dispatch(limit: number): Promise<number>;
  /** Takes up to `limit` deliveries due now (pending, or failed with the retry due), leased to this worker. */
  claim(limit: number): Promise<repo.ClaimedDelivery[]>;
  /** One attempt of a claimed delivery, recorded. */
  attempt(delivery: repo.ClaimedDelivery): Promise<void>;
}

/** How long one worker holds a delivery: well past the POST's timeout (resolution, connection, recording). */
export function deliveryLeaseMs(timeoutMs: number): number {
  return 2 * timeoutMs + 5_000;
}

export function newDeliveryId(): string {
  return `msg_${randomBase62(24)}`;
}

/** The delivery body: `{id, type, createdAt, environment, company, data}`. */
export function deliveryBody(event: { id: string; type: string; occurredAt: Date; environment: FiscalEnvironment; company: { id: string; rnc: string }; data: unknown }): string {
  return JSON.stringify({ id: event.id, type: event.type, createdAt: event.occurredAt.toISOString(), environment: event.environment, company: event.company, data: event.data });
}

/** The secrets a delivery is signed with now: the current one, and the previous one during its grace period. */
export function signingSecrets(open: (sealed: string, context: string) => string, endpoint: repo.ClaimedDelivery['endpoint'], now: Date): string[] {
  const context = secretContext(endpoint.id);
  const secrets = [open(endpoint.secret_sealed, context)];
  if (endpoint.previous_secret_sealed !== null && endpoint.previous_secret_until !== null && endpoint.previous_secret_until > now) {
    secrets.push(open(endpoint.previous_secret_sealed, context));
  }
  return secrets;
}

/** Opens sealed secrets, keeping the last few hundred opened (every delivery to an endpoint signs with the same one). */
function secretOpener(masterKey: Buffer): (sealed: string, context: string) => string {
  const opened = new Map<string, string>();
  return (sealed, context) => {
    const key = `${context} ${sealed}`;
    let secret = opened.get(key);
    if (secret === undefined) {
      secret = openSecret(masterKey, sealed, context).toString('utf8');
      if (opened.size >= 500) opened.delete(opened.keys().next().value as string);
      opened.set(key, secret);
    }
    return secret;
  };
}

export function createWebhookDelivery(deps: {
  db: Db;
  clock: Clock;
  log: Logger;
  environment: FiscalEnvironment;
  masterKey: Buffer;
  policy: DeliveryPolicy;
  random?: () => number;
}): WebhookDelivery {
  const { db, clock, log, environment, policy } = deps;
  const random = deps.random ?? Math.random;
  const leaseMs = deliveryLeaseMs(policy.timeoutMs);
  const open = secretOpener(deps.masterKey);
  // Group commit: each statement records every success that finished while the one before ran. A success resolves
  // once its statement committed; if that fails, each success of it fails (the lease runs out, it is attempted again).
  const recordSuccess = groupCommit(async (successes: repo.Success[]) => {
    await repo.recordSuccesses(db, successes, clock.now());
    return successes.map(() => undefined);
  });

  async function disable(trx: Trx, endpoint: repo.EndpointRow, reason: string, now: Date): Promise<void> {
    await repo.updateEndpoint(trx, endpoint.id, { status: 'disabled', disabled_reason: reason, updated_at: now });
    await repo.exhaustWaiting(trx, endpoint.id, `endpoint disabled: ${reason}`, now);
    await recordDomainEvent(trx, { companyId: endpoint.company_id, environment, type: 'webhook.endpoint_disabled', payload: { endpointId: endpoint.id, url: endpoint.url, reason }, occurredAt: now });
    log.warn({ endpointId: endpoint.id, reason }, 'webhook endpoint disabled');
  }

  return {
    async dispatch(limit) {
      const result = await transact(db, async (trx) => {
        const events = await repo.lockUndispatched(trx, environment, limit);
        if (events.length === 0) return ok(0);
        const endpoints = await repo.enabledEndpointsOf(trx, [...new Set(events.map((event) => event.company_id))], environment);
        const now = clock.now();
        const rows: Omit<repo.DeliveryRow, 'attempts'>[] = [];
        for (const event of events) {
          if (!isEventType(event.type) || onDemandTypes.has(event.type)) continue;
          const body = deliveryBody({ id: event.id, type: event.type, occurredAt: event.occurred_at, environment, company: { id: event.company_id, rnc: event.rnc }, data: event.payload });
          for (const endpoint of endpoints) {
            if (endpoint.company_id !== event.company_id) continue;
            if (endpoint.event_types !== null && !endpoint.event_types.includes(event.type)) continue;
            rows.push({ id: newDeliveryId(), endpoint_id: endpoint.id, company_id: event.company_id, environment, event_id: event.id, event_type: event.type, body, status: 'pending', next_attempt_at: null, lease_until: null, last_error: null, created_at: now, updated_at: now });
          }
        }
        await repo.insertDeliveries(trx, rows);
        await repo.markDispatched(trx, events.map((event) => event.id), now);
        return ok(events.length);
      });
      return result.ok ? result.value : 0;
    },

    claim(limit) {
      const now = clock.now();
      return repo.claimDeliveries(db, environment, now, new Date(now.getTime() + leaseMs), limit);
    },

    async attempt(delivery) {
      const started = clock.now();
      const { endpoint } = delivery;
      if (endpoint.status !== 'enabled') {
        await repo.settleDelivery(db, delivery.id, delivery.lease_until, { status: 'exhausted', lease_until: null, next_attempt_at: null, last_error: `endpoint disabled: ${endpoint.disabled_reason ?? 'removed'}`, updated_at: started });
        return;
      }
      const timestamp = Math.floor(started.getTime() / 1_000);
      const headers = deliveryHeaders({ deliveryId: delivery.id, eventType: delivery.event_type, timestamp, body: delivery.body, secrets: signingSecrets(open, endpoint, started) });
      const outcome = await postWebhook({ url: endpoint.url, headers, body: delivery.body, timeoutMs: policy.timeoutMs, policy: { environment, allowPrivate: policy.allowPrivate }, now: () => performance.now() });
      const attempt = { attempted_at: started, status_code: outcome.statusCode ?? null, duration_ms: outcome.durationMs, error: outcome.error ?? null, response_excerpt: outcome.excerpt ?? null };
      if (outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300) {
        await recordSuccess({ deliveryId: delivery.id, leaseUntil: delivery.lease_until, endpointId: endpoint.id, attempt });
        return;
      }
      // A failure is rare and decides on the endpoint's run of failures: a transaction holding the endpoint's row,
      // so concurrent failures to one endpoint start the run once and disable it once.
      const attempts = delivery.attempts + 1;
      await transact(db, async (trx) => {
        const now = clock.now();
        await repo.insertAttempt(trx, { ...attempt, delivery_id: delivery.id });
        const current = await repo.lockEndpoint(trx, endpoint.id);
        const base = { attempts, lease_until: null, updated_at: now };
        const error = outcome.error ?? 'failed';
        if (current === undefined) {
          await repo.settleDelivery(trx, delivery.id, delivery.lease_until, { ...base, status: 'exhausted', next_attempt_at: null, last_error: error });
          return ok(undefined);
        }
        const failingSince = current.failing_since ?? started;
        if (current.failing_since === null) await repo.updateEndpoint(trx, endpoint.id, { failing_since: started });
        if (outcome.statusCode === 410 || now.getTime() - failingSince.getTime() >= policy.disableAfterMs) {
          await repo.settleDelivery(trx, delivery.id, delivery.lease_until, { ...base, status: 'exhausted', next_attempt_at: null, last_error: error });
          if (current.status === 'enabled') {
            const reason = outcome.statusCode === 410 ? 'the endpoint answered 410 Gone' : `every attempt has failed since ${failingSince.toISOString()}`;
            await disable(trx, current, reason, now);
          }
          return ok(undefined);
        }
        const delay = nextRetryDelayMs(attempts, retryAfterMs(outcome.retryAfter, now), random());
        await repo.settleDelivery(trx, delivery.id, delivery.lease_until, delay === undefined ? { ...base, status: 'exhausted', next_attempt_at: null, last_error: error } : { ...base, status: 'failed', next_attempt_at: new Date(now.getTime() + delay), last_error: error });
        return ok(undefined);
      });
    },
  };
}
