import type { Platform, ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import { createWorkEngine, startWorkLoop, type WorkEngine } from '../../platform/work/work-engine.js';
import type { CompaniesService } from '../companies/index.js';
import type { PrintingService } from '../printing/index.js';
import type { Directory } from '../taxpayers/index.js';
import { defineLoop } from '../module.js';
import type { ResponseDeliveryTarget } from './tables.js';
import { createResponseDeliveryTarget, responseDeliveryLeaseMs } from './outgoing-response-delivery.js';
import { outgoingResponseRoutes } from './outgoing-response.routes.js';
import { outgoingResponseSchemas } from './outgoing-response.schema.js';
import { createOutgoingResponses, responseTargets } from './outgoing-response.service.js';
import { receivedRoutes } from './received.routes.js';
import { receivedSchemas } from './received.schema.js';
import { createReceivedService, type ReceivedService } from './received.service.js';

/**
 * e-CF other taxpayers sent to the company's receiver, and the commercial responses (ACECF) to them: made by the
 * API, delivered by the workers to the issuer and to DGII.
 */
export function receivedModule(
  platform: Platform,
  { companies, printing, directory }: { companies: CompaniesService; printing: PrintingService; directory: Directory },
): ModuleParts & { received: ReceivedService } {
  const { config, db, clock, log, blobs, environment, dgii, xmlChecks, schemas, receivers } = platform;
  const received = createReceivedService({
    db,
    clock,
    blobs,
    environment,
    xmlChecks,
    signingKey: async (companyId) => (await companies.issuer(companyId))?.identity,
  });
  const leaseMs = responseDeliveryLeaseMs({
    connectMs: config.dgiiClient.connectTimeoutMs,
    responseMs: config.dgiiClient.responseTimeoutMs,
  });
  const policy = {
    maxAttempts: config.commercialResponses.maxAttempts,
    retryDelayMs: config.commercialResponses.retryBaseMs,
    leaseMs,
  };
  const engines = Object.fromEntries(
    responseTargets.map((target) => [
      target,
      createWorkEngine({
        db,
        clock,
        log,
        environment,
        target: createResponseDeliveryTarget({
          db,
          clock,
          blobs,
          environment,
          dgii,
          receivers,
          directory,
          companies,
          target,
          policy,
        }),
      }),
    ]),
  ) as Record<ResponseDeliveryTarget, WorkEngine<unknown>>;
  const loops = responseTargets.map((target) =>
    defineLoop(`commercial response to ${target}`, 'work', (name) =>
      startWorkLoop(engines[target], {
        name,
        log,
        batchSize: 8,
        concurrency: 8,
        restMs: 1_000,
      }),
    ),
  );
  const commercialResponses = createOutgoingResponses({
    db,
    clock,
    blobs,
    environment,
    schemas,
    companies,
    received,
    scheduleDelivery: (trx, receivedDocumentId, target) => engines[target].enqueue(trx, [receivedDocumentId]),
    queued: () => {
      for (const loop of loops) loop.wake();
    },
  });
  return {
    received,
    schemas: [...receivedSchemas, ...outgoingResponseSchemas],
    routes: [...receivedRoutes(received, printing), ...outgoingResponseRoutes(commercialResponses)] as AppRoute[],
    loops,
  };
}
