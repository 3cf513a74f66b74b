// The Fastify app with everything routes rely on: correlation ids, the envelope's error twin
// (problem+json), 404/405/413/415 mapping, auth by route declaration, metrics and OpenAPI.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyError } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Config } from '../../config.js';
import type { Clock } from '../clock.js';
import { withCorrelationId } from '../observability/correlation.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ApiKeyAuthenticator, Principal, RouteAuth } from './auth.js';
import { ListMetaSchema, MetaSchema } from './envelope.js';
import {
  clientErrorFailure,
  frameworkFailure,
  maxBodyBytes,
  rawProblemResponse,
  sendExpectationFailed,
  sendProblem,
  toFailure,
} from './error-mapping.js';
import { correlationIdOf, correlationIdRefusal } from './correlation-id.js';
import { checkHeaders, checkSignedMessage } from './guards.js';
import { jsonFieldError, maxJsonValues, scanJsonText, textFieldError } from './input-screen.js';
import { normaliseReceiverUrl } from './receiver-path.js';
import { buildRequestValidators } from './request-validators.js';
import { buildResponseSerializers } from './response-serializers.js';
import { registerOpenApi, type ContractSchemas } from './openapi.js';
import type { FieldError } from '../result.js';
import { ProblemError } from './problems.js';
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

const methods: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface HttpServerOptions {
  config: Config;
  log: Logger;
  metrics: Metrics;
  authenticator: ApiKeyAuthenticator;
  clock: Clock;
  version: string;
  /** The modules' contract-only component schemas (ModuleParts.contractSchemas). */
  contractSchemas?: ContractSchemas[];
}

export interface HttpServer {
  app: App;
  catalogue: CatalogueEntry[];
}

