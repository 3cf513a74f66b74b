import { Type } from 'typebox';
import type { Metrics } from '../../platform/observability/metrics.js';
import { defineRoute } from '../../platform/http/route.js';
import { checkReadiness, type Probe } from './readiness.js';

const CheckState = Type.Object({
  status: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  error: Type.Optional(Type.String()),
});
const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  checks: Type.Object({ database: CheckState, queue: CheckState, cache: CheckState, storage: CheckState }),
});

export function opsRoutes(deps: {
  probes: Record<'database' | 'queue' | 'cache' | 'storage', Probe>;
  metrics: Metrics;
}) {
  return [
    defineRoute({
      method: 'GET',
      url: '/health',
      auth: { kind: 'public' },
      docs: { operationId: 'health', summary: 'Process liveness', tags: ['Operations'] },
      schema: { response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
      handler: () => ({ status: 'ok' as const }),
    }),
    defineRoute({
      method: 'GET',
      url: '/ready',
      auth: { kind: 'public' },
      docs: {
        operationId: 'ready',
        summary: 'Readiness of the database, the queue, the cache and the object storage',
        description: 'Each dependency is probed for real, with a short timeout. DGII is not checked.',
        tags: ['Operations'],
      },
      schema: { response: { 200: Readiness, 503: Readiness } },
      handler: async (request, reply) => {
        const readiness = await checkReadiness(deps.probes, request.log);
        return reply.code(readiness.status === 'ready' ? 200 : 503).send(readiness);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/metrics',
      auth: { kind: 'ops' },
      docs: { operationId: 'metrics', summary: 'Prometheus metrics', tags: ['Operations'] },
      // Documented under its real media type; a bare schema would be listed as application/json.
      schema: {
        response: {
          200: {
            description: 'Prometheus text exposition format',
            content: { 'text/plain': { schema: Type.String() } },
          },
        },
      },
      handler: async (_request, reply) => {
        const text = await deps.metrics.registry.metrics();
        return reply.type(deps.metrics.registry.contentType).send(text);
      },
    }),
  ];
}
