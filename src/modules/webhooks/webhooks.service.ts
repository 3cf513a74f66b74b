// Webhook endpoints (create, list, get, change, rotate the secret, test) and their deliveries (list, re-send).
// Secrets are sealed with the master key and shown only when created or rotated.
import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import { sealSecret } from '../../platform/crypto/secret-box.js';
import type { Db } from '../../platform/db/database.js';
import { transact } from '../../platform/db/transact.js';
import { pageLimits, pageOf, startOf } from '../../platform/paging.js';
import { fail, ok, type FieldError, type Result } from '../../platform/result.js';
import { correlationIdNow } from '../../platform/observability/correlation.js';
import { newId } from '../../platform/ids.js';
import { deliveryBody, queueDeliveries } from './delivery-engine.js';
import { eventTypeNames, eventTypes, isEventType } from '../../platform/events/event-catalogue.js';
import { newSigningSecret, secretContext } from './signing.js';
import { resolveTarget, urlProblem, type TargetPolicy } from '../../platform/http/target-policy.js';
import type {
  CreateEndpoint,
  DeliveryView,
  EndpointView,
  EndpointWithSecret,
  ListDeliveriesQuery,
  UpdateEndpoint,
} from './webhooks.schema.js';
import * as repo from './webhooks.repo.js';
import type { WebhooksTables } from './tables.js';
import { companySummary } from '../companies/index.js';

