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
import { enqueue as enqueueWork } from '../../platform/work/outbound-work.repo.js';
import { transact, type Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { ok } from '../../platform/result.js';
import {
  createWorkEngine,
  type ClaimedWork,
  type Outcome,
  type Settlement,
  type WorkEngine,
  type WorkTarget,
} from '../../platform/work/work-engine.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/observability/logger.js';
import { isEventType, onDemandTypes } from '../../platform/events/event-catalogue.js';
import { postWebhook } from './post-webhook.js';
import { maxAttempts, nextRetryDelayMs, retryAfterMs } from './retry-schedule.js';
import { deliveryHeaders, secretContext } from './signing.js';
import * as repo from './webhooks.repo.js';
import type { WebhooksTables } from './tables.js';

export interface DeliveryPolicy {
  timeoutMs: number;
  allowPrivate: boolean;
  disableAfterMs: number;
}

export interface WebhookDelivery {
  /** Fans out up to `limit` new events; the number taken. */
  dispatch(limit: number): Promise<number>;
  /** Takes up to `limit` deliveries due now (pending, or failed with the retry due), leased to this worker. */
  claim(limit: number): Promise<ClaimedWork<repo.DeliveryItem>[]>;
  /** One attempt of a claimed delivery, recorded. */
  attempt(delivery: ClaimedWork<repo.DeliveryItem>): Promise<void>;
}

/** The outbound work target of webhook deliveries (outbound_work.target). */
export const webhookDeliveryTarget = 'webhook.delivery';

/** How long one worker holds a delivery: well past the POST's timeout (resolution, connection, recording). */
export function deliveryLeaseMs(timeoutMs: number): number {
  return 2 * timeoutMs + 5_000;
}

/**
 * The delivery body: `{id, type, createdAt, environment, company, correlationId, data}`. `correlationId`: the
 * X-Correlation-ID of the request whose work caused the event (a schedule's own id for scheduled work), for
 * following it through the integrator's logs and ours.
 */
export function deliveryBody(event: {
  id: string;
  type: string;
  occurredAt: Date;
  environment: FiscalEnvironment;
  company: { id: string; rnc: string };
  correlationId: string;
  data: unknown;
}): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: event.occurredAt.toISOString(),
    environment: event.environment,
    company: event.company,
    correlationId: event.correlationId,
    data: event.data,
  });
}

