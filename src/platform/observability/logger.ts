import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../../config.js';

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

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: redactedPaths, censor: '[redacted]' }, base: { service: 'ecf-service' } };
  return destination === undefined ? pino(options) : pino(options, destination);
}
