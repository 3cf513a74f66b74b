import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  jobsProcessed: Counter<'job' | 'outcome'>;
}

/** One registry per app instance, so several apps in one process (tests) never share counters. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequestDuration: new Histogram({
      name: 'ecf_http_request_duration_seconds',
      help: 'HTTP request duration by route template and status code',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    jobsProcessed: new Counter({
      name: 'ecf_jobs_processed_total',
      help: 'Background jobs processed, by job name and outcome',
      labelNames: ['job', 'outcome'],
      registers: [registry],
    }),
  };
}
