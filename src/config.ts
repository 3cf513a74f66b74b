// The only place that reads the environment. Parsed once into a frozen, typed object; a bad value fails fast
// with a message naming the variable.
import { resolve } from 'node:path';

import { fiscalEnvironments, type FiscalEnvironment } from './fiscal/environment.js';

export { fiscalEnvironments, type FiscalEnvironment };

/** required: a receiver token on the POST receiver routes; optional: a valid token or none; disabled: tokens ignored. */
export const receiverAuthModes = ['required', 'optional', 'disabled'] as const;
export type ReceiverAuthMode = (typeof receiverAuthModes)[number];

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

export interface S3Config {
  endpoint: string | undefined;
  bucket: string;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
  objectLockDays: number | undefined;
}

export interface Config {
  port: number;
  /** Niceness a process without the API role (`ecf worker`, `ecf scheduler`) takes, so an API on the same host is served first; 0 keeps the default. */
  backgroundNice: number;
  host: string;
  nodeEnv: 'development' | 'production' | 'test';
  fiscalEnv: FiscalEnvironment;
  dataDir: string;
  /** Absent: embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Connections per process to DATABASE_URL (DATABASE_POOL_SIZE); absent: the default of platform/db/database.ts. */
  databasePoolSize: number | undefined;
  /** Absent: in-memory cache. */
  redisUrl: string | undefined;
  storage: { kind: 'fs'; root: string } | { kind: 's3'; s3: S3Config };
  opsToken: string | undefined;
  openApiEnabled: boolean;
  /** 32 bytes. Absent outside production: generated and kept under dataDir. */
  masterKey: Buffer | undefined;
  cloudSigningSecret: string | undefined;
  receiverAuthMode: ReceiverAuthMode;
  /** The company the receiver's local test path (`/{env}/emisorreceptor/fe/...`) serves: an RNC or a company id; absent: the demo company when the sandbox is embedded, else none. */
  receiverLocalCompany: string | undefined;
  logLevel: LogLevel;
  /** Directory holding DGII's official XSDs; absent: the model alone validates. */
  xsdDir: string | undefined;
  /** Public base URL used in demo credentials and links; defaults to http://HOST:PORT. */
  publicBaseUrl: string | undefined;
  dgii: DgiiConfig;
  /** How the DGII client talks to DGII: timeouts, circuit breaker, the status service's API key. */
  dgiiClient: DgiiClientConfig;
  /**
   * Sending documents to DGII: attempts before `send_failed`, the first retry delay (doubled per attempt), and how
   * long one worker holds a document while it talks to DGII (a killed worker's documents wait this long).
   */
  /** `concurrency`: documents one worker sends to DGII at once, and verdicts one scheduler asks about at once. */
  sending: { maxAttempts: number; retryBaseMs: number; leaseMs: number; concurrency: number };
  /** Delivering commercial responses (ACECF) to the issuer and DGII: attempts before `exhausted`, first retry delay (doubled per attempt). */
  commercialResponses: { maxAttempts: number; retryBaseMs: number };
  /** Sending annulments (ANECF) to DGII: attempts before `failed`, first retry delay (doubled per attempt). */
  annulments: { maxAttempts: number; retryBaseMs: number };
  /** The job queue: how often expired jobs (a killed worker's) are failed and retried, and old jobs archived. */
  queue: { maintenanceIntervalSeconds: number };
  /** When ranges warn (events for webhooks): numbers left of a type, days before a range in use expires. */
  sequenceWarnings: { lowStock: number; expiringDays: number };
  /** Scheduled import of DGII's taxpayer listing: off unless a URL is set; cron in America/Santo_Domingo time. */
  taxpayersImport: { url: string | undefined; cron: string };
  webhooks: WebhooksConfig;
}

/** Outbound webhooks (SPEC §6.1, DESIGN §5.5). */
export interface WebhooksConfig {
  /** Deliver to loopback, private, link-local and metadata addresses. Default: only on the embedded single-machine
   * setup (no DATABASE_URL, not production), for local demos; never allowed with FISCAL_ENV=PRODUCTION. */
  allowPrivate: boolean;
  /** Success is a 2xx within this time (Standard Webhooks: 15 s). */
  timeoutMs: number;
  /** How long a rotated-out secret still signs deliveries beside the new one. */
  secretGraceMs: number;
  /** How often a worker fans out new events and claims deliveries due (sooner when its own fan-out makes some). */
  dispatchIntervalMs: number;
  /** How many deliveries one worker POSTs at once. */
  concurrency: number;
  /** An endpoint failing without a success for this long is disabled. */
  disableAfterMs: number;
  /** Settled deliveries (with their attempts) and fanned-out events are kept this long after they were made. */
  retentionMs: number;
}

