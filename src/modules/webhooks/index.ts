export { createWebhookDelivery, type WebhookDelivery } from './delivery-engine.js';
export { startDispatcher, type Dispatcher } from './dispatcher.js';
export {
  eventTypeNames,
  eventTypes,
  type EventPayloads,
  type EventType,
} from '../../platform/events/event-catalogue.js';
export { certificateWarningDays } from './certificate-warnings.js';
export { webhookJobs } from './webhooks.jobs.js';
export { webhookRoutes } from './webhooks.routes.js';
export { webhookSchemas } from './webhooks.schema.js';
export { createWebhooksService, type WebhooksService } from './webhooks.service.js';
export { webhooksModule } from './webhooks.module.js';
export type { WebhooksTables } from './tables.js';
