// The one engine for work that goes out of the service and must get there (documents to DGII, annulments,
// commercial responses, webhook deliveries). It owns what every such target needs and used to write for itself:
// - the claim: items due are taken in batches under a lease (outbound-work.repo.ts), side by side with other workers;
//   a dead worker's items fall due again when their lease runs out;
// - the attempt is counted when it is claimed, so an attempt whose worker died counts too, and an item whose
//   attempts all died ends exhausted instead of being taken up for ever;
// - an error of our own while performing (the archived bytes gone, a lookup that throws) is a counted failed
//   attempt with its reason, never an item left to its lease;
// - backoff with jitter (or the target's own schedule), never before the other side's Retry-After; an attempt that
//   was not made (a circuit breaker open, a maintenance window) is not counted;
// - the outcome is recorded only while the lease is still this worker's: the queue row is settled first, in the
//   transaction that records it, and a stale worker's late result changes nothing;
// - each item is worked under the correlation id stored with it (the request's that queued it, observability/
//   correlation.ts): every line its attempt logs, and every timeline entry, event and item it records, carries it.
// A target supplies only what is its own: how to load its items, how to perform one attempt, and how each
// settlement shows in its history (states, timeline, events).
import type { FiscalEnvironment } from '../../config.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { transact, type Trx } from '../db/transact.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { groupCommit } from '../group-commit.js';
import { newId } from '../ids.js';
import { withCorrelationId } from '../observability/correlation.js';
import type { Logger } from '../observability/logger.js';
import { startClaimLoop, type ClaimLoop } from '../queue/claim-loop.js';
import { ok } from '../result.js';
import * as repo from './outbound-work.repo.js';

export interface WorkPolicy {
  /** How long one worker holds an item: longer than one attempt can take. */
  leaseMs: number;
  /** Attempts before an item is exhausted. */
  maxAttempts: number;
  /** The wait after failed attempt number `attempts` (1-based); `random` is in [0, 1), for jitter. */
  retryDelayMs(attempts: number, random: number): number;
}

/** What one attempt came to, as the target tells it. `Failure`: what a target keeps of a failed attempt (an answer). */
export type Outcome<Done, Failure = never> =
  /** It got there: the item settles. */
  | { kind: 'done'; result: Done }
  /**
   * It did not: a counted attempt, retried after the backoff (not before `retryAt`), unless none is left or `final`.
   * `ours`: the failure was an error of this service, not the other side's (the engine sets it for a throw).
   */
  | { kind: 'failed'; reason: string; retryAt?: Date | undefined; final?: boolean; failure?: Failure; ours?: boolean }
  /** Not attempted (nothing left this service): not counted, due again at `until`. */
  | { kind: 'deferred'; reason: string; until: Date }
  /**
   * Not finished, through no failure of the attempt (a verdict not given yet, an answer still unknown): asked again
   * at `at`, with the count of attempts started again (a target that needs a longer count keeps its own).
   */
  | { kind: 'again'; at: Date; reason?: string };

/** What the engine made of an outcome, for the target to record in its history (in the settling transaction). */
export type Settlement<Done, Failure = never> =
  | { kind: 'done'; result: Done; attempts: number }
  | {
      kind: 'retry';
      reason: string;
      attempts: number;
      maxAttempts: number;
      at: Date;
      failure?: Failure;
      ours?: boolean;
    }
  | { kind: 'deferred'; reason: string; attempts: number; at: Date }
  | { kind: 'again'; attempts: number; at: Date; reason?: string }
  | { kind: 'exhausted'; reason: string; attempts: number; maxAttempts: number; failure?: Failure; ours?: boolean };

export interface Attempt {
  /** This attempt's number, from 1. */
  number: number;
  leaseId: string;
}

/** Queue rows a claim took, each with its item as an attempt needs it (undefined: it has none any more). */
export interface ClaimedItem<Item> {
  itemId: string;
  attempts: number;
  /** The queue row's: the request's that queued the item. */
  correlationId: string;
  item: Item | undefined;
}

