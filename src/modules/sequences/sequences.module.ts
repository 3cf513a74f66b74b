import type { Platform, ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import { createWorkEngine, startWorkLoop } from '../../platform/work/work-engine.js';
import type { CompaniesService } from '../companies/index.js';
import { defineLoop } from '../module.js';
import { allocationRoutes } from './allocations.routes.js';
import { annulmentLeaseMs, createAnnulmentSendTarget } from './annulment-sending.js';
import { annulmentRoutes } from './annulments.routes.js';
import { annulmentSchemas } from './annulments.schema.js';
import { createAnnulmentsService, type AnnulmentIssuer } from './annulments.service.js';
import type { IssuedDocuments } from './issued-documents.js';
import { sequenceJobs } from './sequences.jobs.js';
import { sequenceRoutes } from './sequences.routes.js';
import { sequenceSchemas } from './sequences.schema.js';
import { createSequencesService, type SequencesService } from './sequences.service.js';

/**
 * Ranges, numbers, offline blocks and annulments (ANECF), the last sent to DGII by the workers' loop. `issued`:
 * documents' reads of the numbers documents use, passed in because documents imports sequences (issued-documents.ts).
 */
export function sequencesModule(
  platform: Platform,
  { companies, issued }: { companies: CompaniesService; issued: IssuedDocuments },
): ModuleParts & { sequences: SequencesService } {
  const { config, db, clock, log, blobs, environment, dgii } = platform;
  const sequences = createSequencesService({ db, clock, environment, thresholds: config.sequenceWarnings, issued });
  // The certificate is read afresh for each annulment (another process may have replaced it).
  const issuer = async (companyId: string): Promise<AnnulmentIssuer | undefined> => {
    const company = await companies.get(companyId);
    return company === undefined
      ? undefined
      : { rnc: company.rnc, identity: await companies.signingIdentity(companyId) };
  };
  const leaseMs = annulmentLeaseMs({
    connectMs: config.dgiiClient.connectTimeoutMs,
    responseMs: config.dgiiClient.responseTimeoutMs,
  });
  const sends = createWorkEngine({
    db,
    clock,
    log,
    environment,
    target: createAnnulmentSendTarget({
      db,
      clock,
      environment,
      blobs,
      dgii,
      issuer,
      policy: { maxAttempts: config.annulments.maxAttempts, retryDelayMs: config.annulments.retryBaseMs, leaseMs },
    }),
  });
  const sender = defineLoop('annulment send', 'work', (name) =>
    startWorkLoop(sends, { name, log, batchSize: 4, concurrency: 4, restMs: 1_000 }),
  );
  const annulments = createAnnulmentsService({
    db,
    clock,
    environment,
    blobs,
    issuer,
    issued,
    schedule: (trx, annulmentId) => sends.enqueue(trx, [annulmentId]),
    queued: () => {
      sender.wake();
    },
  });
  const jobs = sequenceJobs({ sequences });
  return {
    sequences,
    schemas: [...sequenceSchemas, ...annulmentSchemas],
    routes: [
      ...sequenceRoutes(sequences),
      ...allocationRoutes(sequences),
      ...annulmentRoutes(annulments),
    ] as AppRoute[],
    jobs: Object.values(jobs),
    loops: [sender],
  };
}
