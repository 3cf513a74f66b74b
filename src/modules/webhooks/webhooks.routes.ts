// Webhooks (SPEC §4.7), all under `webhooks:manage`: event types, endpoints, deliveries.
import { Type } from 'typebox';
import { settings } from '../../config.js';
import {
  Envelope,
  envelope,
  envelopeExample,
  listEnvelope,
  ListEnvelope,
  listExample,
} from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import {
  CreateEndpoint,
  DeliveryParams,
  DeliveryView,
  EndpointParams,
  EndpointView,
  EndpointWithSecret,
  EventTypeView,
  ListDeliveriesQuery,
  ListEndpointsQuery,
  UpdateEndpoint,
} from './webhooks.schema.js';
import type { WebhooksService } from './webhooks.service.js';

const endpointExample = {
  id: 'whk_yOF6t8Li0F3cZyoamYxg',
  url: 'https://erp.example.com/hooks/ecf',
  events: ['document.accepted', 'document.rejected'],
  description: 'ERP',
  state: 'enabled',
  disabledReason: null,
  failingSince: null,
  previousSecretValidUntil: null,
  createdAt: '2026-11-27T14:30:00.000Z',
  updatedAt: '2026-11-27T14:30:00.000Z',
};
const secretExample = 'whsec_e+nh4dH7DQStUfTegEvJZpMbwIXQ+awlbddNB/xXJX8=';
const deliveryExample = {
  deliveryId: 'msg_QxZ2ynVW16fNt41GsAZulKG7',
  endpointId: 'whk_yOF6t8Li0F3cZyoamYxg',
  eventId: 'evt_HY1oGxSbOc2g4G4TZwx8',
  eventType: 'document.accepted',
  status: 'succeeded',
  attemptCount: 1,
  nextAttemptAt: null,
  lastError: null,
  createdAt: '2026-11-27T14:31:09.000Z',
  updatedAt: '2026-11-27T14:31:10.000Z',
  attempts: [{ at: '2026-11-27T14:31:10.000Z', statusCode: 200, durationMs: 184, error: null, response: 'ok' }],
};

const auth = { kind: 'apiKey', scope: 'webhooks:manage' } as const;
const tags = ['Webhooks'];
const signing =
  'Each delivery is a POST of `{id, type, createdAt, environment, company, correlationId, data}` (`correlationId`: the X-Correlation-ID of the request whose work caused the event, or the id of the schedule that did) with the Standard Webhooks headers `webhook-id` (the delivery id, the same on every attempt), `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed with the base64-decoded part of the whsec_ secret>`; space-separated, one per valid secret, during a rotation), and the same values as `X-Service-Delivery`, `X-Service-Timestamp`, `X-Service-Signature`, with `X-Service-Event` the type. Any Standard Webhooks library verifies them. ' +
  `Success is a 2xx within ${settings.WEBHOOKS_TIMEOUT_MS.default / 1_000} s; otherwise retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (with jitter, never before Retry-After); redirects are not followed; 410 disables the endpoint, and so do ${settings.WEBHOOKS_DISABLE_AFTER_DAYS.default} days of failures (event \`webhook.endpoint_disabled\`).`;

