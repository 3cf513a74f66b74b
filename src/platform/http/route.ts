// One definition per route. A Spanish public route with an English alias is registered twice from the same
// definition (SPEC §9.2); the alias is marked deprecated in OpenAPI.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyInstance,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteOptions,
} from 'fastify';
import type { Logger } from '../observability/logger.js';
import type { RouteAuth } from './auth.js';
import { ref } from './schema-ref.js';
import { ProblemSchema } from './schemas.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  Logger,
  TypeBoxTypeProvider
>;

export interface RouteDocs {
  operationId: string;
  summary: string;
  tags: string[];
  description?: string;
  /** Shown in OpenAPI (openapi.ts moves them onto the media types); test/openapi-examples.test.ts makes each work. */
  examples?: RouteExamples;
}

export interface RouteExamples {
  /** A body the route accepts as it stands: the test posts it and expects the success status. */
  request?: unknown;
  /** The success response's body by media type (`application/json` for the `{data, meta}` envelope). */
  response?: Record<string, unknown>;
}

export type AppRoute<S extends FastifySchema = FastifySchema> = Omit<
  RouteOptions<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    RouteGenericInterface,
    unknown,
    S,
    TypeBoxTypeProvider,
    Logger
  >,
  'config'
> & {
  /** The English-named alias kept for existing integrations. */
  alias?: string;
  auth: RouteAuth;
  docs: RouteDocs;
  /** The route also takes a raw XML body (application/xml, text/xml), handed to it as a Buffer. */
  xmlBody?: true;
};

/** Identity, so each route's handler is typed from its own schema. */
export function defineRoute<const S extends FastifySchema>(route: AppRoute<S>): AppRoute<S> {
  return route;
}

export interface CatalogueEntry {
  method: string;
  url: string;
  auth: RouteAuth;
  alias: boolean;
}

const problemContent = { 'application/problem+json': { schema: ref(ProblemSchema) } };
/** Every route can fail; OpenAPI shows how (RFC 9457 problem details). */
const problemResponses = {
  '4xx': { description: 'The request cannot be served; `code` says why.', content: problemContent },
  '5xx': { description: 'A dependency or the service failed; quote `correlationId`.', content: problemContent },
};

const statusDescriptions: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  503: 'Not ready',
};

/** Gives each declared response a description, so OpenAPI never says "Default Response". */
function described(responses: Record<string, object>): Record<string, object> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      'description' in response
        ? response
        : { ...response, description: statusDescriptions[status] ?? `HTTP ${status}` },
    ]),
  );
}

const securityByAuth = {
  public: [],
  apiKey: [{ apiKey: [] }],
  ops: [{ opsToken: [] }],
  cloud: [{ cloudSignature: [] }],
} as const;

function register(app: App, route: AppRoute, url: string, isAlias: boolean, catalogue: CatalogueEntry[]): void {
  const { alias: _alias, auth, docs, schema, xmlBody, ...rest } = route;
  const scopeNote =
    auth.kind === 'apiKey' ? `\n\nScope: \`${auth.scope === 'any' ? 'any valid key' : auth.scope}\`.` : '';
  app.route({
    ...rest,
    url,
    config: { auth, ...(xmlBody === true ? { xmlBody } : {}) },
    schema: {
      ...schema,
      operationId: isAlias ? `${docs.operationId}Alias` : docs.operationId,
      summary: docs.summary,
      description:
        `${docs.description ?? ''}${scopeNote}${isAlias ? `\n\nDeprecated English alias of \`${route.url}\`.` : ''}`.trim(),
      tags: docs.tags,
      security: [...securityByAuth[auth.kind]],
      ...(isAlias ? { deprecated: true } : {}),
      // openapi.ts moves them onto the media types (swagger copies `x-` keys to the operation as they are).
      ...(docs.examples === undefined ? {} : { 'x-route-examples': docs.examples }),
      response: { ...problemResponses, ...described((schema?.response ?? {}) as Record<string, object>) },
    },
  });
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  for (const method of methods) catalogue.push({ method, url, auth, alias: isAlias });
}

/** The route groups of SPEC §5, each with the one guard it must have; checked when a route is registered. */
function requiredAuthKind(url: string): RouteAuth['kind'] | undefined {
  if (url.startsWith('/api/v1/')) return 'apiKey';
  if (url.startsWith('/internal/cloud/v1/')) return 'cloud';
  if (url.startsWith('/internal/') || url === '/metrics') return 'ops';
  return undefined;
}

/** Registers each route, and its alias when it has one, and records them in the catalogue. */
export function registerRoutes(app: App, routes: readonly AppRoute[], catalogue: CatalogueEntry[]): void {
  for (const route of routes) {
    for (const url of [route.url, ...(route.alias === undefined ? [] : [route.alias])]) {
      const required = requiredAuthKind(url);
      if (required !== undefined && route.auth.kind !== required) {
        throw new Error(`Route ${url} must be guarded by ${required} auth (SPEC §5), not ${route.auth.kind}`);
      }
    }
    register(app, route, route.url, false, catalogue);
    if (route.alias !== undefined) register(app, route, route.alias, true, catalogue);
  }
}

/** The company of an API-key route's caller (the auth hook guarantees a principal on those routes). */
export function companyOf(principal: { companyId: string } | undefined): string {
  if (principal === undefined) throw new Error('apiKey route reached without a principal');
  return principal.companyId;
}
