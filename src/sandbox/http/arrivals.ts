// The arrivals log: every request that reached a receiving service, with what became of it. Tests and demos read
// it through the admin routes to prove a document reached DGII exactly once.
import type { Expression } from 'kysely';
import type { SandboxDb } from '../state/schema.js';
import type { SandboxContext } from './context.js';
import type { SandboxService } from './sandbox-route.js';

export interface Arrival {
  service: SandboxService;
  environment: string;
  rnc?: string | undefined;
  encf?: string | undefined;
  trackId?: string | undefined;
  outcome: string;
}

/**
 * The log's insert for an arrival at `at`, run alone (recordArrival) or as part of a reception's one statement, where
 * the outcome may be an expression (it depends on whether the e-NCF could still be burned).
 */
export function arrivalInsert(
  db: SandboxDb,
  arrival: Omit<Arrival, 'outcome'> & { outcome: string | Expression<string> },
  at: Date,
) {
  return db.insertInto('sandbox_arrivals').values({
    service: arrival.service,
    environment: arrival.environment,
    rnc: arrival.rnc ?? null,
    encf: arrival.encf ?? null,
    track_id: arrival.trackId ?? null,
    outcome: arrival.outcome,
    arrived_at: at,
  });
}

export async function recordArrival(context: Pick<SandboxContext, 'db' | 'clock'>, arrival: Arrival): Promise<void> {
  await arrivalInsert(context.db, arrival, context.clock.now()).execute();
}
