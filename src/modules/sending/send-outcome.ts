// What DGII's answer to a send comes to, as an outcome of the work engine (platform/work): `done` is a trackId or a
// verdict; `failed` is an attempt DGII certainly did not take (back to `queued`, `send_failed` when none is left);
// `deferred` is not attempted (DGII unavailable: not counted); `again` is an answer still unknown (stays `sending`,
// asked about before any resend, a failed job once attempts run out, and never given up: giving up would need a
// resend, and a resend without an answer could send twice).
import { dgiiOutOfReach, type SendEcfOutcome, type SendRfceOutcome } from '../../dgii/index.js';
import type { Outcome } from '../../platform/work/work-engine.js';
import { describeMessages, type ClaimedSend, type SendDone } from './document-changes.js';
import type { NotTaken } from './send-records.js';
import type { DocumentRow } from '../documents/index.js';

export type SendOutcome = Outcome<SendDone, NotTaken>;

export function createSendOutcomes(deps: {
  later: (ms: number) => Date;
  /** The wait after failed attempt number `attempts` (the engine's backoff, without jitter). */
  retryBackoff: (attempts: number) => number;
  policy: { maxAttempts: number; uncertainSettleMs: number };
}) {
  const { later, retryBackoff, policy } = deps;

  /** An answer still unknown: asked about again once the request our client gave up on has settled. */
  function unknownYet(row: DocumentRow, reason: string): SendOutcome {
    return {
      kind: 'again',
      at: later(Math.max(policy.uncertainSettleMs, retryBackoff(row.send_attempts + 1))),
      reason,
    };
  }

  /** Not taken: a counted attempt (retried, or `send_failed` once attempts run out by the document's count). */
  function notTaken(
    row: DocumentRow,
    reason: string,
    retryAt: Date | undefined,
    unreachable: boolean,
    ours = false,
  ): SendOutcome {
    return {
      kind: 'failed',
      reason,
      retryAt,
      ...(ours ? { ours: true } : {}),
      final: row.send_attempts + 1 >= policy.maxAttempts,
      failure: { untaken: true, counted: true, unreachable },
    };
  }

  function answered(claimed: ClaimedSend, outcome: SendEcfOutcome | SendRfceOutcome): SendOutcome {
    const { row, previous } = claimed;
    switch (outcome.kind) {
      case 'received':
        return {
          kind: 'done',
          result: {
            kind: 'track',
            trackId: outcome.trackId,
            cause: `DGII received it: trackId ${outcome.trackId}`,
            sent: true,
          },
        };
      case 'accepted':
      case 'conditional':
      case 'rejected':
        return {
          kind: 'done',
          result: {
            kind: 'verdict',
            verdict: outcome,
            source: row.send_route === 'rfce' ? 'DGII answered the RFCE' : 'DGII refused it at reception',
            sent: true,
          },
        };
      case 'transient':
        // DGII unavailable (its breaker open, a 503 before anything was read): not attempted, not counted.
        if (outcome.reason === 'unavailable')
          return {
            kind: 'deferred',
            reason: `${outcome.reason}: ${outcome.detail}`,
            until: outcome.retryAt ?? later(retryBackoff(row.send_attempts)),
          };
        return notTaken(row, `${outcome.reason}: ${outcome.detail}`, outcome.retryAt, dgiiOutOfReach[outcome.reason]);
      case 'uncertain':
        return unknownYet(row, `${outcome.reason}: ${outcome.detail}`);
      case 'unauthorized':
        return notTaken(
          row,
          `DGII refused the authentication (${outcome.reason})${describeMessages(outcome.messages)}`,
          undefined,
          false,
        );
      case 'no_credentials': {
        const detail =
          'the company has no certificate nor DGII session to authenticate with: install its certificate, then retry';
        // Taken from `sending`, it may be at DGII: it must be asked, not failed; the question waits like an uncertain one.
        if (previous === 'sending') return unknownYet(row, detail);
        return {
          kind: 'failed',
          reason: detail,
          final: true,
          failure: { untaken: true, counted: false, unreachable: false },
        };
      }
    }
  }

  return { unknownYet, notTaken, answered };
}
