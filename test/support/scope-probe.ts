// A second HTTP server, built by the platform's own factory and guarded by a running app's real API-key
// authenticator, with one probe route per scope. The service's /api/v1 routes may all be `scope: 'any'`; the
// probes show that a declared scope, and the scopes derived from it, are enforced by the same guard.
import { systemClock } from '../../src/platform/clock.js';
import { Type } from 'typebox';
import { createLogger } from '../../src/platform/observability/logger.js';
import { createMetrics } from '../../src/platform/observability/metrics.js';
import { registerRoutes, defineRoute, type App, type AppRoute } from '../../src/platform/http/route.js';
import { createHttpServer } from '../../src/platform/http/server.js';
import { scopes, type Scope } from '../../src/platform/http/scopes.js';
import type { TestApp } from './test-app.js';

export function scopeProbeUrl(scope: Scope): string {
  return `/api/v1/scope-probe/${scope.replace(':', '-')}`;
}

export async function startScopeProbe(source: TestApp): Promise<App> {
  const server = await createHttpServer({
    config: { ...source.config, openApiEnabled: false },
    log: createLogger('silent'),
    metrics: createMetrics(),
    authenticator: source.application.services.apiKeys.authenticator,
    clock: systemClock,
    version: 'probe',
  });
  const routes = scopes.map((scope) =>
    defineRoute({
      method: 'GET',
      url: scopeProbeUrl(scope),
      auth: { kind: 'apiKey', scope },
      docs: { operationId: `probe-${scope}`, summary: `Requires ${scope}`, tags: ['Probe'] },
      schema: { response: { 200: Type.Object({ scope: Type.String() }) } },
      handler: () => ({ scope }),
    }),
  ) as AppRoute[];
  registerRoutes(server.app, routes, server.catalogue);
  await server.app.ready();
  return server.app;
}