export interface WorkTarget<Item, Done, Failure = never> {
  /** The queue's name for it (outbound_work.target): 'annulment.send'. */
  name: string;
  policy: WorkPolicy;
  /**
   * How a claim finds its items, one of two ways. `load`: read after the queue rows are taken (the items of these
   * ids; an id missing from the map has no item any more). `claim`: the queue rows and the items taken in one
   * statement of the target's own, built on outbound-work.repo.ts claimableRows and claimUpdate, for items that
   * change as they are taken (a document marked `sending` under the lease).
   */
  load?(ids: readonly string[]): Promise<Map<string, Item>>;
  claim?(terms: repo.ClaimTerms): Promise<ClaimedItem<Item>[]>;
  /** One attempt. Throwing is an error of this service: a counted failed attempt. */
  perform(item: Item, attempt: Attempt): Promise<Outcome<Done, Failure>>;
  /** Records a settlement in the item's history, in the transaction that settled it under the lease. */
  record(trx: Trx, item: Item, settlement: Settlement<Done, Failure>): Promise<void>;
  /**
   * Optional, for a target whose successes are many and alike: records done items together, in one statement that
   * settles their queue rows under their leases itself (outbound-work.repo.ts settledUnderLease). Whether each was
   * still held, in order. The engine group-commits them (platform/group-commit.ts); when a batch fails, each item
   * goes the ordinary way (record, in a transaction).
   */
  recordDone?(done: readonly DoneItem<Item, Done>[]): Promise<boolean[]>;
}

/**
 * A done item as recordDone records it with others. A batch runs in the context of whichever item set it off, so
 * what it records for each item takes the item's own `correlationId`, not the one under way.
 */
export interface DoneItem<Item, Done> {
  item: Item;
  result: Done;
  leaseId: string;
  attempts: number;
  correlationId: string;
}

export interface ClaimedWork<Item> {
  id: string;
  item: Item;
  attempt: Attempt;
  /** The request's that queued it: its attempt runs under it. */
  correlationId: string;
}

