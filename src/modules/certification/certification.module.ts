import type { Platform, ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import type { CompaniesService } from '../companies/index.js';
import type { DgiiSessionsService } from '../dgii-sessions/index.js';
import type { DocumentsService } from '../documents/index.js';
import type { PrintingService } from '../printing/index.js';
import type { SendingService } from '../sending/index.js';
import { defineLoop } from '../module.js';
import { createCaseChanges } from './case-changes.js';
import { certificationRoutes } from './certification.routes.js';
import { certificationSchemas } from './certification.schema.js';
import { createCertificationService } from './certification.service.js';
import { createLane } from './lane.js';
import { createPrintedRepresentationsExport } from './printed-representations.js';
import { startLaneLoop } from './lane-loop.js';

/** DGII's certification process, its serial lanes worked by the workers (CERT only: elsewhere no process exists). */
export function certificationModule(
  platform: Platform,
  needs: {
    companies: CompaniesService;
    documents: DocumentsService;
    sending: SendingService;
    dgiiSessions: DgiiSessionsService;
    printing: PrintingService;
  },
): ModuleParts {
  const { config, db, clock, log, blobs, environment, dgii } = platform;
  const { companies, documents, sending, dgiiSessions } = needs;
  // The lease outlasts one step of the lane: a document made and queued, or one call to DGII (connect + answer).
  const leaseMs = 2 * (config.dgiiClient.connectTimeoutMs + config.dgiiClient.responseTimeoutMs) + 10_000;
  const lanes = defineLoop('certification lane', 'work', () =>
    startLaneLoop({
      db,
      environment,
      log,
      restMs: 500,
      lane: createLane({
        db,
        clock,
        environment,
        log,
        blobs,
        companies,
        documents,
        sending,
        dgii,
        changes: createCaseChanges(environment),
        leaseMs,
      }),
    }),
  );
  const certification = createCertificationService({
    db,
    clock,
    environment,
    companies,
    canAuthenticate: async (companyId) => (await dgiiSessions.credentialsOf(companyId)) !== undefined,
    publicBaseUrl: config.publicBaseUrl,
    laneQueued: () => {
      lanes.wake();
    },
  });
  return {
    schemas: certificationSchemas,
    routes: certificationRoutes(
      certification,
      createPrintedRepresentationsExport({ certification, documents, printing: needs.printing }),
    ) as AppRoute[],
    loops: environment === 'CERT' ? [lanes] : [],
  };
}