export interface WebhooksService {
  eventTypes(): { type: string; description: string; dataSchema: Record<string, unknown> }[];
  create(companyId: string, input: CreateEndpoint): Promise<Result<EndpointWithSecret>>;
  list(
    companyId: string,
    query: { limit?: number; cursor?: string },
  ): Promise<Result<{ items: EndpointView[]; nextCursor: string | null }>>;
  get(companyId: string, id: string): Promise<Result<EndpointView>>;
  update(companyId: string, id: string, input: UpdateEndpoint): Promise<Result<EndpointView>>;
  rotateSecret(companyId: string, id: string): Promise<Result<EndpointWithSecret>>;
  test(companyId: string, id: string): Promise<Result<DeliveryView>>;
  deliveries(
    companyId: string,
    query: ListDeliveriesQuery,
  ): Promise<Result<{ items: DeliveryView[]; nextCursor: string | null }>>;
  resend(companyId: string, deliveryId: string): Promise<Result<DeliveryView>>;
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

function endpointView(row: repo.EndpointRow, now: Date): EndpointView {
  return {
    id: row.id,
    url: row.url,
    events: row.event_types,
    description: row.description,
    state: row.status,
    disabledReason: row.disabled_reason,
    failingSince: iso(row.failing_since),
    previousSecretValidUntil:
      row.previous_secret_until !== null && row.previous_secret_until > now
        ? row.previous_secret_until.toISOString()
        : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function deliveryView(row: repo.DeliveryRow, attempts: readonly repo.AttemptRow[]): DeliveryView {
  return {
    deliveryId: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attemptCount: row.attempts,
    nextAttemptAt: iso(row.next_attempt_at),
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    attempts: attempts.map((attempt) => ({
      at: attempt.attempted_at.toISOString(),
      statusCode: attempt.status_code,
      durationMs: attempt.duration_ms,
      error: attempt.error,
      response: attempt.response_excerpt,
    })),
  };
}

function eventsProblem(events: readonly string[] | null | undefined): FieldError[] {
  if (events === undefined || events === null) return [];
  return events.flatMap((type, index) =>
    isEventType(type)
      ? []
      : [
          {
            pointer: `/events/${String(index)}`,
            in: 'body' as const,
            code: 'unknown_event_type',
            detail: `${type} is not an event type (GET /api/v1/notificaciones/tipos-evento lists them).`,
          },
        ],
  );
}

export function createWebhooksService(deps: {
  db: Db<WebhooksTables>;
  clock: Clock;
  environment: FiscalEnvironment;
  masterKey: Buffer;
  allowPrivate: boolean;
  secretGraceMs: number;
  wakeDelivery: () => void;
}): WebhooksService {
  const { db, clock, environment, masterKey } = deps;
  const policy: TargetPolicy = { environment, allowPrivate: deps.allowPrivate };
  const notFound = (id: string) => fail('webhook_endpoint_not_found', `No webhook endpoint ${id}.`);

  /** Why a URL may not be an endpoint, as the field error of `/url`; undefined when it may. */
  async function refusedUrl(url: string): Promise<FieldError | undefined> {
    const problem = urlProblem(url, policy);
    if (problem !== undefined)
      return { pointer: '/url', in: 'body', code: 'url_refused', detail: `The URL ${problem}.` };
    const target = await resolveTarget(new URL(url).hostname, policy);
    return target.ok
      ? undefined
      : { pointer: '/url', in: 'body', code: 'url_refused', detail: `The URL is refused: ${target.reason}.` };
  }

  async function withAttempts(rows: readonly repo.DeliveryRow[]): Promise<DeliveryView[]> {
    const attempts = await repo.attemptsOf(
      db,
      rows.map((row) => row.id),
    );
    return rows.map((row) =>
      deliveryView(
        row,
        attempts.filter((attempt) => attempt.delivery_id === row.id),
      ),
    );
  }

  return {
    eventTypes() {
      return eventTypeNames.map((type) => ({
        type,
        description: eventTypes[type].description,
        dataSchema: JSON.parse(JSON.stringify(eventTypes[type].data)) as Record<string, unknown>,
      }));
    },

    async create(companyId, input) {
      const errors = [...eventsProblem(input.events)];
      const refused = await refusedUrl(input.url);
      if (refused !== undefined) errors.unshift(refused);
      if (errors.length > 0) return fail('validation_failed', 'The webhook endpoint cannot be created.', errors);
      const id = newId('whk');
      const secret = newSigningSecret();
      const now = clock.now();
      const row: repo.EndpointRow = {
        id,
        company_id: companyId,
        environment,
        url: input.url,
        description: input.description ?? null,
        event_types: input.events === undefined || input.events === null ? null : [...new Set(input.events)],
        status: 'enabled',
        disabled_reason: null,
        secret_sealed: sealSecret(masterKey, secret, secretContext(id)),
        previous_secret_sealed: null,
        previous_secret_until: null,
        failing_since: null,
        created_at: now,
        updated_at: now,
      };
      await repo.insertEndpoint(db, row);
      return ok({ ...endpointView(row, now), secret });
    },

    async list(companyId, query) {
      const after = startOf(query.cursor);
      if (!after.ok) return after;
      const limit = query.limit ?? pageLimits.default;
      const page = pageOf(
        await repo.listEndpoints(db, companyId, environment, { limit, after: after.value }),
        limit,
        (row) => row.created_at,
      );
      const now = clock.now();
      return ok({ items: page.rows.map((row) => endpointView(row, now)), nextCursor: page.nextCursor });
    },

    async get(companyId, id) {
      const row = await repo.findEndpoint(db, companyId, environment, id);
      return row === undefined ? notFound(id) : ok(endpointView(row, clock.now()));
    },

    async update(companyId, id, input) {
      const row = await repo.findEndpoint(db, companyId, environment, id);
      if (row === undefined) return notFound(id);
      const errors = eventsProblem(input.events);
      if (input.url !== undefined) {
        const refused = await refusedUrl(input.url);
        if (refused !== undefined) errors.unshift(refused);
      }
      if (errors.length > 0) return fail('validation_failed', 'The webhook endpoint cannot be changed so.', errors);
      const now = clock.now();
      const reenabled = input.state === 'enabled' && row.status === 'disabled';
      await repo.updateEndpoint(db, id, {
        ...(input.url === undefined ? {} : { url: input.url }),
        ...(input.events === undefined
          ? {}
          : { event_types: input.events === null ? null : [...new Set(input.events)] }),
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(input.state === undefined
          ? {}
          : { status: input.state, disabled_reason: input.state === 'disabled' ? 'disabled by the company' : null }),
        ...(reenabled ? { failing_since: null } : {}),
        updated_at: now,
      });
      const updated = await repo.findEndpoint(db, companyId, environment, id);
      return updated === undefined ? notFound(id) : ok(endpointView(updated, now));
    },

    async rotateSecret(companyId, id) {
      const row = await repo.findEndpoint(db, companyId, environment, id);
      if (row === undefined) return notFound(id);
      const secret = newSigningSecret();
      const now = clock.now();
      const previousUntil = new Date(now.getTime() + deps.secretGraceMs);
      await repo.updateEndpoint(db, id, {
        secret_sealed: sealSecret(masterKey, secret, secretContext(id)),
        previous_secret_sealed: row.secret_sealed,
        previous_secret_until: previousUntil,
        updated_at: now,
      });
      return ok({
        ...endpointView(
          { ...row, previous_secret_sealed: row.secret_sealed, previous_secret_until: previousUntil, updated_at: now },
          now,
        ),
        secret,
      });
    },

    async test(companyId, id) {
      const endpoint = await repo.findEndpoint(db, companyId, environment, id);
      if (endpoint === undefined) return notFound(id);
      const company = await companySummary(db, companyId);
      if (company === undefined) throw new Error(`company ${companyId} not found`);
      const now = clock.now();
      const eventId = newId('evt');
      const row: Omit<repo.DeliveryRow, 'attempts'> = {
        id: newId('msg'),
        endpoint_id: id,
        company_id: companyId,
        environment,
        event_id: eventId,
        event_type: 'webhook.test',
        body: deliveryBody({
          id: eventId,
          type: 'webhook.test',
          occurredAt: now,
          environment,
          company: { id: companyId, rnc: company.rnc },
          correlationId: correlationIdNow(),
          data: { endpointId: id, message: 'A test delivery asked for with POST /notificaciones/:id/prueba.' },
        }),
        status: 'pending',
        next_attempt_at: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      };
      await transact(db, async (trx) => {
        const inserted = await repo.insertDeliveries(trx, [row]);
        await queueDeliveries(
          trx,
          environment,
          inserted.map((deliveryId) => ({ id: deliveryId })),
          now,
        );
        return ok(undefined);
      });
      deps.wakeDelivery();
      return ok(deliveryView({ ...row, attempts: 0 }, []));
    },

    async deliveries(companyId, query) {
      const after = startOf(query.cursor);
      if (!after.ok) return after;
      const limit = query.limit ?? pageLimits.default;
      const rows = await repo.listDeliveries(db, companyId, environment, {
        limit,
        after: after.value,
        endpointId: query.endpointId,
        status: query.status as repo.DeliveryRow['status'] | undefined,
      });
      const page = pageOf(rows, limit, (row) => row.created_at);
      return ok({ items: await withAttempts(page.rows), nextCursor: page.nextCursor });
    },

    async resend(companyId, deliveryId) {
      // The same delivery (same webhook-id), pending again: the next claim attempts it, signed with a fresh timestamp.
      const now = clock.now();
      const requeued = await transact(db, async (trx) => {
        const row = await repo.requeueDelivery(trx, companyId, environment, deliveryId, now);
        if (row === undefined) return fail('webhook_delivery_not_found', `No webhook delivery ${deliveryId}.`);
        // A fresh run of attempts; one in flight records nothing (its lease is gone) and the re-send is still made.
        await queueDeliveries(trx, environment, [{ id: row.id }], now);
        return ok(row);
      });
      if (!requeued.ok) return requeued;
      const row = requeued.value;
      deps.wakeDelivery();
      const [view] = await withAttempts([row]);
      return view === undefined ? fail('webhook_delivery_not_found', `No webhook delivery ${deliveryId}.`) : ok(view);
    },
  };
}
