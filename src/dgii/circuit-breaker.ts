// A circuit breaker per environment and DGII service: after `failureThreshold` consecutive failures (connection
// trouble, timeouts, 5xx) it opens, and every call short-fails without touching DGII until `openMs` have passed;
// then it half-opens and lets exactly ONE call through as a probe. The probe's success closes it; its failure opens
// it again for another `openMs`. A DGII answer that is a refusal (4xx) is a working DGII, so it counts as success.
import type { Clock } from '../platform/clock.js';
import type { BreakerSnapshot } from './outcomes.js';

export interface BreakerOptions {
  failureThreshold: number;
  openMs: number;
}

export type Admission = { allowed: true; probe: boolean } | { allowed: false; retryAt: Date };

export interface CircuitBreaker {
  /** Asks to make a call. When allowed, exactly one of succeeded/failed must follow. */
  admit(): Admission;
  succeeded(): void;
  failed(): void;
  snapshot(): BreakerSnapshot;
}

export function createCircuitBreaker(
  environment: string,
  service: string,
  clock: Clock,
  options: BreakerOptions,
): CircuitBreaker {
  let state: BreakerSnapshot['state'] = 'closed';
  let consecutiveFailures = 0;
  let opensUntil = 0;
  let probeInFlight = false;

  const open = () => {
    state = 'open';
    opensUntil = clock.now().getTime() + options.openMs;
    probeInFlight = false;
  };

  return {
    admit() {
      if (state === 'open') {
        if (clock.now().getTime() < opensUntil) return { allowed: false, retryAt: new Date(opensUntil) };
        state = 'half_open';
      }
      if (state === 'half_open') {
        if (probeInFlight) return { allowed: false, retryAt: new Date(clock.now().getTime() + options.openMs) };
        probeInFlight = true;
        return { allowed: true, probe: true };
      }
      return { allowed: true, probe: false };
    },
    succeeded() {
      state = 'closed';
      consecutiveFailures = 0;
      probeInFlight = false;
    },
    failed() {
      consecutiveFailures += 1;
      if (state === 'half_open' || consecutiveFailures >= options.failureThreshold) open();
    },
    snapshot() {
      // An open breaker whose time is up is half-open for whoever asks next.
      const shown = state === 'open' && clock.now().getTime() >= opensUntil ? 'half_open' : state;
      return {
        environment,
        service,
        state: shown,
        consecutiveFailures,
        opensUntil: state === 'open' ? new Date(opensUntil) : null,
      };
    },
  };
}

/** One breaker per service, created on first use. */
export function createBreakerRegistry(
  environment: string,
  clock: Clock,
  options: BreakerOptions,
): { forService(service: string): CircuitBreaker; snapshots(): BreakerSnapshot[] } {
  const breakers = new Map<string, CircuitBreaker>();
  return {
    forService(service) {
      let breaker = breakers.get(service);
      if (breaker === undefined) {
        breaker = createCircuitBreaker(environment, service, clock, options);
        breakers.set(service, breaker);
      }
      return breaker;
    },
    snapshots: () =>
      [...breakers.values()].map((breaker) => breaker.snapshot()).sort((a, b) => a.service.localeCompare(b.service)),
  };
}
