import type { ModuleParts } from '../module.js';
import type { AppRoute } from '../../platform/http/route.js';
import type { Metrics } from '../../platform/observability/metrics.js';
import { opsRoutes } from './ops.routes.js';
import type { Probe } from './readiness.js';

export function opsModule(deps: {
  probes: Record<'database' | 'queue' | 'cache' | 'storage', Probe>;
  metrics: Metrics;
}): ModuleParts {
  return { routes: opsRoutes(deps) as AppRoute[] };
}
