import type { Logger } from '../observability/logger.js';

/** Every job carries the correlation id of the request (or schedule) that caused it. */
export interface JobEnvelope<T> {
  correlationId: string;
  payload: T;
}

export interface JobContext {
  jobId: string;
  correlationId: string;
  attempt: number;
  log: Logger;
}

export interface RetryPolicy {
  retryLimit: number;
  retryDelaySeconds: number;
  retryBackoff: boolean;
  expireInSeconds: number;
}

/**
 * One named kind of background work. Jobs take ids, load state, do one thing and record the outcome;
 * running one twice does no harm (STYLE.md principle 9).
 */
export interface JobDefinition<T> {
  name: string;
  retry: RetryPolicy;
  /** How many of these one worker process runs at once (default 1): jobs that wait on the network want more. */
  concurrency?: number;
  handle(payload: T, context: JobContext): Promise<void>;
}

export function defineJob<T>(definition: JobDefinition<T>): JobDefinition<T> {
  return definition;
}

/** A job whose payload type has been forgotten, for lists of mixed jobs. */
export type AnyJob = JobDefinition<never>;