/** Where DGII is. DGII serves from three hosts (research/dgii-protocol.md §1.1); the sandbox serves all three
 * under one base URL. */
export interface DgiiConfig {
  /** e-CF services (ecf.dgii.gov.do). */
  baseUrl: string;
  /** Consumer-invoice summaries under DOP 250,000 (fc.dgii.gov.do). */
  fcBaseUrl: string;
  /** Service status (statusecf.dgii.gov.do). */
  statusBaseUrl: string;
  /** `embedded`: `ecf start` runs the DGII sandbox beside the service and uses it as DGII (the default for TEST
   * when no DGII URL is given); `off`: the URLs above. */
  sandbox: 'embedded' | 'off';
  /** Port of the embedded sandbox; 0 picks a free one. */
  sandboxPort: number;
  /** The sandbox's /sandbox-admin routes: off unless set; when set, this token is required (Bearer). */
  sandboxAdminToken: string | undefined;
}

export interface DgiiClientConfig {
  connectTimeoutMs: number;
  /** From connection to the end of DGII's answer; a send that runs past it is uncertain (asked about before any resend). */
  responseTimeoutMs: number;
  /** Consecutive failures that open a service's circuit breaker, and how long it stays open before one probe. */
  breakerFailureThreshold: number;
  breakerOpenMs: number;
  /** statusecf.dgii.gov.do wants `Authorization: Apikey <key>`, which DGII hands out; unset: no status checks. */
  statusApiKey: string | undefined;
}

function dgiiClient(env: Env): DgiiClientConfig {
  return Object.freeze({
    connectTimeoutMs: integer(env, 'DGII_CONNECT_TIMEOUT_MS', 5_000, 100, 120_000) ?? 5_000,
    responseTimeoutMs: integer(env, 'DGII_RESPONSE_TIMEOUT_MS', 30_000, 100, 600_000) ?? 30_000,
    breakerFailureThreshold: integer(env, 'DGII_BREAKER_FAILURES', 5, 1, 1_000) ?? 5,
    breakerOpenMs: integer(env, 'DGII_BREAKER_OPEN_MS', 30_000, 100, 3_600_000) ?? 30_000,
    statusApiKey: text(env, 'DGII_STATUS_API_KEY'),
  });
}

export const realDgii = Object.freeze({ baseUrl: 'https://ecf.dgii.gov.do', fcBaseUrl: 'https://fc.dgii.gov.do', statusBaseUrl: 'https://statusecf.dgii.gov.do' });

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = text(env, name);
  if (value === undefined) return fallback;
  const match = allowed.find((candidate) => candidate === value);
  if (match === undefined) throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  return match;
}

function integer(env: Env, name: string, fallback: number | undefined, min: number, max: number): number | undefined {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ConfigError(name, `must be true or false (got "${value}")`);
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
  }
  return value;
}

/** MASTER_KEY is 32 bytes given as 64 hex characters or as base64. */
function masterKey(env: Env): Buffer | undefined {
  const value = text(env, 'MASTER_KEY');
  if (value === undefined) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (bytes.length !== 32) throw new ConfigError('MASTER_KEY', 'must be 32 bytes, as 64 hex characters or base64');
  return bytes;
}

function storage(env: Env, dataDir: string): Config['storage'] {
  const kind = oneOf(env, 'STORAGE', ['fs', 's3'], 'fs');
  // Frozen like the rest of the config: nothing may redirect storage after start.
  if (kind === 'fs') return Object.freeze({ kind, root: resolve(text(env, 'STORAGE_DIR') ?? resolve(dataDir, 'blobs')) });
  const bucket = text(env, 'S3_BUCKET');
  if (bucket === undefined) throw new ConfigError('S3_BUCKET', 'is required when STORAGE=s3');
  return Object.freeze({
    kind,
    s3: Object.freeze({
      endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
      bucket,
      region: text(env, 'S3_REGION') ?? 'us-east-1',
      accessKeyId: text(env, 'S3_ACCESS_KEY_ID'),
      secretAccessKey: text(env, 'S3_SECRET_ACCESS_KEY'),
      forcePathStyle: flag(env, 'S3_FORCE_PATH_STYLE', text(env, 'S3_ENDPOINT') !== undefined),
      objectLockDays: integer(env, 'S3_OBJECT_LOCK_DAYS', undefined, 1, 36_500),
    }),
  });
}

