// The only place that reads the environment. Parsed once into a frozen, typed object; a bad value fails fast
// with a message naming the variable. Each variable is declared once in config/settings.ts, in a tree shaped as
// Config: parseConfig reads the tree, then derives here what depends on more than one variable.
import { resolve } from 'node:path';

import { byName, ConfigError, given, readTree, type Env, type ReadTree } from './config/kinds.js';
import { configSettings } from './config/settings.js';

export { ConfigError, type Setting } from './config/kinds.js';
export {
  maxRetryDelayMs,
  productionOverrides,
  receiverAuthModes,
  type LogFormat,
  type LogLevel,
  type ProductionOverride,
  type ReceiverAuthMode,
} from './config/settings.js';
export { fiscalEnvironments, type FiscalEnvironment } from './fiscal/environment.js';

/**
 * Every variable by its name, in the order docs/configuration.md lists them: code that needs a default without a
 * Config takes it from here (settings.X.default).
 */
export const settings = byName(configSettings);
type SettingName = keyof typeof settings;
type Read = ReadTree<typeof configSettings>;

export type Config = ReturnType<typeof parseConfig>;
export type S3Config = Extract<Config['storage'], { kind: 's3' }>['s3'];
/** Where DGII is: DGII serves from three hosts (research/dgii-protocol.md §1.1); the sandbox serves all three. */
export type DgiiConfig = Config['dgii'];
export type DgiiClientConfig = Config['dgiiClient'];
export type WebhooksConfig = Config['webhooks'];

export function parseConfig(env: Env) {
  const read = readTree(configSettings, env);
  const isSet = (name: SettingName) => given(env, name) !== undefined;
  const production = read.nodeEnv === 'production' || read.fiscalEnv === 'PRODUCTION';
  if (production && read.masterKey === undefined) {
    throw new ConfigError('MASTER_KEY', 'is required in production (NODE_ENV=production or FISCAL_ENV=PRODUCTION)');
  }
  // A production relay refuses the placeholder's `.invalid` domain.
  if (production && read.mail.url !== undefined && !isSet('SMTP_FROM'))
    throw new ConfigError('SMTP_FROM', 'is required with SMTP_URL in production');
  return deepFreeze({
    ...read,
    // Unset stays unset: databaseTarget (platform/db) applies the declared default.
    databasePoolSize: isSet('DATABASE_POOL_SIZE') ? read.databasePoolSize : undefined,
    storage: storage(read.storage, read.dataDir),
    openApiEnabled: read.openApiEnabled ?? read.nodeEnv !== 'production',
    logLevel: isSet('LOG_LEVEL') || read.nodeEnv !== 'test' ? read.logLevel : 'silent',
    dgii: { ...read.dgii, sandbox: dgiiSandbox(read, isSet) },
    sending: { ...read.sending, leaseMs: sendLeaseMs(read, isSet('SEND_LEASE_SECONDS')) },
    outboundAllowPrivate: outboundAllowPrivate(read, production),
  });
}

export function loadConfig(): Config {
  return parseConfig(process.env);
}

function storage({ kind, root, s3 }: Read['storage'], dataDir: string) {
  if (kind === 'fs') return { kind, root: resolve(root ?? resolve(dataDir, 'blobs')) };
  if (s3.bucket === undefined) throw new ConfigError('S3_BUCKET', 'is required when STORAGE=s3');
  return { kind, s3: { ...s3, bucket: s3.bucket, forcePathStyle: s3.forcePathStyle ?? s3.endpoint !== undefined } };
}

/** TEST and CERT start on the embedded sandbox (CERT with DGII's certification portal); PRODUCTION never does. */
function dgiiSandbox({ dgii, fiscalEnv }: Read, isSet: (name: SettingName) => boolean): 'embedded' | 'off' {
  const explicit = isSet('DGII_BASE_URL') || isSet('DGII_FC_BASE_URL') || isSet('DGII_STATUS_BASE_URL');
  const sandbox = dgii.sandbox ?? (fiscalEnv !== 'PRODUCTION' && !explicit ? 'embedded' : 'off');
  if (sandbox === 'embedded' && fiscalEnv === 'PRODUCTION')
    throw new ConfigError(
      'DGII_SANDBOX',
      "cannot be embedded with FISCAL_ENV=PRODUCTION: unset it, and the service talks to DGII's own services",
    );
  return sandbox;
}

/**
 * How long one worker holds a document it is sending. An attempt may make two DGII calls under one lease (ask about
 * the e-NCF, then send), each bounded by the client's connect + response timeouts; a lease that ran out mid-call
 * would let a second worker send the same bytes. So it must outlast both calls: the declared default, or more when
 * the timeouts ask for it, and a shorter value is refused.
 */
function sendLeaseMs({ sending, dgiiClient }: Read, set: boolean): number {
  const callsMs = 2 * (dgiiClient.connectTimeoutMs + dgiiClient.responseTimeoutMs);
  const floorSeconds = Math.floor(callsMs / 1_000) + 1;
  if (!set) return Math.max(sending.leaseMs, (floorSeconds + 10) * 1_000);
  if (sending.leaseMs < floorSeconds * 1_000) {
    throw new ConfigError(
      'SEND_LEASE_SECONDS',
      `must be at least ${String(floorSeconds)}: longer than two DGII calls at DGII_CONNECT_TIMEOUT_MS + DGII_RESPONSE_TIMEOUT_MS each (got "${String(sending.leaseMs / 1_000)}")`,
    );
  }
  return sending.leaseMs;
}

/**
 * Whether the service may call loopback, private, link-local and metadata addresses for a tenant (webhooks) or a
 * taxpayer (the URLs DGII's directory gives): only on the embedded single-machine setup (no DATABASE_URL, not
 * production) by default, for local demos; never with FISCAL_ENV=PRODUCTION.
 */
function outboundAllowPrivate(read: Read, production: boolean): boolean {
  const allowPrivate = read.outboundAllowPrivate ?? (!production && read.databaseUrl === undefined);
  if (allowPrivate && read.fiscalEnv === 'PRODUCTION')
    throw new ConfigError(
      'OUTBOUND_ALLOW_PRIVATE',
      "cannot be true with FISCAL_ENV=PRODUCTION: webhooks, buyers' receivers and issuers' approval URLs are called at public addresses only; unset it",
    );
  return allowPrivate;
}

/** Frozen throughout: nothing may redirect storage, DGII or anything else after start. A Buffer is left as it is. */
function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value))
    if (typeof child === 'object' && child !== null && !Buffer.isBuffer(child)) deepFreeze(child as object);
  return Object.freeze(value);
}
