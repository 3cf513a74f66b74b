// The workers' loop over certification lanes: the active processes with cases handed to their lane, each advanced
// one step at a time (lane.ts). Each step holds the process's lane under the engine's lease (platform/work), so two
// workers on one process leave it to whichever took the lease first, and a dead one's lease runs out. A lane waiting for DGII's verdict is looked at again
// after `restMs`; ejecutar in this process wakes the loop at once.
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type { Logger } from '../../platform/observability/logger.js';
import { startClaimLoop, type ClaimLoop } from '../../platform/queue/claim-loop.js';
import * as repo from './certification.repo.js';
import type { createLane } from './lane.js';
import type { CertificationTables } from './tables.js';

export function startLaneLoop(deps: {
  db: Db<CertificationTables>;
  environment: FiscalEnvironment;
  lane: ReturnType<typeof createLane>;
  log: Logger;
  restMs: number;
}): ClaimLoop {
  const { db, environment, lane, log, restMs } = deps;
  return startClaimLoop({
    name: 'certification lane',
    claim: async (limit) => (await repo.processesWithLaneWork(db, environment, limit)).map((row) => row.id),
    work: (processId) => lane.advance(processId),
    idOf: (processId) => processId,
    log,
    batchSize: 16,
    concurrency: 4,
    restMs,
  });
}
