// What every part of the sandbox is given: its state, time, log, DGII's schemas, the counterpart's identity and
// the way out to other hosts (the counterpart calls receivers).
import type {
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Logger } from 'pino';
import type { SchemaSet } from '../../fiscal/xsd/index.js';
import type { SigningKey } from '../../fiscal/xmldsig/index.js';
import type { Clock } from '../../platform/clock.js';
import type { SandboxDb } from '../state/schema.js';

/** The counterpart taxpayer (DGII's `emisorreceptor` simulator): a registered electronic taxpayer with its own key. */
export interface CounterpartIdentity {
  rnc: string;
  name: string;
  key: SigningKey;
  certificateSha256: string;
}

export interface SandboxContext {
  db: SandboxDb;
  clock: Clock;
  log: Logger;
  /** DGII's official schemas; without them the sandbox checks documents against our model only (and says so). */
  schemas: SchemaSet | undefined;
  counterpart: CounterpartIdentity;
  /** Outbound HTTP (the counterpart sending to receivers); tests may replace it. */
  fetch: typeof fetch;
  /** [0, 1): for faults with a probability; tests may fix it. */
  random: () => number;
}

/** The sandbox's Fastify instance, logging with the service's pino logger. */
export type SandboxApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  Logger
>;
