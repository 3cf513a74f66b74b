// The client: openapi-fetch's typed calls over the contract's paths, with the API key on every request and an
// Idempotency-Key on every creation that takes one.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { idempotentRoutes } from './idempotent-routes.js';
import type { paths } from './schema.js';

/**
 * What the client's `data` and `error` are typed from: the JSON the service answers by default and its problems.
 * The PDF, XML and archived artefacts are read with `parseAs: 'text' | 'arrayBuffer' | 'blob'`.
 */
export type JsonMedia = 'application/json' | 'application/problem+json';

export type EcfClient = Client<paths, JsonMedia>;

export interface EcfClientOptions {
  /** Where the service answers, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** The company's API key, sent as `x-api-key`. */
  apiKey: string;
  /** A fetch of your own (tests, proxies, retries); the global fetch otherwise. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A creation the contract lets be replayed gets a random Idempotency-Key unless the call gave one: a retry after a
 * lost answer must send the same key (`params: { header: { 'idempotency-key': key } }`) to get the same document.
 */
const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (!idempotentRoutes.has(`${request.method} ${schemaPath}`) || request.headers.has('idempotency-key')) return;
    request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    return request;
  },
};

export function createEcfClient(options: EcfClientOptions): EcfClient {
  const client = createClient<paths, JsonMedia>({
    baseUrl: options.baseUrl,
    headers: { 'x-api-key': options.apiKey },
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  client.use(idempotencyKeys);
  return client;
}
