// The Fastify app with everything routes rely on: correlation ids, the envelope's error twin
// (problem+json), 404/405/413/415 mapping, auth by route declaration, metrics and OpenAPI.
import { randomUUID } from 'node:crypto';
import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AnySchema } from 'ajv';
import Fastify, { LogController, type FastifyError, type FastifySchemaCompiler } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Config } from '../../config.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ApiKeyAuthenticator, Principal, RouteAuth } from './auth.js';
import { ListMetaSchema, MetaSchema } from './envelope.js';
import { maxBodyBytes, sendProblem, toFailure } from './error-mapping.js';
import { checkHeaders, checkSignedMessage } from './guards.js';
import { normaliseReceiverUrl } from './receiver-path.js';
import { registerOpenApi } from './openapi.js';
import type { ProblemError } from './problems.js';
import type { App, CatalogueEntry } from './route.js';
import { FieldErrorSchema, ProblemSchema } from './schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** The route takes raw XML bodies too (AppRoute.xmlBody). */
    xmlBody?: true;
  }
  interface FastifyRequest {
    principal: Principal | undefined;
    /** The raw JSON body, kept for signature checks. */
    rawBody: string | undefined;
    /** The verified `webhook-id` of a signed control-plane request. */
    signedMessageId: string | undefined;
  }
}

const ajvOptions = { allErrors: true, removeAdditional: false, useDefaults: true, discriminator: true } as const;
const buildAjvValidator = AjvCompiler();
// @fastify/ajv-compiler's declared types lag its runtime: its compilers take Fastify's route definition.
type RouteCompiler = FastifySchemaCompiler<AnySchema>;
const correlationIdPattern = /^[A-Za-z0-9._:@-]{1,128}$/;
const methods: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface HttpServerOptions {
  config: Config;
  log: Logger;
  metrics: Metrics;
  authenticator: ApiKeyAuthenticator;
  clock: Clock;
  version: string;
}

export interface HttpServer {
  app: App;
  catalogue: CatalogueEntry[];
}

export async function createHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { config, log, metrics, authenticator } = options;
  const app: App = Fastify({
    loggerInstance: log,
    bodyLimit: maxBodyBytes,
    genReqId: (request) => {
      const given = request.headers['x-correlation-id'];
      return typeof given === 'string' && correlationIdPattern.test(given) ? given : randomUUID();
    },
    logController: new LogController({ requestIdLogLabel: 'correlationId', disableRequestLogging: (request) => request.url === '/health' || request.url === '/ready' }),
    schemaController: {
      compilersFactory: {
        // Bodies are taken as sent: a number where the schema says string is an error, not quietly converted.
        // Query strings and path parameters arrive as text, so they alone are coerced.
        buildValidator: ((externalSchemas: Record<string, AnySchema>, serverOptions: object) => {
          const strict = buildAjvValidator(externalSchemas, { ...serverOptions, customOptions: { ...ajvOptions, coerceTypes: false } }) as unknown as RouteCompiler;
          const coercing = buildAjvValidator(externalSchemas, { ...serverOptions, customOptions: { ...ajvOptions, coerceTypes: 'array' } }) as unknown as RouteCompiler;
          return (route: Parameters<RouteCompiler>[0]) => (route.httpPart === 'body' ? strict(route) : coercing(route));
        }) as unknown as ValidatorFactory,
      },
    },
    routerOptions: { ignoreTrailingSlash: true },
    // DGII's receiver routes are case-insensitive (receiver-path.ts).
    rewriteUrl: (request) => normaliseReceiverUrl(request.url ?? '/'),
  }).withTypeProvider<TypeBoxTypeProvider>();

  const catalogue: CatalogueEntry[] = [];
  // Same trailing-slash rule as the app's router, so `DELETE /health/` is a 405 like `DELETE /health`.
  const knownRoutes = FindMyWay({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    const routeMethods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of routeMethods) {
      if (methods.includes(method as HTTPMethod)) knownRoutes.on(method as HTTPMethod, route.url, () => undefined);
    }
  });

  app.decorateRequest('principal', undefined);
  app.decorateRequest('rawBody', undefined);
  app.decorateRequest('signedMessageId', undefined);

  // Bodies are JSON (SPEC §4). Fastify's built-in text/plain parser would let a text body through to routes that
  // expect JSON (and past the signature check with no raw body); without it, text/plain is a 415 like any other type.
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // No route, no body to read: the answer is 404/405 whatever was sent.
    if (request.is404) {
      done(null, undefined);
      return;
    }
    const text = typeof body === 'string' ? body : body.toString('utf8');
    request.rawBody = text;
    void parseJson(request, text, done);
  });

  // Raw XML only where a route asks for it (signed documents handed in as they are); elsewhere it stays a 415.
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'buffer' }, (request, body, done) => {
    if (request.is404) {
      done(null, undefined);
      return;
    }
    if (request.routeOptions.config.xmlBody !== true) {
      done(Object.assign(new Error('Unsupported Media Type'), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }), undefined);
      return;
    }
    done(null, body);
  });

  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-correlation-id', request.id);
    const auth = request.routeOptions.config.auth;
    if (auth !== undefined) await checkHeaders(request, auth, { config, authenticator });
  });

  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.auth?.kind === 'cloud') checkSignedMessage(request, { config, clock: options.clock });
    await Promise.resolve();
  });

  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1_000,
    );
    await Promise.resolve();
  });

  app.setErrorHandler((error: FastifyError | ProblemError, request, reply) => {
    const { failure, status } = toFailure(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(request, reply, failure, status);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const found = methods.filter((method) => knownRoutes.find(method, path) !== null);
    // Fastify answers HEAD wherever it answers GET.
    const allowed = found.includes('GET') ? [...found, 'HEAD'] : found;
    if (allowed.length > 0) {
      return sendProblem(request, reply, { code: 'method_not_allowed', detail: `${request.method} is not allowed here; use ${allowed.join(', ')}.`, headers: { allow: allowed.join(', ') } }, 405);
    }
    return sendProblem(request, reply, { code: 'route_not_found', detail: `No route ${request.method} ${path}.` }, 404);
  });

  for (const schema of [MetaSchema, ListMetaSchema, FieldErrorSchema, ProblemSchema]) app.addSchema(schema);

  if (config.openApiEnabled) await registerOpenApi(app, options.version);

  return { app, catalogue };
}

export { maxBodyBytes };