export async function createHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { config, log, metrics, authenticator } = options;
  const app: App = Fastify({
    // A request without Host is answered here (the onRequest hook), as problem+json, not by Node with a bare 400.
    http: { requireHostHeader: false },
    loggerInstance: log,
    bodyLimit: maxBodyBytes,
    genReqId: (request) => correlationIdOf(request),
    logController: new LogController({
      requestIdLogLabel: 'correlationId',
      disableRequestLogging: (request) => request.url === '/health' || request.url === '/ready',
    }),
    schemaController: {
      compilersFactory: {
        buildSerializer: buildResponseSerializers,
        buildValidator: buildRequestValidators,
      },
    },
    routerOptions: { ignoreTrailingSlash: true },
    // DGII's receiver routes are case-insensitive (receiver-path.ts).
    rewriteUrl: (request) => normaliseReceiverUrl(request.url ?? '/'),
    // What the router refuses before any route runs (a path that is not percent-encoded UTF-8, a segment longer
    // than maxParamLength) is a problem like any other, not Fastify's own JSON.
    frameworkErrors: (error, request, reply) => {
      const { failure, status } = frameworkFailure(error);
      void sendProblem(request, reply, failure, status);
    },
    // What Node's HTTP parser refuses (headers too large, broken framing, an unknown method, a NUL in a header)
    // never reaches Fastify: answered here on the raw socket, which is then closed.
    // As Node's own handler does: no answer over one already being written (a request refused while its body was
    // still arriving, then broken framing after it), and the socket destroyed once the answer is written.
    clientErrorHandler: (error: Error & { code?: string }, socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      log.debug({ err: error }, 'client error');
      const inFlight =
        (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
      if (socket.writable && !inFlight) {
        const { failure, status } = clientErrorFailure(error.code);
        socket.write(rawProblemResponse(failure, status, randomUUID()));
      }
      socket.destroy();
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Node keeps the first 1,000 headers of a request and silently drops the rest (Host and Content-Type among them,
  // when a client writes its own headers first: a bare 400, or a body read as something else). No count limit: the
  // head is bounded by its size, 16 KB, past which the request is a 431 problem (clientErrorHandler).
  app.server.maxHeadersCount = 0;
  // Node answers an Expect other than 100-continue with a bare 417; with a listener, the answer is ours.
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    sendExpectationFailed(request, response, correlationIdOf(request));
  });
  // CONNECT (a proxy's tunnel) never reaches the router: without a listener Node drops the connection unanswered.
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    socket.end(
      rawProblemResponse(
        { code: 'method_not_allowed', detail: 'CONNECT is not served here.' },
        405,
        correlationIdOf(request),
      ),
    );
  });

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
    const scan = scanJsonText(text);
    if (scan.tooManyValues) {
      const detail = `The body holds more than ${String(maxJsonValues)} JSON values.`;
      done(
        new ProblemError({
          code: 'payload_too_large',
          detail,
          errors: [{ pointer: '/', in: 'body', code: 'too_many_values', detail }],
        }),
        undefined,
      );
      return;
    }
    void parseJson(request, text, (error, value) => {
      const refused = error === null && (scan.mayHoldNul || scan.tooDeep) ? jsonFieldError(value) : undefined;
      if (refused === undefined) done(error, value);
      else done(refusal(refused.code === 'too_deep' ? 'malformed_body' : 'validation_failed', refused), undefined);
    });
  });

  // Raw XML only where a route asks for it (signed documents handed in as they are); elsewhere it stays a 415.
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'buffer' }, (request, body, done) => {
    if (request.is404) {
      done(null, undefined);
      return;
    }
    if (request.routeOptions.config.xmlBody !== true) {
      done(
        Object.assign(new Error('Unsupported Media Type'), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }),
        undefined,
      );
      return;
    }
    done(null, body);
  });

  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-correlation-id', request.id);
    // Before auth: whatever the route, an id that cannot be carried is the caller's to fix first.
    const refused = correlationIdRefusal(request.headers) ?? hostRefusal(request.raw);
    if (refused !== undefined) throw refused;
    const auth = request.routeOptions.config.auth;
    if (auth !== undefined) await checkHeaders(request, auth, { config, authenticator });
  });

  // The handler, and all it sets off and awaits, runs under the request's correlation id (observability/
  // correlation.ts): what it logs, records and queues carries it. Not at onRequest: a body is read in the
  // connection's own context, which would lose it.
  app.addHook('preValidation', (request, _reply, done) => {
    withCorrelationId(request.id, done);
  });

  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.auth?.kind === 'cloud')
      checkSignedMessage(request, { config, clock: options.clock });
    // No route, nothing to refuse: the answer is 404/405 whatever the path holds.
    const refused = request.is404
      ? undefined
      : (textFieldError('params', request.params) ?? textFieldError('query', request.query));
    if (refused !== undefined) throw refusal('validation_failed', refused);
    await Promise.resolve();
  });

  // An answer sent before the body was read (a refusal from a multipart reader that stopped at a limit) leaves the
  // rest of the body on the socket, and Node does not discard a body a reader had started on: the next request on
  // the connection would never be answered. What is left is read and dropped, up to the route's body limit (past it,
  // the connection is closed, and after drainMs too), so the connection serves the next request. Closing at once
  // would reset the connection while the client is still sending, and the client could lose the answer itself.
  // (light-my-request leaves `complete` unset; draining its finished stream does nothing.)
  app.addHook('onSend', async (request) => {
    if (!request.raw.complete) drainUnreadBody(request.raw, request.routeOptions.bodyLimit);
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
    // A 500 is a bug of ours; a 503 or 507 is a dependency away or full, expected now and then (issue 43).
    if (status === 500) request.log.error({ err: error }, 'request failed');
    else if (status > 500) request.log.warn({ err: error }, 'request failed: a dependency is unavailable');
    return sendProblem(request, reply, failure, status);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const found = methods.filter((method) => knownRoutes.find(method, path) !== null);
    // Fastify answers HEAD wherever it answers GET.
    const allowed = found.includes('GET') ? [...found, 'HEAD'] : found;
    if (allowed.length > 0) {
      return sendProblem(
        request,
        reply,
        {
          code: 'method_not_allowed',
          detail: `${request.method} is not allowed here; use ${allowed.join(', ')}.`,
          headers: { allow: allowed.join(', ') },
        },
        405,
      );
    }
    return sendProblem(request, reply, { code: 'route_not_found', detail: `No route ${request.method} ${path}.` }, 404);
  });

  for (const schema of [MetaSchema, ListMetaSchema, FieldErrorSchema, ProblemSchema]) app.addSchema(schema);

  if (config.openApiEnabled) await registerOpenApi(app, options.version, options.contractSchemas ?? []);

  return { app, catalogue };
}

/** HTTP/1.1 requires Host (RFC 9112 §3.2); Node's own check answers a bare 400, so it is made here instead. */
function hostRefusal(request: IncomingMessage): ProblemError | undefined {
  if (request.headers.host !== undefined || request.httpVersion !== '1.1') return undefined;
  const detail = 'An HTTP/1.1 request must have a Host header.';
  return new ProblemError({
    code: 'malformed_request',
    detail,
    errors: [{ pointer: '/host', in: 'headers', code: 'required', detail }],
  });
}

/** A client still sending the rest of a refused body after this long loses the connection. */
const drainMs = 30_000;

function drainUnreadBody(body: IncomingMessage, limit: number): void {
  let dropped = 0;
  const giveUp = setTimeout(() => body.destroy(), drainMs);
  giveUp.unref();
  body.once('close', () => {
    clearTimeout(giveUp);
  });
  body.unpipe();
  body.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > limit) body.destroy();
  });
  body.resume();
}

function refusal(code: 'validation_failed' | 'malformed_body', error: FieldError): ProblemError {
  return new ProblemError({ code, detail: `${error.in} ${error.pointer}: ${error.detail}`, errors: [error] });
}

export { maxBodyBytes };
