// Getting a signed document to DGII exactly once and following it to DGII's verdict (DESIGN §5.2), as two targets
// of the outbound work engine (platform/work), each in a file of its own: the send (send-target.ts, with its RFCE leg
// in rfce-send.ts, what DGII's answers come to in send-outcome.ts and how they show in send-records.ts) and the poll
// (poll-target.ts); what both change on a document is document-changes.ts. Here: their policy from the
// configuration, and the pause of sends during DGII's maintenance window.
import { maxRetryDelayMs, type Config, type FiscalEnvironment } from '../../config.js';
import type { DgiiClient } from '../../dgii/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { Logger } from '../../platform/observability/logger.js';
import { createWorkEngine, type ClaimedWork, type WorkEngine } from '../../platform/work/work-engine.js';
import type { CompaniesService } from '../companies/index.js';
import { holdDueSends, type DocumentRow, type DocumentsService } from '../documents/index.js';
import { createDocumentChanges, documentSends, type ClaimedSend } from './document-changes.js';
import { createPollTarget, type PollPolicy } from './poll-target.js';
import { createSendTarget, type SendPolicy } from './send-target.js';

export { documentPolls, documentSends, type ClaimedSend } from './document-changes.js';

/** How long one answer of DGII's status service is reused. */
const availabilityTtlMs = 5_000;

export interface DeliveryPolicy extends SendPolicy, PollPolicy {
  /** Attempts that reach DGII (or fail to) before a document is `send_failed` and a failed job opens. */
  maxAttempts: number;
  /** First retry delay; doubled per attempt, with jitter, up to maxRetryDelayMs. */
  retryDelayMs: number;
  maxRetryDelayMs: number;
  /**
   * How long one worker holds a document while it talks to DGII (SEND_LEASE_SECONDS): longer than two of the
   * client's calls (ask, then send); a dead worker's documents fall due again when it runs out.
   */
  leaseMs: number;
  /**
   * After an uncertain outcome, how long before DGII is asked about the e-NCF: a request our client gave up on may
   * still be working its way through DGII, and asking too soon would hear "nothing" and send a second copy. At least
   * twice the client's response timeout.
   */
  uncertainSettleMs: number;
}

/** The policy of a configuration: its attempts, delays and lease (SEND_*), and what follows from its DGII timeouts. */
export function deliveryPolicy(config: Pick<Config, 'sending' | 'dgiiClient'>): DeliveryPolicy {
  return {
    maxAttempts: config.sending.maxAttempts,
    retryDelayMs: config.sending.retryBaseMs,
    maxRetryDelayMs: maxRetryDelayMs.sending,
    leaseMs: config.sending.leaseMs,
    firstPollDelayMs: 1_000,
    maxPollDelayMs: 5 * 60_000,
    notFoundAfterPolls: 5,
    uncertainSettleMs: 2 * config.dgiiClient.responseTimeoutMs,
  };
}

export interface Delivery {
  sends: WorkEngine<ClaimedSend>;
  polls: WorkEngine<DocumentRow>;
  /** Claims up to `limit` documents whose send is due; during DGII's maintenance window, makes them wait instead. */
  claimDueSends(limit: number): Promise<ClaimedWork<ClaimedSend>[]>;
  /** One send attempt for document `documentId`, now, if no worker holds it. Safe to run twice, or on two workers. */
  attempt(documentId: string): Promise<void>;
  /** Asks DGII about document `documentId` waiting for its verdict, now, if no poller holds it. */
  pollNow(documentId: string): Promise<void>;
}

export function createDelivery(deps: {
  db: Db;
  clock: Clock;
  log: Logger;
  environment: FiscalEnvironment;
  dgii: DgiiClient;
  companies: CompaniesService;
  documents: DocumentsService;
  policy: DeliveryPolicy;
  /** The work target that takes an accepted document on to its buyer (modules/buyer-delivery); absent: none. */
  deliverAccepted?: string | undefined;
  random?: () => number;
}): Delivery {
  const { db, clock, log, environment, dgii, policy } = deps;
  const changes = createDocumentChanges({
    clock,
    environment,
    firstPollDelayMs: policy.firstPollDelayMs,
    deliverAccepted: deps.deliverAccepted,
  });
  const engineDeps = { db, clock, log, environment, ...(deps.random === undefined ? {} : { random: deps.random }) };
  const sends = createWorkEngine({
    ...engineDeps,
    target: createSendTarget({ ...deps, changes }),
  });
  const polls = createWorkEngine({
    ...engineDeps,
    target: createPollTarget({ db, clock, environment, dgii, changes, policy }),
  });

  /**
   * DGII's announced maintenance window running now, if any (statusecf; asked at most every few seconds per
   * process). Without the status service's API key, or when it does not answer, sending goes ahead: a DGII that is
   * down anyway answers 503, which is retried like any transient failure.
   */
  let availability: { at: number; window: { end: Date } | null } | undefined;
  async function maintenanceNow(): Promise<{ end: Date } | null> {
    const now = clock.now().getTime();
    if (availability === undefined || now - availability.at > availabilityTtlMs) {
      const status = await dgii.serviceStatus();
      availability = { at: now, window: status.kind === 'status' ? status.activeWindow : null };
    }
    return availability.window !== null && availability.window.end.getTime() > now ? availability.window : null;
  }

  return {
    sends,
    polls,
    async claimDueSends(limit) {
      const maintenance = await maintenanceNow();
      if (maintenance === null) return sends.claim(limit);
      // Paused, not failed: the documents wait for the window's end, and no attempt is counted.
      const end = maintenance.end.toISOString();
      await holdDueSends(db, {
        target: documentSends,
        environment,
        now: clock.now(),
        until: maintenance.end,
        limit,
        cause: `not attempted (DGII is in a maintenance window until ${end}); DGII did not take it; next attempt at ${end}`,
      });
      return [];
    },
    async attempt(documentId) {
      // Asked now (a refresh): during a maintenance window it waits, due at the window's end, like the others.
      if ((await maintenanceNow()) !== null) return;
      for (const claimed of await sends.claimNow(documentId)) await sends.work(claimed);
    },
    async pollNow(documentId) {
      for (const claimed of await polls.claimNow(documentId)) await polls.work(claimed);
    },
  };
}
