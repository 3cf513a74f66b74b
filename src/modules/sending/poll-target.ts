// Following a trackId to DGII's verdict (DESIGN §5.2), a target of the outbound work engine (platform/work):
// `document.poll`. A poll's answer is ONE statement whose conditions (the state, trackId and polls counted it saw)
// are its UPDATE's WHERE (document-changes.ts): a stale poll changes nothing. A document in process is never
// abandoned: DGII's verdict is still to come.
import type { FiscalEnvironment } from '../../config.js';
import type { DgiiClient } from '../../dgii/index.js';
import { backoffMs, exponentialBackoff } from '../../platform/backoff.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import * as outbound from '../../platform/work/outbound-work.repo.js';
import type { WorkTarget } from '../../platform/work/work-engine.js';
import { documentPolls, recordTogether, type DocumentChanges, type PollDone } from './document-changes.js';
import { changeDocumentsIf, claimPolls, type DocumentRow } from '../documents/index.js';

export interface PollPolicy {
  leaseMs: number;
  maxAttempts: number;
  /** First poll after a trackId; doubled per poll up to maxPollDelayMs. */
  firstPollDelayMs: number;
  maxPollDelayMs: number;
  /** consultaresultado answers "not found" for a trackId it gave: after this many polls the document is `not_found`. */
  notFoundAfterPolls: number;
}

export function createPollTarget(deps: {
  db: Db;
  clock: Clock;
  environment: FiscalEnvironment;
  dgii: DgiiClient;
  changes: DocumentChanges;
  policy: PollPolicy;
}): WorkTarget<DocumentRow, PollDone> {
  const { db, clock, environment, dgii, changes, policy } = deps;
  const later = (ms: number) => new Date(clock.now().getTime() + ms);

  return {
    name: documentPolls,
    // Attempts here are polls that failed on an error of ours (a DGII that does not answer is asked again, uncounted).
    policy: {
      leaseMs: policy.leaseMs,
      maxAttempts: policy.maxAttempts,
      retryDelayMs: exponentialBackoff(policy.firstPollDelayMs, policy.maxPollDelayMs),
    },
    async claim(terms) {
      return (await claimPolls(db, terms)).map(({ row, ...claimed }) => ({ ...claimed, item: row }));
    },
    async perform(row) {
      if (row.track_id === null) throw new Error(`document ${row.id} is in process without a trackId`);
      const outcome = await dgii.result(row.company_id, row.track_id);
      switch (outcome.kind) {
        case 'accepted':
        case 'conditional':
        case 'rejected':
          return { kind: 'done', result: { kind: 'verdict', verdict: outcome } };
        case 'not_found':
          if (row.poll_count + 1 >= policy.notFoundAfterPolls) return { kind: 'done', result: { kind: 'not_found' } };
          break;
        case 'in_process':
        case 'transient':
        case 'unauthorized':
        case 'no_credentials':
          break;
      }
      // Still working, or no answer now: asked again later.
      return {
        kind: 'again',
        at: later(backoffMs(row.poll_count + 1, policy.firstPollDelayMs, policy.maxPollDelayMs)),
      };
    },
    async record(trx, row, settlement) {
      switch (settlement.kind) {
        case 'done':
          await changeDocumentsIf(trx, [changes.pollDone(row, settlement.result)]);
          return;
        case 'again':
          // The poll counted, only while the document is as the poll saw it; nothing else about it changed.
          await changeDocumentsIf(trx, [
            {
              id: row.id,
              expected: { status: 'in_process', trackId: row.track_id ?? '', pollCount: row.poll_count },
              change: { poll_count: row.poll_count + 1, next_poll_at: settlement.at, updated_at: clock.now() },
              records: {},
            },
          ]);
          return;
        case 'exhausted':
          // A document in process is never abandoned: DGII's verdict is still to come. Asked again at the longest wait.
          await outbound.enqueue(trx, [
            { target: documentPolls, itemId: row.id, environment, dueAt: later(policy.maxPollDelayMs) },
          ]);
          return;
        case 'retry':
        case 'deferred':
          return;
      }
    },
    recordDone: recordTogether(db, documentPolls, changes.pollDone),
  };
}
