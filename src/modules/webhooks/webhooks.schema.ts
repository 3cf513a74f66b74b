// Webhook endpoints, deliveries and event types as the API reads and writes them (SPEC §4.7).
import { Type, type Static } from 'typebox';
import { settings } from '../../config.js';
import { ListQuery } from '../../platform/http/list-query.js';

const Events = Type.Union(
  [Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100 }), Type.Null()],
  {
    description: 'The event types to deliver (GET /notificaciones/tipos-evento); null or absent: every type.',
  },
);
const Url = Type.String({
  minLength: 1,
  maxLength: 2_048,
  description:
    'Where deliveries are POSTed. https only in PRODUCTION; loopback, private, link-local and metadata addresses are refused.',
});
const Description = Type.String({ maxLength: 500 });

export const CreateEndpoint = Type.Object(
  { url: Url, events: Type.Optional(Events), description: Type.Optional(Description) },
  {
    $id: 'CreateWebhookEndpoint',
    additionalProperties: false,
  },
);
export type CreateEndpoint = Static<typeof CreateEndpoint>;

export const UpdateEndpoint = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    state: Type.Optional(
      Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], {
        description: 'enabled again also forgets the run of failures that disabled it.',
      }),
    ),
  },
  { $id: 'UpdateWebhookEndpoint', additionalProperties: false, minProperties: 1 },
);
export type UpdateEndpoint = Static<typeof UpdateEndpoint>;

export const EndpointView = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null: every event type.' }),
    description: Type.Union([Type.String(), Type.Null()]),
    state: Type.String({ enum: ['enabled', 'disabled'] }),
    disabledReason: Type.Union([Type.String(), Type.Null()]),
    failingSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: `The first failure of an unbroken run of failures; disabled after ${settings.WEBHOOKS_DISABLE_AFTER_DAYS.default} days.`,
    }),
    previousSecretValidUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'After a rotation, deliveries carry the old signature beside the new one until then.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookEndpoint' },
);
export type EndpointView = Static<typeof EndpointView>;

export const EndpointWithSecret = Type.Intersect(
  [
    EndpointView,
    Type.Object({
      secret: Type.String({
        description: 'whsec_…: shown here only (create and rotation); verify deliveries with it.',
      }),
    }),
  ],
  { $id: 'WebhookEndpointWithSecret' },
);
export type EndpointWithSecret = Static<typeof EndpointWithSecret>;

export const deliveryStatuses = ['pending', 'succeeded', 'failed', 'exhausted'] as const;

export const AttemptView = Type.Object({
  at: Type.String({ format: 'date-time' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()], {
    description: 'null: no answer (refused target, connection error, timeout).',
  }),
  durationMs: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  response: Type.Union([Type.String(), Type.Null()], { description: 'The first 1 KB of the answer.' }),
});

export const DeliveryView = Type.Object(
  {
    deliveryId: Type.String({
      description: 'The webhook-id (X-Service-Delivery) header: the same on every attempt and re-send.',
    }),
    endpointId: Type.String(),
    eventId: Type.String(),
    eventType: Type.String(),
    status: Type.String({
      enum: [...deliveryStatuses],
      description:
        'pending → succeeded | failed (will retry at nextAttemptAt) → … | exhausted (no attempt left, or the endpoint was disabled).',
    }),
    attemptCount: Type.Integer(),
    nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    attempts: Type.Array(AttemptView),
  },
  { $id: 'WebhookDelivery' },
);
export type DeliveryView = Static<typeof DeliveryView>;

export const EventTypeView = Type.Object(
  {
    type: Type.String(),
    description: Type.String(),
    dataSchema: Type.Object(
      {},
      { additionalProperties: true, description: "JSON schema of the delivery body's `data`." },
    ),
  },
  { $id: 'WebhookEventType' },
);

export const EndpointParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const DeliveryParams = Type.Object({ deliveryId: Type.String({ minLength: 1, maxLength: 64 }) });

export const ListEndpointsQuery = ListQuery({});
export const ListDeliveriesQuery = ListQuery({
  endpointId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  status: Type.Optional(Type.String({ enum: [...deliveryStatuses] })),
});
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;

export const webhookSchemas = [
  CreateEndpoint,
  UpdateEndpoint,
  EndpointView,
  EndpointWithSecret,
  DeliveryView,
  EventTypeView,
];