/** The secrets a delivery is signed with now: the current one, and the previous one during its grace period. */
export function signingSecrets(
  open: (sealed: string, context: string) => string,
  endpoint: repo.DeliveryItem['endpoint'],
  now: Date,
): string[] {
  const context = secretContext(endpoint.id);
  const secrets = [open(endpoint.secret_sealed, context)];
  if (
    endpoint.previous_secret_sealed !== null &&
    endpoint.previous_secret_until !== null &&
    endpoint.previous_secret_until > now
  ) {
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

/** What a delivery's attempt keeps: the attempt's row, and the answer that decides on the endpoint. */
interface Attempted {
  attempt: Omit<repo.AttemptRow, 'id' | 'delivery_id'>;
  statusCode: number | undefined;
}

/**
 * Queues new deliveries (or a re-send) for the workers, in the caller's transaction: each under its event's
 * correlation id, or (none given) the request's that asks for it.
 */
export function queueDeliveries(
  executor: Db<WebhooksTables> | Trx<WebhooksTables>,
  environment: FiscalEnvironment,
  deliveries: readonly { id: string; correlationId?: string | undefined }[],
  at: Date,
): Promise<void> {
  return enqueueWork(
    executor,
    deliveries.map(({ id, correlationId }) => ({
      target: webhookDeliveryTarget,
      itemId: id,
      environment,
      dueAt: at,
      ...(correlationId === undefined ? {} : { correlationId }),
    })),
  );
}

export function createWebhookDeliveryTarget(deps: {
  db: Db<WebhooksTables>;
  clock: Clock;
  log: Logger;
  environment: FiscalEnvironment;
  masterKey: Buffer;
  policy: DeliveryPolicy;
}): WorkTarget<repo.DeliveryItem, Attempted, Attempted> {
  const { db, clock, log, environment, policy } = deps;
  const open = secretOpener(deps.masterKey);

  async function disable(
    trx: Trx<WebhooksTables>,
    endpoint: repo.EndpointRow,
    reason: string,
    now: Date,
  ): Promise<void> {
    await repo.updateEndpoint(trx, endpoint.id, { status: 'disabled', disabled_reason: reason, updated_at: now });
    await repo.exhaustWaiting(trx, endpoint.id, `endpoint disabled: ${reason}`, now);
    await recordDomainEvent(trx, {
      companyId: endpoint.company_id,
      environment,
      type: 'webhook.endpoint_disabled',
      payload: { endpointId: endpoint.id, url: endpoint.url, reason },
      occurredAt: now,
    });
    log.warn({ endpointId: endpoint.id, reason }, 'webhook endpoint disabled');
  }

  /**
   * A failed attempt (or the last): recorded with the endpoint's row held, so concurrent failures to one endpoint
   * start its run of failures once and disable it once (a 410, or failures for `disableAfterMs`).
   */
  async function recordFailure(
    trx: Trx<WebhooksTables>,
    delivery: repo.DeliveryItem,
    settlement: Extract<Settlement<Attempted, Attempted>, { kind: 'retry' | 'exhausted' }>,
  ): Promise<void> {
    const now = clock.now();
    const { failure } = settlement;
    // An error of ours is an attempt too, shown with the others; an endpoint found disabled is none.
    const attempt =
      failure?.attempt ??
      (settlement.ours === true
        ? { attempted_at: now, status_code: null, duration_ms: 0, error: settlement.reason, response_excerpt: null }
        : undefined);
    if (attempt !== undefined) await repo.insertAttempt(trx, { ...attempt, delivery_id: delivery.id });
    const attempts = delivery.attempts + (attempt === undefined ? 0 : 1);
    const exhausted = {
      status: 'exhausted' as const,
      attempts,
      next_attempt_at: null,
      last_error: settlement.reason,
      updated_at: now,
    };
    const settled =
      settlement.kind === 'exhausted'
        ? exhausted
        : {
            status: 'failed' as const,
            attempts,
            next_attempt_at: settlement.at,
            last_error: settlement.reason,
            updated_at: now,
          };
    // Only the endpoint's own failures count towards disabling it.
    const current = failure === undefined ? undefined : await repo.lockEndpoint(trx, delivery.endpoint.id);
    if (failure === undefined || current === undefined) {
      await repo.updateDelivery(trx, delivery.id, settled);
      return;
    }
    const failingSince = current.failing_since ?? failure.attempt.attempted_at;
    if (current.failing_since === null) await repo.updateEndpoint(trx, current.id, { failing_since: failingSince });
    if (failure.statusCode === 410 || now.getTime() - failingSince.getTime() >= policy.disableAfterMs) {
      await repo.updateDelivery(trx, delivery.id, exhausted);
      if (current.status === 'enabled')
        await disable(
          trx,
          current,
          failure.statusCode === 410
            ? 'the endpoint answered 410 Gone'
            : `every attempt has failed since ${failingSince.toISOString()}`,
          now,
        );
      return;
    }
    await repo.updateDelivery(trx, delivery.id, settled);
  }

  return {
    name: webhookDeliveryTarget,
    policy: {
      leaseMs: deliveryLeaseMs(policy.timeoutMs),
      maxAttempts,
      // Svix's schedule (retry-schedule.ts); the engine waits for a later Retry-After itself, and ends the delivery
      // once maxAttempts have failed, before the schedule runs out.
      retryDelayMs: (attempts, random) => nextRetryDelayMs(attempts, undefined, random) ?? 0,
    },

    async load(ids) {
      return new Map((await repo.deliveriesWithEndpoints(db, ids)).map((item) => [item.id, item]));
    },

    async perform(delivery): Promise<Outcome<Attempted, Attempted>> {
      const started = clock.now();
      const { endpoint } = delivery;
      if (endpoint.status !== 'enabled')
        return { kind: 'failed', reason: `endpoint disabled: ${endpoint.disabled_reason ?? 'removed'}`, final: true };
      const timestamp = Math.floor(started.getTime() / 1_000);
      // Opening the secrets can fail (a master key rotated without them, a sealed value damaged): that is an error of
      // this service, a counted attempt with its reason, never a delivery claimed again at every lease.
      const headers = deliveryHeaders({
        deliveryId: delivery.id,
        eventType: delivery.event_type,
        timestamp,
        body: delivery.body,
        secrets: signingSecrets(open, endpoint, started),
      });
      const outcome = await postWebhook({
        url: endpoint.url,
        headers,
        body: delivery.body,
        timeoutMs: policy.timeoutMs,
        policy: { environment, allowPrivate: policy.allowPrivate },
        now: () => performance.now(),
      });
      const attempted: Attempted = {
        attempt: {
          attempted_at: started,
          status_code: outcome.statusCode ?? null,
          duration_ms: outcome.durationMs,
          error: outcome.error ?? null,
          response_excerpt: outcome.excerpt ?? null,
        },
        statusCode: outcome.statusCode,
      };
      if (outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300)
        return { kind: 'done', result: attempted };
      const now = clock.now();
      const retryAfter = retryAfterMs(outcome.retryAfter, now);
      return {
        kind: 'failed',
        reason: outcome.error ?? 'failed',
        failure: attempted,
        final: outcome.statusCode === 410,
        retryAt: retryAfter === undefined ? undefined : new Date(now.getTime() + retryAfter),
      };
    },

    async record(trx, delivery, settlement) {
      switch (settlement.kind) {
        case 'done':
          await repo.recordSuccesses(
            trx,
            [{ deliveryId: delivery.id, endpointId: delivery.endpoint.id, attempt: settlement.result.attempt }],
            clock.now(),
          );
          return;
        case 'retry':
        case 'exhausted':
          await recordFailure(trx, delivery, settlement);
          return;
        case 'deferred':
        case 'again':
          throw new Error(`a webhook delivery is never ${settlement.kind}`);
      }
    },

    // Successes are recorded together: each statement settles and records every one that finished while the one
    // before ran (platform/group-commit.ts).
    async recordDone(done) {
      return repo.recordSuccessesUnderLease(
        db,
        webhookDeliveryTarget,
        done.map(({ item, result, leaseId }) => ({
          deliveryId: item.id,
          leaseId,
          endpointId: item.endpoint.id,
          attempt: result.attempt,
        })),
        clock.now(),
      );
    },
  };
}

export function createWebhookDelivery(deps: {
  db: Db<WebhooksTables>;
  clock: Clock;
  log: Logger;
  environment: FiscalEnvironment;
  masterKey: Buffer;
  policy: DeliveryPolicy;
  random?: () => number;
}): WebhookDelivery & { engine: WorkEngine<repo.DeliveryItem> } {
  const { db, clock, environment } = deps;
  const engine = createWorkEngine({
    db,
    clock,
    log: deps.log,
    environment,
    target: createWebhookDeliveryTarget(deps),
    ...(deps.random === undefined ? {} : { random: deps.random }),
  });
  return {
    engine,
    async dispatch(limit) {
      const result = await transact(db, async (trx) => {
        const taken = await repo.lockUndispatched(trx, environment, limit);
        if (taken.length === 0) return ok(0);
        const events = taken.filter((event) => event.rnc !== null);
        const endpoints = await repo.enabledEndpointsOf(
          trx,
          [...new Set(events.map((event) => event.company_id))],
          environment,
        );
        const now = clock.now();
        const rows: Omit<repo.DeliveryRow, 'attempts'>[] = [];
        // Each delivery is worked under its event's correlation id (the fan-out itself runs under none).
        const correlationIds = new Map<string, string>();
        for (const event of events) {
          if (!isEventType(event.type) || onDemandTypes.has(event.type)) continue;
          const body = deliveryBody({
            id: event.id,
            type: event.type,
            occurredAt: event.occurred_at,
            environment,
            company: { id: event.company_id, rnc: event.rnc },
            correlationId: event.correlation_id,
            data: event.payload,
          });
          for (const endpoint of endpoints) {
            if (endpoint.company_id !== event.company_id) continue;
            if (endpoint.event_types !== null && !endpoint.event_types.includes(event.type)) continue;
            const id = newId('msg');
            correlationIds.set(id, event.correlation_id);
            rows.push({
              id,
              endpoint_id: endpoint.id,
              company_id: event.company_id,
              environment,
              event_id: event.id,
              event_type: event.type,
              body,
              status: 'pending',
              next_attempt_at: null,
              last_error: null,
              created_at: now,
              updated_at: now,
            });
          }
        }
        const inserted = await repo.insertDeliveries(trx, rows);
        await queueDeliveries(
          trx,
          environment,
          inserted.map((id) => ({ id, correlationId: correlationIds.get(id) })),
          now,
        );
        await repo.markDispatched(
          trx,
          taken.map((event) => event.id),
          now,
        );
        return ok(taken.length);
      });
      return result.ok ? result.value : 0;
    },
    claim: (limit) => engine.claim(limit),
    attempt: (delivery) => engine.work(delivery),
  };
}
