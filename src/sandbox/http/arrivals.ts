// The arrivals log: every request that reached a receiving service, with what became of it. Tests and demos read
// it through the admin routes to prove a document reached DGII exactly once.
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

export async function recordArrival(context: Pick<SandboxContext, 'db' | 'clock'>, arrival: Arrival): Promise<void> {
  await context.db
    .insertInto('sandbox_arrivals')
    .values({
      service: arrival.service,
      environment: arrival.environment,
      rnc: arrival.rnc ?? null,
      encf: arrival.encf ?? null,
      track_id: arrival.trackId ?? null,
      outcome: arrival.outcome,
      arrived_at: context.clock.now(),
    })
    .execute();
}
