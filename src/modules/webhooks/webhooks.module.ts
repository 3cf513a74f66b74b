import type { Platform, ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import { defineLoop } from '../module.js';
import { createWebhookDelivery } from './delivery-engine.js';
import { startDispatcher } from './dispatcher.js';
import { webhookJobs } from './webhooks.jobs.js';
import { webhookRoutes } from './webhooks.routes.js';
import { webhookSchemas } from './webhooks.schema.js';
import { createWebhooksService } from './webhooks.service.js';

/**
 * Webhooks: workers fan out the outbox and deliver in a loop of their own (not jobs); the API only manages
 * endpoints and sets deliveries pending again, waking this process's loop when it runs one.
 */
export function webhooksModule({ config, db, clock, log, environment, masterKey }: Platform): ModuleParts {
  const { webhooks } = config;
  const dispatcher = defineLoop('webhook delivery', 'work', () =>
    startDispatcher({
      delivery: createWebhookDelivery({
        db,
        clock,
        log,
        environment,
        masterKey,
        policy: { ...webhooks, allowPrivate: config.outboundAllowPrivate },
      }),
      log,
      batchSize: 200,
      concurrency: webhooks.concurrency,
      restMs: webhooks.dispatchIntervalMs,
    }),
  );
  const service = createWebhooksService({
    db,
    clock,
    environment,
    masterKey,
    allowPrivate: config.outboundAllowPrivate,
    secretGraceMs: webhooks.secretGraceMs,
    wakeDelivery: () => {
      dispatcher.wake();
    },
  });
  const jobs = webhookJobs({ db, clock, environment, retentionMs: webhooks.retentionMs });
  return {
    schemas: webhookSchemas,
    routes: webhookRoutes(service) as AppRoute[],
    jobs: Object.values(jobs),
    loops: [dispatcher],
  };
}