function dgii(env: Env, fiscalEnv: FiscalEnvironment): DgiiConfig {
  const baseUrl = url(env, 'DGII_BASE_URL', ['http:', 'https:']);
  const fcBaseUrl = url(env, 'DGII_FC_BASE_URL', ['http:', 'https:']);
  const statusBaseUrl = url(env, 'DGII_STATUS_BASE_URL', ['http:', 'https:']);
  const explicit = baseUrl !== undefined || fcBaseUrl !== undefined || statusBaseUrl !== undefined;
  // TEST and CERT start on the embedded sandbox (CERT with DGII's certification portal); PRODUCTION never does.
  const sandbox = oneOf(env, 'DGII_SANDBOX', ['embedded', 'off'], fiscalEnv !== 'PRODUCTION' && !explicit ? 'embedded' : 'off');
  if (sandbox === 'embedded' && fiscalEnv === 'PRODUCTION') throw new ConfigError('DGII_SANDBOX', 'cannot be embedded with FISCAL_ENV=PRODUCTION');
  const sandboxAdminToken = text(env, 'SANDBOX_ADMIN_TOKEN');
  if (sandboxAdminToken !== undefined && sandboxAdminToken.length < 16) throw new ConfigError('SANDBOX_ADMIN_TOKEN', 'must be at least 16 characters');
  return Object.freeze({
    baseUrl: (baseUrl ?? realDgii.baseUrl).replace(/\/+$/, ''),
    fcBaseUrl: (fcBaseUrl ?? realDgii.fcBaseUrl).replace(/\/+$/, ''),
    statusBaseUrl: (statusBaseUrl ?? realDgii.statusBaseUrl).replace(/\/+$/, ''),
    sandbox,
    sandboxPort: integer(env, 'SANDBOX_PORT', 0, 0, 65_535) ?? 0,
    sandboxAdminToken,
  });
}

/**
 * How long one worker holds a document it is sending. An attempt may make two DGII calls under one lease (ask about
 * the e-NCF, then send), each bounded by the client's connect + response timeouts; a lease that ran out mid-call
 * would let a second worker send the same bytes. So it must outlast both calls: the default is 90 s, or more when
 * the timeouts ask for it, and a shorter value is refused.
 */
function sendLeaseMs(env: Env, client: DgiiClientConfig): number {
  const callsMs = 2 * (client.connectTimeoutMs + client.responseTimeoutMs);
  const floorSeconds = Math.floor(callsMs / 1_000) + 1;
  const seconds = integer(env, 'SEND_LEASE_SECONDS', undefined, 1, 3_600);
  if (seconds === undefined) return Math.max(90, floorSeconds + 10) * 1_000;
  if (seconds < floorSeconds) {
    throw new ConfigError('SEND_LEASE_SECONDS', `must be at least ${String(floorSeconds)}: longer than two DGII calls at DGII_CONNECT_TIMEOUT_MS + DGII_RESPONSE_TIMEOUT_MS each (got "${String(seconds)}")`);
  }
  return seconds * 1_000;
}

/** Five cron fields of digits, `*`, `/`, `,` and `-`: enough to refuse a typo before pg-boss does at run time. */
function cron(env: Env, name: string, fallback: string): string {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!/^[\d*/,-]+( [\d*/,-]+){4}$/.test(value)) throw new ConfigError(name, `must be a five-field cron expression (got "${value}")`);
  return value;
}

function webhooks(env: Env, fiscalEnv: FiscalEnvironment, production: boolean): WebhooksConfig {
  const allowPrivate = flag(env, 'WEBHOOKS_ALLOW_PRIVATE', !production && text(env, 'DATABASE_URL') === undefined);
  if (allowPrivate && fiscalEnv === 'PRODUCTION') throw new ConfigError('WEBHOOKS_ALLOW_PRIVATE', 'cannot be true with FISCAL_ENV=PRODUCTION');
  return Object.freeze({
    allowPrivate,
    timeoutMs: integer(env, 'WEBHOOKS_TIMEOUT_MS', 15_000, 100, 60_000) ?? 15_000,
    secretGraceMs: (integer(env, 'WEBHOOKS_SECRET_GRACE_HOURS', 24, 0, 720) ?? 24) * 3_600_000,
    dispatchIntervalMs: integer(env, 'WEBHOOKS_DISPATCH_INTERVAL_MS', 250, 10, 60_000) ?? 250,
    concurrency: integer(env, 'WEBHOOKS_CONCURRENCY', 64, 1, 1_000) ?? 64,
    disableAfterMs: (integer(env, 'WEBHOOKS_DISABLE_AFTER_DAYS', 5, 1, 90) ?? 5) * 86_400_000,
    retentionMs: (integer(env, 'WEBHOOKS_RETENTION_DAYS', 30, 1, 3_650) ?? 30) * 86_400_000,
  });
}