export function webhookRoutes(webhooks: WebhooksService) {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/v1/notificaciones/tipos-evento',
      alias: '/api/v1/webhooks/event-types',
      auth,
      docs: {
        operationId: 'listWebhookEventTypes',
        summary: "The event types webhooks deliver, with the JSON schema of each one's data",
        tags,
        examples: {
          response: envelopeExample([
            {
              type: 'document.accepted',
              description: 'DGII accepted the document.',
              dataSchema: { type: 'object', required: ['documentId', 'eNCF', 'ecfType', 'status'] },
            },
          ]),
        },
      },
      schema: { response: { 200: Envelope(Type.Array(ref(EventTypeView))) } },
      handler: (request) => envelope(request, webhooks.eventTypes()),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/notificaciones',
      alias: '/api/v1/webhooks',
      auth,
      docs: {
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint; its signing secret is shown in this answer only',
        description: signing,
        tags,
        examples: {
          request: {
            url: 'https://erp.example.com/hooks/ecf',
            events: ['document.accepted', 'document.rejected'],
            description: 'ERP',
          },
          response: envelopeExample({ ...endpointExample, secret: secretExample }),
        },
      },
      schema: { body: ref(CreateEndpoint), response: { 201: Envelope(ref(EndpointWithSecret)) } },
      handler: async (request, reply) =>
        reply
          .code(201)
          .send(envelope(request, unwrap(await webhooks.create(companyOf(request.principal), request.body)))),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/notificaciones',
      alias: '/api/v1/webhooks',
      auth,
      docs: {
        operationId: 'listWebhookEndpoints',
        summary: "The company's webhook endpoints, newest first",
        tags,
        examples: { response: listExample([endpointExample]) },
      },
      schema: { querystring: ListEndpointsQuery, response: { 200: ListEnvelope(ref(EndpointView)) } },
      handler: async (request) => {
        const page = unwrap(await webhooks.list(companyOf(request.principal), request.query));
        return listEnvelope(request, page.items, page.nextCursor);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/notificaciones/entregas',
      alias: '/api/v1/webhooks/deliveries',
      auth,
      docs: {
        operationId: 'listWebhookDeliveries',
        summary: 'Deliveries, newest first, with every attempt (filters endpointId, status)',
        tags,
        examples: { response: listExample([deliveryExample]) },
      },
      schema: { querystring: ListDeliveriesQuery, response: { 200: ListEnvelope(ref(DeliveryView)) } },
      handler: async (request) => {
        const page = unwrap(await webhooks.deliveries(companyOf(request.principal), request.query));
        return listEnvelope(request, page.items, page.nextCursor);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/notificaciones/entregas/:deliveryId/reenvios',
      alias: '/api/v1/webhooks/deliveries/:deliveryId/resend',
      auth,
      docs: {
        operationId: 'resendWebhookDelivery',
        summary: 'Attempt a delivery again now (202): the same delivery id, a fresh timestamp and signature',
        tags,
        examples: {
          response: envelopeExample({ ...deliveryExample, status: 'pending', updatedAt: '2026-11-27T15:00:00.000Z' }),
        },
      },
      schema: { params: DeliveryParams, response: { 202: Envelope(ref(DeliveryView)) } },
      handler: async (request, reply) =>
        reply
          .code(202)
          .send(
            envelope(request, unwrap(await webhooks.resend(companyOf(request.principal), request.params.deliveryId))),
          ),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/notificaciones/:id',
      alias: '/api/v1/webhooks/:id',
      auth,
      docs: {
        operationId: 'getWebhookEndpoint',
        summary: 'A webhook endpoint (never its secret)',
        tags,
        examples: { response: envelopeExample(endpointExample) },
      },
      schema: { params: EndpointParams, response: { 200: Envelope(ref(EndpointView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await webhooks.get(companyOf(request.principal), request.params.id))),
    }),
    defineRoute({
      method: 'PATCH',
      url: '/api/v1/notificaciones/:id',
      alias: '/api/v1/webhooks/:id',
      auth,
      docs: {
        operationId: 'updateWebhookEndpoint',
        summary: 'Change the URL, events, description or state of an endpoint',
        tags,
        examples: {
          request: {
            events: ['document.accepted', 'document.accepted_conditional', 'document.rejected'],
            description: 'ERP (producción)',
          },
          response: envelopeExample({
            ...endpointExample,
            events: ['document.accepted', 'document.accepted_conditional', 'document.rejected'],
            description: 'ERP (producción)',
            updatedAt: '2026-11-27T15:00:00.000Z',
          }),
        },
      },
      schema: { params: EndpointParams, body: ref(UpdateEndpoint), response: { 200: Envelope(ref(EndpointView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await webhooks.update(companyOf(request.principal), request.params.id, request.body))),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/notificaciones/:id/rotar-secreto',
      alias: '/api/v1/webhooks/:id/rotate-secret',
      auth,
      docs: {
        operationId: 'rotateWebhookSecret',
        summary: `A new signing secret (shown here only); the old one keeps signing beside it for the grace period (${settings.WEBHOOKS_SECRET_GRACE_HOURS.default} h by default)`,
        tags,
        examples: {
          response: envelopeExample({
            ...endpointExample,
            previousSecretValidUntil: '2026-11-28T15:00:00.000Z',
            updatedAt: '2026-11-27T15:00:00.000Z',
            secret: secretExample,
          }),
        },
      },
      schema: { params: EndpointParams, response: { 200: Envelope(ref(EndpointWithSecret)) } },
      handler: async (request) =>
        envelope(request, unwrap(await webhooks.rotateSecret(companyOf(request.principal), request.params.id))),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/notificaciones/:id/prueba',
      alias: '/api/v1/webhooks/:id/test',
      auth,
      docs: {
        operationId: 'testWebhookEndpoint',
        summary: 'Send a `webhook.test` delivery to this endpoint (202)',
        tags,
        examples: {
          response: envelopeExample({
            ...deliveryExample,
            eventType: 'webhook.test',
            status: 'pending',
            attemptCount: 0,
            attempts: [],
          }),
        },
      },
      schema: { params: EndpointParams, response: { 202: Envelope(ref(DeliveryView)) } },
      handler: async (request, reply) =>
        reply
          .code(202)
          .send(envelope(request, unwrap(await webhooks.test(companyOf(request.principal), request.params.id)))),
    }),
  ];
}
