// The Fastify app with everything routes rely on: correlation ids, the envelope's error twin
// (problem+json), 404/405/413/415 mapping, auth by route declaration, metrics and OpenAPI.
import { randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AnySchema } from 'ajv';
import Fastify, { LogController, type FastifyError, type FastifySchemaCompiler, type FastifyReply, type FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Config } from '../../config.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ApiKeyAuthenticator, Principal, RouteAuth } from './auth.js';
import { ListMetaSchema, MetaSchema } from './envelope.js';
import { problem, problemBody, ProblemError, type Failure, type FieldError } from './problems.js';
import type { App, CatalogueEntry } from './route.js';
import { FieldErrorSchema, ProblemSchema } from './schemas.js';
import { verifySignedMessage } from './signed-message.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | undefined;
    /** The raw JSON body, kept for signature checks. */
    rawBody: string | undefined;
    /** The verified `webhook-id` of a signed control-plane request. */
    signedMessageId: string | undefined;
  }
}

export const maxBodyBytes = 5 * 1024 * 1024;
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

function sendProblem(request: FastifyRequest, reply: FastifyReply, failure: Failure, status: number) {
  for (const [name, value] of Object.entries(failure.headers ?? {})) void reply.header(name, value);
  // `instance` names the resource, not the query string (which may carry cursors or other caller data).
  const path = request.url.split('?')[0] ?? '/';
  return reply.code(status).type('application/problem+json').send(problemBody(failure, path, request.id));
}

const validationLocation = { body: 'body', querystring: 'query', params: 'params', headers: 'headers' } as const;

function fieldErrors(error: FastifyError): FieldError[] {
  const where = validationLocation[(error.validationContext ?? 'body')];
  return (error.validation ?? []).map((issue) => {
    const params = issue.params;
    // A discriminator error sits on the object; the field at fault is its tag (e.g. an unknown event `type`).
    const child = params.missingProperty ?? params.additionalProperty ?? (issue.keyword === 'discriminator' ? params.tag : undefined);
    const pointer = typeof child === 'string' ? `${issue.instancePath}/${child}` : issue.instancePath;
    const detail =
      issue.keyword === 'additionalProperties'
        ? `unknown property "${String(child)}"`
        : issue.keyword === 'required'
          ? `"${String(child)}" is required`
          : issue.keyword === 'discriminator' && typeof params.tagValue === 'string'
            ? `unknown value "${params.tagValue}"`
            : (issue.message ?? 'is not valid');
    return { pointer: pointer === '' ? '/' : pointer, in: where, code: issue.keyword, detail };
  });
}

/** Maps anything thrown in a request to a problem; only a true bug becomes a 500. */
function toFailure(error: FastifyError | ProblemError): { failure: Failure; status: number } {
  if (error instanceof ProblemError) return { failure: error.failure, status: problemStatus(error.failure) };
  if (error.validation !== undefined) {
    const errors = fieldErrors(error);
    const first = errors[0];
    const detail = first === undefined ? 'The request is not valid.' : `${first.in} ${first.pointer}: ${first.detail}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
    return { failure: { code: 'validation_failed', detail, errors }, status: 400 };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { failure: { code: 'payload_too_large', detail: `The body exceeds ${maxBodyBytes} bytes.` }, status: 413 };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { failure: { code: 'unsupported_media_type', detail: 'Send application/json.' }, status: 415 };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { failure: { code: 'malformed_body', detail: 'The body is empty but Content-Type says JSON.' }, status: 400 };
    default:
      break;
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return { failure: { code: 'malformed_body', detail: error.message }, status: 400 };
  }
  return { failure: { code: 'internal_error', detail: 'An unexpected error occurred. Quote the correlation id when reporting it.' }, status: 500 };
}

function problemStatus(failure: Failure): number {
  return problemBody(failure, '', '').status;
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
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

  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-correlation-id', request.id);
    const auth = request.routeOptions.config.auth;
    if (auth === undefined) return;
    switch (auth.kind) {
      case 'public':
      case 'cloud':
        return;
      case 'ops': {
        // With no token configured the operations routes do not exist (SPEC §5).
        if (config.opsToken === undefined) throw problem('route_not_found', `No route ${request.method} ${request.url}.`);
        const header = request.headers.authorization ?? '';
        const token = header.startsWith('Bearer ') ? header.slice(7) : '';
        if (!sameSecret(token, config.opsToken)) throw problem('ops_token_invalid', 'Send Authorization: Bearer <OPS_TOKEN>.');
        return;
      }
      case 'apiKey': {
        const raw = request.headers['x-api-key'];
        if (typeof raw !== 'string' || raw === '') throw problem('api_key_missing', 'Send your API key in the x-api-key header.');
        const result = await authenticator.authenticate(raw);
        if (!result.ok) throw new ProblemError(result.failure);
        const principal = result.value;
        if (auth.scope !== 'any' && !principal.effectiveScopes.has(auth.scope)) {
          throw problem('scope_missing', `This route requires the scope ${auth.scope}.`);
        }
        if (principal.companyPermissions !== 'current') {
          throw problem('company_suspended', 'The company has no current permissions; contact your provider.');
        }
        request.principal = principal;
        return;
      }
    }
  });

  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.auth?.kind !== 'cloud') return;
    if (config.cloudSigningSecret === undefined) throw problem('route_not_found', `No route ${request.method} ${request.url}.`);
    const verified = verifySignedMessage({
      secret: config.cloudSigningSecret,
      headers: request.headers,
      body: request.rawBody ?? '',
      now: options.clock.now(),
    });
    if (!verified.ok) throw new ProblemError(verified.failure);
    request.signedMessageId = verified.value;
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

  if (config.openApiEnabled) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'ecf-service',
          version: options.version,
          description: 'Electronic fiscal documents (DGII e-CF) for the Dominican Republic: issue, receive, archive.',
        },
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
            opsToken: { type: 'http', scheme: 'bearer', description: 'OPS_TOKEN' },
            cloudSignature: { type: 'apiKey', in: 'header', name: 'webhook-signature', description: 'HMAC-SHA256 over `webhook-id.webhook-timestamp.body` with CLOUD_SIGNING_SECRET.' },
          },
        },
      },
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
    app.get('/docs-json', { schema: { hide: true } }, () => app.swagger());
  }

  return { app, catalogue };
}
