import { Counter } from 'prom-client';
import type { Platform, ModuleParts } from '../module.js';
import { defineLoop } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import type { Metrics } from '../../platform/observability/metrics.js';
import { createWorkEngine, startWorkLoop } from '../../platform/work/work-engine.js';
import type { CompaniesService } from '../companies/index.js';
import { deliveryChannelNames, type DocumentsService } from '../documents/index.js';
import type { PrintingService } from '../printing/index.js';
import type { Directory } from '../taxpayers/index.js';
import { buyerDeliveryRoutes } from './buyer-delivery.routes.js';
import { createBuyerDeliveryService, type BuyerDeliveryService } from './buyer-delivery.service.js';
import { createBuyerDeliveryTarget } from './buyer-delivery.target.js';

/**
 * Every accepted e-CF to its buyer (DESIGN §5.3): queued by the statement that records DGII's acceptance
 * (modules/sending) or by entregar, delivered by the workers.
 */
export function buyerDeliveryModule(
  platform: Platform,
  needs: {
    companies: CompaniesService;
    documents: DocumentsService;
    printing: PrintingService;
    directory: Directory;
    metrics: Metrics;
  },
): ModuleParts & { buyerDelivery: BuyerDeliveryService } {
  const { config, db, clock, log, blobs, environment, receivers, mailer, schemas } = platform;
  const counted = new Counter({
    name: 'ecf_buyer_deliveries_total',
    help: 'Attempts to deliver accepted e-CF to their buyers, by channel (receptor, correo, ninguno) and outcome',
    labelNames: ['channel', 'outcome'],
    registers: [needs.metrics.registry],
  });
  const { connectTimeoutMs, responseTimeoutMs } = config.dgiiClient;
  const target = createBuyerDeliveryTarget({
    db,
    clock,
    blobs,
    environment,
    documents: needs.documents,
    companies: needs.companies,
    printing: needs.printing,
    directory: needs.directory,
    receivers,
    mailer,
    mailFrom: config.mail.from,
    schemas,
    policy: {
      maxAttempts: config.buyerDeliveries.maxAttempts,
      retryDelayMs: config.buyerDeliveries.retryBaseMs,
      // Up to four calls to the receiver (directory, seed, token, post), or one SMTP exchange, and the archive.
      leaseMs: 5 * (connectTimeoutMs + responseTimeoutMs) + 3 * config.mail.timeoutMs,
    },
    count: (channel, outcome) => {
      counted.inc({
        channel: deliveryChannelNames[channel ?? 'none'],
        outcome,
      });
    },
  });
  const engine = createWorkEngine({ db, clock, log, environment, target });
  const loop = defineLoop('buyer delivery', 'work', (name) =>
    startWorkLoop(engine, { name, log, batchSize: 32, concurrency: 32, restMs: 500 }),
  );
  const buyerDelivery = createBuyerDeliveryService({
    db,
    clock,
    environment,
    documents: needs.documents,
    engine,
    queued: () => {
      loop.wake();
    },
  });
  return { buyerDelivery, routes: buyerDeliveryRoutes(buyerDelivery) as AppRoute[], loops: [loop] };
}
