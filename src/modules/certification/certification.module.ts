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
import { createLaneTarget, startLaneLoop } from './lane-loop.js';
import { approvalItemId, createApprovalTarget } from './approval-target.js';
import { createWorkEngine, startWorkLoop, type WorkEngine } from '../../platform/work/work-engine.js';

/**
 * DGII's certification process, its serial lanes and their approvals worked by the workers as targets of the
 * outbound work engine (CERT only: elsewhere no process exists).
 */
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
  const changes = createCaseChanges(environment);
  const dgiiCallMs = config.dgiiClient.connectTimeoutMs + config.dgiiClient.responseTimeoutMs;
  // Each engine's target hastens the other's items as they settle: built first, wired after.
  const engines: { lane?: WorkEngine<unknown>; approvals?: WorkEngine<unknown> } = {};
  const engine = (name: keyof typeof engines) => {
    const built = engines[name];
    if (built === undefined) throw new Error(`certification: the ${name} engine is not built yet`);
    return built;
  };
  const approvals = createWorkEngine({
    db,
    clock,
    log,
    environment,
    target: createApprovalTarget({
      db,
      clock,
      environment,
      blobs,
      dgii,
      changes,
      // An attempt authenticates (seed, token) and posts: three calls to DGII, each within its timeouts.
      policy: {
        maxAttempts: config.commercialResponses.maxAttempts,
        retryDelayMs: config.commercialResponses.retryBaseMs,
        leaseMs: 4 * dgiiCallMs,
      },
      laneChanged: (trx, processId) => engine('lane').hasten(trx, [processId]),
    }),
  });
  engines.approvals = approvals;
  const approvalLoop = defineLoop('certification approval', 'work', (name) =>
    startWorkLoop(approvals, { name, log, batchSize: 8, concurrency: 4, restMs: 1_000 }),
  );
  const moved = new Set<string>();
  const lane = createLane({
    db,
    clock,
    environment,
    log,
    blobs,
    companies,
    documents,
    sending,
    changes,
    queueApproval: (trx, processId, caseKey) => engine('approvals').enqueue(trx, [approvalItemId(processId, caseKey)]),
    approvalQueued: () => {
      approvalLoop.wake();
    },
  });
  const lanes = createWorkEngine({
    db,
    clock,
    log,
    environment,
    target: createLaneTarget({
      db,
      clock,
      lane,
      // The lease outlasts one step of the lane: a document made and queued (sending asks DGII nothing here).
      leaseMs: 2 * dgiiCallMs + 10_000,
      waitMs: 500,
      hasten: (trx, processId) => engine('lane').hasten(trx, [processId]),
      moved,
    }),
  });
  engines.lane = lanes;
  const laneLoop = defineLoop('certification lane', 'work', (name) =>
    startLaneLoop(lanes, { name, log, restMs: 500, moved }),
  );
  const certification = createCertificationService({
    db,
    clock,
    environment,
    companies,
    canAuthenticate: async (companyId) => (await dgiiSessions.credentialsOf(companyId)) !== undefined,
    publicBaseUrl: config.publicBaseUrl,
    hastenLane: (trx, processId) => lanes.hasten(trx, [processId]),
    laneQueued: () => {
      laneLoop.wake();
    },
  });
  return {
    schemas: certificationSchemas,
    routes: certificationRoutes(
      certification,
      createPrintedRepresentationsExport({ certification, documents, printing: needs.printing }),
    ) as AppRoute[],
    loops: environment === 'CERT' ? [laneLoop, approvalLoop] : [],
  };
}
