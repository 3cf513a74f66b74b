// The correlation id of what is under way (SPEC §9.5; DESIGN §4): a request's (X-Correlation-ID, or a new one), or
// that of the queued work or job being done, which is the id of the request (or schedule) that queued it. Set where
// each starts (the HTTP server, the work engine, the job queue) and read where its traces are written: every log
// line (logger.ts), and every timeline entry, webhook event and queued item it records. Kept in the async context so
// that code far from the request (the DGII client's log lines, a module's timeline insert) needs no id passed down.
// Statements that write many items together (platform/group-commit.ts) take each item's id as data, read where the
// item was made, since a batch runs in the context of whichever caller set it off.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

const current = new AsyncLocalStorage<string>();

/** Runs `run` with `id` as the correlation id of everything it does, awaited work included. */
export function withCorrelationId<T>(id: string, run: () => T): T {
  return current.run(id, run);
}

/** The id of the request or work under way; undefined outside any (start-up, a loop between items). */
export function currentCorrelationId(): string | undefined {
  return current.getStore();
}

/**
 * The id to record with what is written now: the request's or work's under way, or, for something a loop or the
 * start-up does on its own, an id of its own (a new UUID), as a request without X-Correlation-ID gets one.
 */
export function correlationIdNow(): string {
  return current.getStore() ?? randomUUID();
}
