import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import { currentCorrelationId } from './correlation.js';
import type PinoPretty from 'pino-pretty';
import type { Config, LogLevel } from '../../config.js';

export type { Logger } from 'pino';

// Secrets never reach the log: API keys, bearer tokens, certificate files and their passwords, master keys.
const secretFields = [
  'password',
  'apiKey',
  'token',
  'secret',
  'p12',
  'p12Base64',
  'privateKey',
  'privateKeyPem',
  'masterKey',
  'authorization',
];
export const redactedPaths = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["webhook-signature"]',
  ...secretFields.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
];

export type LogLines = 'pretty' | 'json';

/** LOG_FORMAT `auto`: a person reads a terminal in development; anything else (a file, a collector) gets JSON. */
export function logLines(
  config: Pick<Config, 'logFormat' | 'nodeEnv'>,
  terminal: boolean = process.stdout.isTTY, // undefined when not a terminal, whatever the type says
): LogLines {
  if (config.logFormat !== 'auto') return config.logFormat;
  return terminal && config.nodeEnv === 'development' ? 'pretty' : 'json';
}

/**
 * The correlation id of the request or work under way (correlation.ts), on every line logged within it, whatever
 * logger wrote it: the DGII client's, a module's, the work engine's. A request's own logger carries it bound already
 * (Fastify's), and the line is not given it twice.
 */
function withCorrelationId(_line: object, _level: number, logger: Logger): object {
  const id = currentCorrelationId();
  if (id === undefined) return {};
  const bound = (logger as unknown as Record<symbol, string | undefined>)[pino.symbols.chindingsSym];
  return bound?.includes('"correlationId":') === true ? {} : { correlationId: id };
}

export function createLogger(level: LogLevel, destination?: DestinationStream, lines: LogLines = 'json'): Logger {
  const options = {
    level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    base: { service: 'ecf-service' },
    mixin: withCorrelationId,
  };
  if (lines === 'pretty') return pino(options, prettyStream(destination));
  return destination === undefined ? pino(options) : pino(options, destination);
}

/** pino-pretty as a stream on this thread (not a transport, which would start a worker thread), after redaction:
 * `time LEVEL: message {fields}` on one line, colours only on a terminal that supports them. */
function prettyStream(destination: DestinationStream | undefined): DestinationStream {
  // Loaded only when asked for: a production start does not pay for it (about 100 ms and 10 MB, measured).
  const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return pinoPretty({
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    singleLine: true,
    ...(destination === undefined ? {} : { destination, colorize: false }),
  });
}
