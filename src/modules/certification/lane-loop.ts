// The certification lanes as a target of the outbound work engine (platform/work): one item per process
// (`certification.lane`, its id the process id), claimed under the engine's lease, so two workers on one process
// leave it to whichever claimed it and a dead one's lease runs out. Each attempt advances the lane one step
// (lane.ts): a step that moved is followed at once; a lane whose document is with DGII, or whose next case waits for
// a step or a reference, is asked again after `waitMs`; a lane with nothing to do, or whose approval is being sent
// (approval-target.ts), leaves the queue until ejecutar or the approval's verdict hastens it. A step that throws is
// a failed attempt, retried with backoff (1 s doubling to 60 s); when none is left the lane stops, shown on the
// process's timeline (`lane` / `stopped`), until ejecutar starts it again.
import { exponentialBackoff } from '../../platform/backoff.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { Trx } from '../../platform/db/transact.js';
import type { Logger } from '../../platform/observability/logger.js';
import { startClaimLoop, type ClaimLoop } from '../../platform/queue/claim-loop.js';
import type { Outcome, WorkEngine, WorkTarget } from '../../platform/work/work-engine.js';
import * as repo from './certification.repo.js';
import type { CertificationTables } from './tables.js';
import { laneSignature, type createLane } from './lane.js';

/** Failed steps in a row before the lane stops, and the backoff between them. */
export const lanePolicy = { maxAttempts: 10, firstRetryMs: 1_000, maxRetryMs: 60_000 } as const;

export function createLaneTarget(deps: {
  db: Db<CertificationTables>;
  clock: Clock;
  lane: ReturnType<typeof createLane>;
  /** How long one worker holds a lane: longer than a step (a document made and queued, an approval signed). */
  leaseMs: number;
  /** How soon a waiting lane is looked at again. */
  waitMs: number;
  /** Hastens the lane of a process, in the caller's transaction (the lane's engine). */
  hasten: (trx: Trx<CertificationTables>, processId: string) => Promise<void>;
  /** The lanes whose step moved, for the loop to claim again at once (startLaneLoop). */
  moved: Set<string>;
}): WorkTarget<repo.ProcessRow, { seen: string }> {
  const { db, clock, lane, waitMs } = deps;
  return {
    name: repo.laneTarget,
    policy: {
      leaseMs: deps.leaseMs,
      maxAttempts: lanePolicy.maxAttempts,
      retryDelayMs: exponentialBackoff(lanePolicy.firstRetryMs, lanePolicy.maxRetryMs),
    },

    async load(ids) {
      return new Map((await repo.processesOf(db, ids)).map((row) => [row.id, row]));
    },

    async perform(process, attempt): Promise<Outcome<{ seen: string }>> {
      const step = await lane.advance(process.id, { leaseId: attempt.leaseId });
      switch (step.kind) {
        case 'moved':
          deps.moved.add(process.id);
          return { kind: 'again', at: clock.now() };
        case 'waiting':
          return { kind: 'again', at: new Date(clock.now().getTime() + waitMs) };
        case 'idle':
          return { kind: 'done', result: { seen: step.seen } };
      }
    },

    async record(trx, process, settlement) {
      switch (settlement.kind) {
        case 'done':
          // Cases handed in after the step looked (ejecutar's hasten found the item held): looked at again now.
          if (laneSignature(await repo.casesOf(trx, process.id)) !== settlement.result.seen)
            await deps.hasten(trx, process.id);
          return;
        case 'exhausted':
          await repo.insertEvent(trx, {
            processId: process.id,
            at: clock.now(),
            subject: 'lane',
            status: 'stopped',
            cause: `the lane stopped after ${String(settlement.attempts)} failed attempts (${settlement.reason}); ejecutar starts it again`,
          });
          return;
        case 'retry':
        case 'deferred':
        case 'again':
          return;
      }
    },
  };
}

/**
 * The workers' loop over the lanes due. A lane whose step moved is due again at once: once that is settled, the loop
 * is woken to claim it rather than resting first.
 */
export function startLaneLoop(
  engine: WorkEngine<repo.ProcessRow>,
  options: { name: string; log: Logger; restMs: number; moved: Set<string> },
): ClaimLoop {
  const loop: ClaimLoop = startClaimLoop({
    name: options.name,
    claim: (limit) => engine.claim(limit),
    work: async (claimed) => {
      try {
        await engine.work(claimed);
      } finally {
        if (options.moved.delete(claimed.id)) loop.wake();
      }
    },
    idOf: (claimed) => claimed.id,
    log: options.log,
    batchSize: 16,
    concurrency: 4,
    restMs: options.restMs,
  });
  return loop;
}
