// The workers' loop over certification lanes: the active processes with cases handed to their lane, each advanced
// one step at a time (lane.ts). Not leased: a process is held by the row lock its step takes (SKIP LOCKED), so two
// workers on one process leave it to whichever got there first. A lane waiting for DGII's verdict is looked at again
// after `restMs`; ejecutar in this process wakes the loop at once.
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type { Logger } from '../../platform/observability/logger.js';
import { startClaimLoop, type ClaimLoop } from '../../platform/queue/claim-loop.js';
import * as repo from './certification.repo.js';
import type { createLane } from './lane.js';

export function startLaneLoop(deps: { db: Db; environment: FiscalEnvironment; lane: ReturnType<typeof createLane>; log: Logger; restMs: number }): ClaimLoop {
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

/**
 * Whether DGII's approval test may be under way for the company (step 10 or 11 open: DGII sends as soon as the portal's
 * button is clicked, which may be before step 10 is confirmed here) and `encf` is one of its set's
 * (commercial-approvals.ts).
 */
export function approvalTestOf(db: Db, environment: FiscalEnvironment) {
  return async (companyId: string, encf: string): Promise<boolean> => {
    if (environment !== 'CERT') return false;
    const process = await repo.activeProcess(db, companyId, environment);
    if (process === undefined) return false;
    const steps = await repo.stepsOf(db, process.id);
    if (!steps.some((step) => (step.number === 10 || step.number === 11) && step.status === 'open')) return false;
    return (await repo.casesOf(db, process.id)).some((row) => row.kind === 'ECF' && row.case_key.endsWith(encf));
  };
}
