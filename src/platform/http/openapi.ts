// The OpenAPI 3.1 contract at /docs-json (named components, see refResolver) and its UI at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from './route.js';

export async function registerOpenApi(app: App, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'ecf-service',
        version: version,
        description: 'Electronic fiscal documents (DGII e-CF) for the Dominican Republic: issue, receive, archive.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          opsToken: { type: 'http', scheme: 'bearer', description: 'OPS_TOKEN' },
          cloudSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'webhook-signature',
            description: 'HMAC-SHA256 over `webhook-id.webhook-timestamp.body` with CLOUD_SIGNING_SECRET.',
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/docs-json', { schema: { hide: true } }, () => app.swagger());
}
