// The DGII client: one client for every DGII web service the flows use, with typed outcomes, a token cache,
// circuit breakers and explicit timeouts. Infrastructure like platform/: it takes what it needs (credentials,
// clock, cache, log) as arguments and imports no module.
export { configuredDgiiClient } from './configured-client.js';
export {
  createDgiiClient,
  type DgiiClient,
  type DgiiClientOptions,
  type DgiiService,
  type XmlFile,
} from './dgii-client.js';
export type { DgiiCredentials, SessionToken, TokenResult, TokenSealing } from './session-tokens.js';
export { createCircuitBreaker, type BreakerOptions, type CircuitBreaker } from './circuit-breaker.js';
export { parseDgiiMessages } from './messages.js';
export {
  createHttpTransport,
  type HttpRequest,
  type HttpResult,
  type HttpTransport,
  type TransportOptions,
} from './transport.js';
export {
  createReceiverClient,
  maxReceiverAnswerBytes,
  receiverEndpoint,
  receiverPaths,
  type ReceiverAnswer,
  type ReceiverClient,
  type ReceiverPost,
} from './receiver-client.js';
export type * from './outcomes.js';
export { dgiiOutOfReach } from './outcomes.js';
