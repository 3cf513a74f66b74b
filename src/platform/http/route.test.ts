import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../config.js';
import { systemClock } from '../clock.js';
import { createLogger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { fail } from '../result.js';
import type { RouteAuth } from './auth.js';
import { defineRoute, registerRoutes } from './route.js';
import { createHttpServer } from './server.js';

async function bareServer() {
  return createHttpServer({
    config: parseConfig({ NODE_ENV: 'test', OPENAPI_ENABLED: 'false' }),
    log: createLogger('silent'),
    metrics: createMetrics(),
    authenticator: { authenticate: () => Promise.resolve(fail('api_key_unknown', 'no keys here')) },
    clock: systemClock,
    version: 'test',
  });
}

function routeAt(url: string, auth: RouteAuth) {
  return defineRoute({
    method: 'GET',
    url,
    auth,
    docs: { operationId: 'x', summary: 'x', tags: [] },
    handler: () => 'ok',
  });
}

describe('route registration', () => {
  const refused: [string, RouteAuth, string][] = [
    ['/api/v1/anything', { kind: 'public' }, 'apiKey'],
    ['/api/v1/anything', { kind: 'ops' }, 'apiKey'],
    ['/internal/health/dgii', { kind: 'public' }, 'ops'],
    ['/internal/cloud/v1/things', { kind: 'ops' }, 'cloud'],
    ['/metrics', { kind: 'public' }, 'ops'],
  ];
  for (const [url, auth, required] of refused) {
    it(`refuses ${url} guarded by ${auth.kind}: SPEC §5 requires ${required}`, async () => {
      const { app, catalogue } = await bareServer();
      assert.throws(
        () => {
          registerRoutes(app, [routeAt(url, auth)], catalogue);
        },
        new RegExp(`must be guarded by ${required}`),
      );
      assert.equal(catalogue.length, 0);
      await app.close();
    });
  }

  it('registers a Spanish route and its English alias from one definition', async () => {
    const { app, catalogue } = await bareServer();
    registerRoutes(
      app,
      [{ ...routeAt('/api/v1/empresa', { kind: 'apiKey', scope: 'any' }), alias: '/api/v1/company' }],
      catalogue,
    );
    await app.ready();
    assert.deepEqual(
      catalogue.map((entry) => [entry.method, entry.url, entry.alias]),
      [
        ['GET', '/api/v1/empresa', false],
        ['GET', '/api/v1/company', true],
      ],
    );
    const response = await app.inject({ method: 'GET', url: '/api/v1/company' });
    assert.equal(response.statusCode, 401);
    await app.close();
  });
});