export function parseConfig(env: Env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'], 'development');
  const fiscalEnv = oneOf(env, 'FISCAL_ENV', fiscalEnvironments, 'TEST');
  const dataDir = resolve(text(env, 'DATA_DIR') ?? './data');
  const production = nodeEnv === 'production' || fiscalEnv === 'PRODUCTION';
  const key = masterKey(env);
  if (production && key === undefined) {
    throw new ConfigError('MASTER_KEY', 'is required in production (NODE_ENV=production or FISCAL_ENV=PRODUCTION)');
  }
  const opsToken = text(env, 'OPS_TOKEN');
  if (opsToken !== undefined && opsToken.length < 16) throw new ConfigError('OPS_TOKEN', 'must be at least 16 characters');
  const client = dgiiClient(env);
  const cloudSigningSecret = text(env, 'CLOUD_SIGNING_SECRET');
  if (cloudSigningSecret !== undefined && cloudSigningSecret.length < 24) {
    throw new ConfigError('CLOUD_SIGNING_SECRET', 'must be at least 24 characters');
  }
  return Object.freeze({
    port: integer(env, 'PORT', 3000, 0, 65_535) ?? 3000,
    backgroundNice: integer(env, 'BACKGROUND_NICE', 10, 0, 19) ?? 10,
    host: text(env, 'HOST') ?? '127.0.0.1',
    nodeEnv,
    fiscalEnv,
    dataDir,
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', undefined, 1, 500),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    storage: storage(env, dataDir),
    opsToken,
    openApiEnabled: flag(env, 'OPENAPI_ENABLED', nodeEnv !== 'production'),
    masterKey: key,
    cloudSigningSecret,
    receiverAuthMode: oneOf(env, 'RECEIVER_AUTH_MODE', receiverAuthModes, 'required'),
    receiverLocalCompany: text(env, 'RECEIVER_LOCAL_COMPANY'),
    logLevel: oneOf(env, 'LOG_LEVEL', logLevels, nodeEnv === 'test' ? 'silent' : 'info'),
    xsdDir: text(env, 'ECF_XSD_DIR'),
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']),
    dgii: dgii(env, fiscalEnv),
    dgiiClient: client,
    sending: Object.freeze({
      maxAttempts: integer(env, 'SEND_MAX_ATTEMPTS', 8, 1, 100) ?? 8,
      retryBaseMs: integer(env, 'SEND_RETRY_BASE_MS', 2_000, 10, 3_600_000) ?? 2_000,
      leaseMs: sendLeaseMs(env, client),
      // A worker sends at most this many documents per DGII answer time (Little's law): DGII states 200 ms on average,
      // so 32 capped a worker near 160 documents/s; against the sandbox, 32 left documents waiting ~0.9 s for a free
      // sender while the sandbox could take more (sending bench: 390-406/s at 32, 427-519/s at 64).
      concurrency: integer(env, 'SEND_CONCURRENCY', 64, 1, 512) ?? 64,
    }),
    commercialResponses: Object.freeze({
      maxAttempts: integer(env, 'COMMERCIAL_RESPONSE_MAX_ATTEMPTS', 8, 1, 100) ?? 8,
      retryBaseMs: integer(env, 'COMMERCIAL_RESPONSE_RETRY_BASE_MS', 5_000, 10, 3_600_000) ?? 5_000,
    }),
    annulments: Object.freeze({
      maxAttempts: integer(env, 'ANNULMENT_MAX_ATTEMPTS', 8, 1, 100) ?? 8,
      retryBaseMs: integer(env, 'ANNULMENT_RETRY_BASE_MS', 2_000, 10, 3_600_000) ?? 2_000,
    }),
    queue: Object.freeze({
      maintenanceIntervalSeconds: integer(env, 'QUEUE_MAINTENANCE_SECONDS', 120, 1, 3_600) ?? 120,
    }),
    sequenceWarnings: Object.freeze({
      lowStock: integer(env, 'SEQUENCE_LOW_STOCK', 100, 0, 1_000_000_000) ?? 100,
      expiringDays: integer(env, 'SEQUENCE_EXPIRING_DAYS', 30, 0, 3_650) ?? 30,
    }),
    taxpayersImport: Object.freeze({
      url: url(env, 'TAXPAYERS_IMPORT_URL', ['http:', 'https:']),
      cron: cron(env, 'TAXPAYERS_IMPORT_CRON', '30 4 * * *'),
    }),
    webhooks: webhooks(env, fiscalEnv, production),
  });
}

export function loadConfig(): Config {
  return parseConfig(process.env);
}
