import { Type } from 'typebox';
import type { Metrics } from '../../platform/observability/metrics.js';
import { defineRoute } from '../../platform/http/route.js';
import { checkReadiness, type Probe } from './readiness.js';

const readinessExample = {
  status: 'ready',
  checks: { database: { status: 'up' }, queue: { status: 'up' }, cache: { status: 'up' }, storage: { status: 'up' } },
};
const metricsExample =
  '# HELP http_request_duration_seconds HTTP request duration in seconds.\n# TYPE http_request_duration_seconds histogram\n' +
  'http_request_duration_seconds_bucket{le="0.05",method="POST",route="/api/v1/documentos",status="201"} 42\n';

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
      docs: {
        operationId: 'health',
        summary: 'Process liveness',
        tags: ['Operations'],
        examples: { response: { 'application/json': { status: 'ok' } } },
      },
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
        examples: { response: { 'application/json': readinessExample } },
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
      docs: {
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        tags: ['Operations'],
        examples: { response: { 'text/plain': metricsExample } },
      },
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
