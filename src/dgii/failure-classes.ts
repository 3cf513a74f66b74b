// What a failed exchange with DGII means for sending again (research/dgii-protocol.md §1.3, §2; the sandbox's
// faults in src/sandbox/http/faults.ts):
// - `transient`: DGII certainly did not act. No connection (DNS, refused, connect timeout, TLS), a connection that
//   broke before the whole request was written, an open breaker, 502/503 (a gateway or IIS that did not reach the
//   application; DGII's maintenance answer is a 503), 408, 429. Safe to resend.
// - `uncertain`: DGII may have it. The request was written completely and then the answer did not come in time, or
//   the connection broke (the sandbox's `reset` and `timeout` faults act once the request has arrived, as a DGII that
//   accepted and then failed would), or DGII answered 500/504 (it may have stored the document before failing), or
//   a 2xx we cannot read. Before any resend the caller asks DGII about the e-NCF (trackIds, statusByEncf).
// Queries change nothing at DGII, so for them every such failure is `transient`.
import { parseDgiiMessages } from './messages.js';
import type { CallFailure, Transient, Uncertain } from './outcomes.js';
import type { Answer } from './responses.js';
import type { HttpResult } from './transport.js';

/** A send changes DGII's state; a query does not. */
export type Mode = 'send' | 'query';

export function classifyFailure(result: Extract<HttpResult, { ok: false }>, mode: Mode): Transient | Uncertain {
  const detail = `${result.failure}${result.code === undefined ? '' : ` (${result.code})`}`;
  switch (result.failure) {
    case 'dns':
    case 'connect_refused':
    case 'connect_timeout':
    case 'connect_failed':
      return { kind: 'transient', reason: result.failure, detail };
    case 'broken':
      if (mode === 'send' && result.sent) return { kind: 'uncertain', reason: 'reset_after_sent', detail };
      return { kind: 'transient', reason: mode === 'send' ? 'reset_before_sent' : 'network', detail };
    case 'response_timeout':
      if (mode === 'send' && result.sent) return { kind: 'uncertain', reason: 'response_timeout', detail };
      return { kind: 'transient', reason: 'response_timeout', detail };
    case 'too_large':
      // It answered, so a send may have been acted on.
      if (mode === 'send') return { kind: 'uncertain', reason: 'unparseable_response', detail };
      return { kind: 'transient', reason: 'bad_response', detail };
  }
}

/** Statuses that mean DGII's application did not take the request (see the header comment). */
function notTaken(status: number): boolean {
  return status === 502 || status === 503 || status === 408 || status === 429;
}

export function classifyStatus(answer: Answer, mode: Mode): Transient | Uncertain | undefined {
  if (notTaken(answer.status)) {
    return {
      kind: 'transient',
      reason: 'server_unavailable',
      detail: `HTTP ${String(answer.status)}`,
      httpStatus: answer.status,
      messages: parseDgiiMessages(answer.body, answer.contentType),
    };
  }
  if (answer.status >= 500) {
    if (mode === 'send')
      return {
        kind: 'uncertain',
        reason: 'server_error',
        detail: `HTTP ${String(answer.status)}`,
        httpStatus: answer.status,
      };
    return {
      kind: 'transient',
      reason: 'server_unavailable',
      detail: `HTTP ${String(answer.status)}`,
      httpStatus: answer.status,
    };
  }
  return undefined;
}

/** Queries never produce `uncertain` (classifyFailure in 'query' mode); this narrows the type for them. */
export function asQueryFailure(failure: CallFailure | Uncertain): CallFailure {
  return failure.kind === 'uncertain' ? { kind: 'transient', reason: 'network', detail: failure.detail } : failure;
}

export function asTransient(failure: Transient | Uncertain): Transient {
  return failure.kind === 'uncertain' ? { kind: 'transient', reason: 'network', detail: failure.detail } : failure;
}
