// The OpenAPI 3.1 contract at /docs-json (named components, see refResolver) and its UI at /docs. The contract is
// finished here, in one place, once swagger has read the routes: each route's examples go onto its media types, and
// the modules' contract-only schemas (shown, never compiled for validation) replace or join the components.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { buildApiReference, schemaRoutePrefix, type ApiReference } from './api-reference.js';
import { problem } from './problems.js';
import type { App, RouteExamples } from './route.js';

/** Component schemas by name, built when the contract is first asked for (never at start). */
export type ContractSchemas = () => Record<string, object>;

interface MediaType {
  example?: unknown;
}
interface Operation {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
  'x-route-examples'?: RouteExamples;
}
interface OpenApiObject {
  paths?: Record<string, Record<string, Operation>>;
}

export async function registerOpenApi(app: App, version: string, contractSchemas: ContractSchemas[]): Promise<void> {
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
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const openapi = documentObject.openapiObject;
      placeExamples(openapi as OpenApiObject);
      const components = (openapi.components ??= {});
      components.schemas = { ...components.schemas };
      for (const build of contractSchemas) Object.assign(components.schemas, build());
      return openapi;
    },
  });
  // The UI reads /docs/json: the reference's own document (api-reference.ts), built once when first asked for.
  let reference: ApiReference | undefined;
  const apiReference = () =>
    (reference ??= buildApiReference(app.swagger() as Parameters<typeof buildApiReference>[0]));
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    transformSpecificationClone: false,
    transformSpecification: () => apiReference().document as Record<string, unknown>,
    // The models section would draw every schema at load; each operation shows the schemas it uses.
    uiConfig: { defaultModelsExpandDepth: -1 },
  });
  app.get('/docs-json', { schema: { hide: true } }, () => app.swagger());
  app.get<{ Params: { name: string } }>(`${schemaRoutePrefix}:name`, { schema: { hide: true } }, (request) => {
    const schema = apiReference().schemas.get(request.params.name);
    if (schema === undefined) throw problem('route_not_found', `No schema ${request.params.name} served apart.`);
    return schema;
  });
}

/** Moves each route's examples (route.ts RouteDocs.examples) onto its request body and its success response. */
function placeExamples(openapi: OpenApiObject): void {
  for (const item of Object.values(openapi.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const examples = operation['x-route-examples'];
      if (examples === undefined) continue;
      delete operation['x-route-examples'];
      if (examples.request !== undefined) {
        for (const media of Object.values(operation.requestBody?.content ?? {})) media.example = examples.request;
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!status.startsWith('2')) continue;
        for (const [mediaType, media] of Object.entries(response.content ?? {})) {
          const example = examples.response?.[mediaType];
          if (example !== undefined) media.example = example;
        }
      }
    }
  }
}