export interface WorkEngine<Item> {
  /** Takes up to `limit` items due now, under one lease. */
  claim(limit: number): Promise<ClaimedWork<Item>[]>;
  /** Takes item `itemId` now, due or not, unless a running lease holds it (someone asked for it now). */
  claimNow(itemId: string): Promise<ClaimedWork<Item>[]>;
  /** One attempt of a claimed item, settled and recorded. */
  work(claimed: ClaimedWork<Item>): Promise<void>;
  /** Puts items in the queue, due at `dueAt` (now by default), inside the caller's transaction. */
  enqueue(executor: Db | Trx, itemIds: readonly string[], dueAt?: Date): Promise<void>;
  /**
   * Makes items due now, queued if they were not, inside the caller's transaction; an item a worker holds is left to
   * it (its outcome settles it), and attempts already counted stay counted. For work asked for again while it may be
   * waiting or under way (a lane handed more cases): unlike enqueue, it never takes an item from its worker.
   */
  hasten(executor: Db | Trx, itemIds: readonly string[]): Promise<void>;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createWorkEngine<Item, Done, Failure = never>(deps: {
  db: Db;
  clock: Clock;
  log: Logger;
  environment: FiscalEnvironment;
  target: WorkTarget<Item, Done, Failure>;
  random?: () => number;
}): WorkEngine<Item> {
  const { db, clock, log, environment, target } = deps;
  const { policy } = target;
  const random = deps.random ?? Math.random;
  const later = (ms: number) => new Date(clock.now().getTime() + ms);
  const recordDone =
    target.recordDone === undefined
      ? undefined
      : groupCommit(target.recordDone.bind(target), { maxBatch: 200, isolateFailures: true });

  /** The settlement of an outcome and what it does to the queue row (deleted when undefined). */
  function settlementOf(
    outcome: Outcome<Done, Failure>,
    attempts: number,
  ): { settlement: Settlement<Done, Failure>; next: { dueAt: Date; attempts: number } | undefined } {
    switch (outcome.kind) {
      case 'done':
        return { settlement: { kind: 'done', result: outcome.result, attempts }, next: undefined };
      case 'deferred':
        return {
          settlement: { kind: 'deferred', reason: outcome.reason, attempts: attempts - 1, at: outcome.until },
          next: { dueAt: outcome.until, attempts: attempts - 1 },
        };
      case 'again':
        return {
          settlement: {
            kind: 'again',
            attempts,
            at: outcome.at,
            ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
          },
          next: { dueAt: outcome.at, attempts: 0 },
        };
      case 'failed': {
        const failure = {
          ...(outcome.failure === undefined ? {} : { failure: outcome.failure }),
          ...(outcome.ours === true ? { ours: true } : {}),
        };
        if (outcome.final === true || attempts >= policy.maxAttempts)
          return {
            settlement: {
              kind: 'exhausted',
              reason: outcome.reason,
              attempts,
              maxAttempts: policy.maxAttempts,
              ...failure,
            },
            next: undefined,
          };
        const backoff = later(policy.retryDelayMs(attempts, random()));
        const at = outcome.retryAt !== undefined && outcome.retryAt > backoff ? outcome.retryAt : backoff;
        return {
          settlement: {
            kind: 'retry',
            reason: outcome.reason,
            attempts,
            maxAttempts: policy.maxAttempts,
            at,
            ...failure,
          },
          next: { dueAt: at, attempts },
        };
      }
    }
  }

  /**
   * A line for each outcome recorded (under the item's correlation id): an item is followed in the log attempt by
   * attempt. A question asked again, or an attempt put off, is a detail (debug); a failed attempt is said with its
   * reason, the last one as a warning.
   */
  function logRecorded(id: string, settlement: Settlement<Done, Failure>): void {
    const fields = { target: target.name, id, attempts: settlement.attempts };
    switch (settlement.kind) {
      case 'done':
        log.info(fields, `${target.name}: done`);
        return;
      case 'retry':
        log.info({ ...fields, reason: settlement.reason, retryAt: settlement.at }, `${target.name}: attempt failed`);
        return;
      case 'exhausted':
        log.warn({ ...fields, reason: settlement.reason }, `${target.name}: failed, no attempt left`);
        return;
      case 'again':
        log.debug({ ...fields, at: settlement.at, reason: settlement.reason }, `${target.name}: asked again later`);
        return;
      case 'deferred':
        log.debug({ ...fields, at: settlement.at, reason: settlement.reason }, `${target.name}: not attempted now`);
        return;
    }
  }

  /**
   * Settles the queue row under the lease and records the settlement, in one transaction. When recording fails (an
   * error of ours), the attempt ends exhausted with that reason rather than staying leased; when even that cannot
   * be written (the database gone), the lease runs out and the item is taken up again.
   */
  async function settle(claimed: ClaimedWork<Item>, outcome: Outcome<Done, Failure>): Promise<void> {
    const { id, item, attempt, correlationId } = claimed;
    const { settlement, next } = settlementOf(outcome, attempt.number);
    if (recordDone !== undefined && settlement.kind === 'done') {
      try {
        const done = { item, result: settlement.result, leaseId: attempt.leaseId, attempts: attempt.number };
        if (await recordDone({ ...done, correlationId })) logRecorded(id, settlement);
        else log.warn({ target: target.name, id }, 'outcome not recorded: the lease passed to another worker');
        return;
      } catch (error) {
        log.warn({ err: error, target: target.name, id }, 'recording a success with others failed; recording it alone');
      }
    }
    const record = async (chosen: Settlement<Done, Failure>, queued: typeof next) => {
      const recorded = await transact(db, async (trx) => {
        if (!(await repo.settle(trx, { target: target.name, itemId: id, leaseId: attempt.leaseId }, queued))) {
          log.warn({ target: target.name, id }, 'outcome not recorded: the lease passed to another worker');
          return ok(false);
        }
        await target.record(trx, item, chosen);
        return ok(true);
      });
      if (recorded.ok && recorded.value) logRecorded(id, chosen);
    };
    try {
      await record(settlement, next);
    } catch (error) {
      // The database away: nothing can be written now, an exhausted attempt no more than the outcome. The lease runs
      // out and the item is taken up again; targets whose work reached someone ask first whether it did.
      if (isDatabaseUnavailable(error)) {
        log.warn({ err: error, target: target.name, id }, 'the outcome waits for the database: taken up again later');
        return;
      }
      log.error({ err: error, target: target.name, id }, 'recording an outcome failed');
      await record(
        {
          kind: 'exhausted',
          reason: `an error of this service while recording the outcome: ${describe(error)}`,
          attempts: attempt.number,
          maxAttempts: policy.maxAttempts,
          ours: true,
        },
        undefined,
      );
    }
  }

  async function claimItems(terms: repo.ClaimTerms): Promise<ClaimedItem<Item>[]> {
    if (target.claim !== undefined) return target.claim(terms);
    if (target.load === undefined) throw new Error(`work target ${target.name}: neither load nor claim`);
    const taken = await repo.claimDue(db, terms);
    if (taken.length === 0) return [];
    const items = await target.load(taken.map((row) => row.item_id));
    return taken.map((row) => ({
      itemId: row.item_id,
      attempts: row.attempts,
      correlationId: row.correlation_id,
      item: items.get(row.item_id),
    }));
  }

  async function claim(which: repo.ClaimWhich): Promise<ClaimedWork<Item>[]> {
    const terms: repo.ClaimTerms = {
      target: target.name,
      environment,
      now: clock.now(),
      leaseId: newId('lse'),
      leaseUntil: later(policy.leaseMs),
      which,
    };
    const rows = await claimItems(terms);
    const claimed: ClaimedWork<Item>[] = [];
    for (const { itemId, attempts, correlationId, item } of rows) {
      const attempt = { number: attempts, leaseId: terms.leaseId };
      if (item === undefined) {
        // Its history row is gone or settled elsewhere (a purge, a company deleted): nothing to do, nothing to record.
        await transact(db, async (trx) =>
          ok(await repo.settle(trx, { target: target.name, itemId, leaseId: terms.leaseId }, undefined)),
        );
        withCorrelationId(correlationId, () => {
          log.warn({ target: target.name, id: itemId }, 'queued work without its item: removed');
        });
      } else if (attempts > policy.maxAttempts) {
        // Every attempt allowed was started and none was settled: each worker died or lost its database mid-way.
        const last = { id: itemId, item, attempt: { ...attempt, number: policy.maxAttempts }, correlationId };
        await withCorrelationId(correlationId, () =>
          settle(last, {
            kind: 'failed',
            reason: `attempt ${String(policy.maxAttempts)} never finished: its worker stopped or lost its database`,
            final: true,
            ours: true,
          }),
        );
      } else {
        claimed.push({ id: itemId, item, attempt, correlationId });
      }
    }
    return claimed;
  }

  return {
    claim: (limit) => claim({ limit }),
    claimNow: (itemId) => claim({ itemId }),

    work(claimed) {
      return withCorrelationId(claimed.correlationId, async () => {
        const { id, item, attempt } = claimed;
        let outcome: Outcome<Done, Failure>;
        try {
          outcome = await target.perform(item, attempt);
        } catch (error) {
          log.error({ err: error, target: target.name, id }, 'an attempt failed on an error of this service');
          outcome = { kind: 'failed', reason: `an error of this service: ${describe(error)}`, ours: true };
        }
        await settle(claimed, outcome);
      });
    },

    async enqueue(executor, itemIds, dueAt) {
      const at = dueAt ?? clock.now();
      await repo.enqueue(
        executor,
        itemIds.map((itemId) => ({ target: target.name, itemId, environment, dueAt: at })),
      );
    },

    async hasten(executor, itemIds) {
      await repo.hasten(
        executor,
        itemIds.map((itemId) => ({ target: target.name, itemId, environment })),
        clock.now(),
      );
    },
  };
}

/** The workers' loop over one target's due items (platform/queue/claim-loop.ts). */
export function startWorkLoop<Item>(
  engine: WorkEngine<Item>,
  options: { name: string; log: Logger; batchSize: number; concurrency: number; restMs: number },
): ClaimLoop {
  return startClaimLoop({
    name: options.name,
    claim: (limit) => engine.claim(limit),
    work: (claimed) => engine.work(claimed),
    idOf: (claimed) => claimed.id,
    log: options.log,
    batchSize: options.batchSize,
    concurrency: options.concurrency,
    restMs: options.restMs,
  });
}
