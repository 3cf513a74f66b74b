import type { Platform, ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import type { CompaniesService } from '../companies/index.js';
import type { DocumentsService } from '../documents/index.js';
import { defineLoop } from '../module.js';
import { createDelivery, deliveryPolicy } from './delivery.js';
import { startPoller, startSender } from './loops.js';
import { sendingRoutes } from './sending.routes.js';
import { sendingSchemas } from './sending.schema.js';
import { createSendingService, type SendingService } from './sending.service.js';

/** Documents to DGII: the workers send them (loops.ts), the scheduler asks for their verdicts. */
export function sendingModule(
  platform: Platform,
  {
    companies,
    documents,
    deliverAccepted,
  }: {
    companies: CompaniesService;
    documents: DocumentsService;
    /** The work target that takes an accepted document on to its buyer (modules/buyer-delivery). */
    deliverAccepted?: string;
  },
): ModuleParts & { sending: SendingService } {
  const { config, db, clock, log, environment, dgii } = platform;
  const delivery = createDelivery({
    db,
    clock,
    log,
    environment,
    dgii,
    companies,
    documents,
    policy: deliveryPolicy(config),
    deliverAccepted,
  });
  const sender = defineLoop('document send', 'work', () =>
    startSender({ delivery, log, restMs: 500, concurrency: config.sending.concurrency }),
  );
  // Verdicts come due a second after their trackId and are asked in batches: a short rest keeps their wait near
  // that second (not up to another one), for one indexed look at the documents in process per rest.
  const poller = defineLoop('verdict poll', 'schedule', () =>
    startPoller({ delivery, log, restMs: 250, concurrency: config.sending.concurrency }),
  );
  const sending = createSendingService({
    db,
    clock,
    environment,
    dgii,
    delivery,
    queued: () => {
      sender.wake();
    },
  });
  return { sending, schemas: sendingSchemas, routes: sendingRoutes(sending) as AppRoute[], loops: [sender, poller] };
}
