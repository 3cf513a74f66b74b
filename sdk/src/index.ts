// @ecf-service/client: the generated types of the contract (schema.ts), openapi-fetch's typed calls over them, and
// a few helpers: problems as errors, cursor iteration, webhook verification.
export { createEcfClient, type EcfClient, type EcfClientOptions, type JsonMedia } from './client.js';
export { listAll } from './pages.js';
export { EcfProblem, ok, unexpectedResponse, type FieldError, type Problem, type ProblemCode } from './problem.js';
export type { components, operations, paths } from './schema.js';
export {
  verifyWebhook,
  webhookToleranceSeconds,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookHeaders,
  type WebhookVerificationFailure,
} from './webhooks.js';
