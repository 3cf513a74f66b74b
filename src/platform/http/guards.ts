// The guards each route declares (SPEC §5): API key with scope, ops token, signed control-plane message.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Clock } from '../clock.js';
import type { ApiKeyAuthenticator, RouteAuth } from './auth.js';
import { problem, ProblemError } from './problems.js';
import { verifySignedMessage } from './signed-message.js';

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function notFound(request: FastifyRequest): ProblemError {
  return problem('route_not_found', `No route ${request.method} ${request.url}.`);
}

/** Runs on every request before the body is read: headers alone decide 401/403 (and 404 for disabled routes). */
export async function checkHeaders(
  request: FastifyRequest,
  auth: RouteAuth,
  deps: { config: Config; authenticator: ApiKeyAuthenticator },
): Promise<void> {
  switch (auth.kind) {
    case 'public':
    case 'cloud':
      return;
    case 'ops': {
      // With no token configured the operations routes do not exist (SPEC §5).
      if (deps.config.opsToken === undefined) throw notFound(request);
      const header = request.headers.authorization ?? '';
      const token = header.startsWith('Bearer ') ? header.slice(7) : '';
      if (!sameSecret(token, deps.config.opsToken))
        throw problem('ops_token_invalid', 'Send Authorization: Bearer <OPS_TOKEN>.');
      return;
    }
    case 'apiKey': {
      const raw = request.headers['x-api-key'];
      if (typeof raw !== 'string' || raw === '')
        throw problem('api_key_missing', 'Send your API key in the x-api-key header.');
      const result = await deps.authenticator.authenticate(raw);
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
}

/** Runs after the body is read, for signed control-plane routes: the signature covers the raw body. */
export function checkSignedMessage(request: FastifyRequest, deps: { config: Config; clock: Clock }): void {
  if (deps.config.cloudSigningSecret === undefined) throw notFound(request);
  const verified = verifySignedMessage({
    secret: deps.config.cloudSigningSecret,
    headers: request.headers,
    body: request.rawBody ?? '',
    now: deps.clock.now(),
  });
  if (!verified.ok) throw new ProblemError(verified.failure);
  request.signedMessageId = verified.value;
}
