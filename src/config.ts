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
const logFormats = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof logFormats)[number];

/**
 * The longest one retry waits, per retry policy; the first delay is configured (the *_RETRY_BASE_MS settings) and
 * doubled per attempt with jitter (platform/backoff.ts).
 */
export const maxRetryDelayMs = {
  sending: 5 * 60_000,
  annulments: 5 * 60_000,
  commercialResponses: 30 * 60_000,
  buyerDeliveries: 30 * 60_000,
} as const;

/** One environment variable: how it is read, its default and what it means (the table of docs/configuration.md). */
interface Declared {
  /** What it means, as docs/configuration.md says it. */
  doc: string;
  /** The documented default when it is not one plain value: derived from other settings, or made at start. */
  defaultNote?: string;
}
/** A text's `shape` says what it is, for docs/configuration.md; a secret shorter than its `minLength` is refused. */
export type Setting = Declared &
  (
    | { kind: 'integer'; default: number | undefined; min: number; max: number }
    | { kind: 'flag'; default: undefined }
    | { kind: 'choice'; values: readonly string[]; default: string | undefined }
    | { kind: 'text'; default: string | undefined; shape?: string; minLength?: number }
    | { kind: 'url'; protocols: readonly string[]; default: string | undefined }
    | { kind: 'cron'; default: string }
    | { kind: 'key'; default: undefined }
  );

const minutes = (ms: number) => String(ms / 60_000);

/**
 * Every variable the service reads, in the order docs/configuration.md lists them. A default is written here and
 * nowhere else: parseConfig and the code that needs one without a Config (settings.X.default) take it from here, and
 * the table of docs/configuration.md is generated from this (scripts/config-table.ts; test/config-readme.test.ts
 * fails when they differ).
 */
export const settings = {
  PORT: { kind: 'integer', default: 3000, min: 0, max: 65_535, doc: 'HTTP port (`0` picks a free one)' },
  BACKGROUND_NICE: {
    kind: 'integer',
    default: 10,
    min: 0,
    max: 19,
    doc: "CPU niceness that `ecf worker` and `ecf scheduler` take, every thread of them (V8's garbage collection and compilation threads too), so an API on the same host answers first; `0` leaves it",
  },
  HOST: {
    kind: 'text',
    default: '127.0.0.1',
    shape: 'an address',
    doc: 'interface to listen on (`0.0.0.0` in containers)',
  },
  NODE_ENV: {
    kind: 'choice',
    values: ['development', 'production', 'test'],
    default: 'development',
    doc: '`production`: `MASTER_KEY` required, `/docs` and private webhook targets off unless asked for; `test`: nothing logged unless asked for',
  },
  FISCAL_ENV: {
    kind: 'choice',
    values: fiscalEnvironments,
    default: 'TEST',
    doc: "DGII's environment (`testecf`, `certecf`, `ecf`). An instance serves one environment; keys of another get 401. So does a database: the first instance to start on it sets its environment, and an instance of another one is refused at start (one database per environment)",
  },
  DATA_DIR: {
    kind: 'text',
    default: './data',
    shape: 'a directory',
    doc: 'embedded database, blobs, generated master key, demo credentials',
  },
  DATABASE_URL: {
    kind: 'url',
    protocols: ['postgres:', 'postgresql:'],
    default: undefined,
    doc: 'PostgreSQL; unset = embedded PGlite under `DATA_DIR/pgdata` (one process only)',
  },
  // Sending runs 64 attempts at once (their records batched), beside the API's requests, the poller and the webhook
  // loop: with 5 connections the sending bench waited 54 ms per checkout and sent 77 documents/s, with 20 it waited
  // 13 ms and sent 102/s.
  DATABASE_POOL_SIZE: {
    kind: 'integer',
    default: 20,
    min: 1,
    max: 500,
    doc: "connections each process keeps to `DATABASE_URL`; keep processes × pool size under the server's `max_connections`",
  },
  // While PostgreSQL is away (a restart, a failover) a request waits this long for a connection, then answers 503
  // database_unavailable with Retry-After.
  DATABASE_CONNECT_TIMEOUT_MS: {
    kind: 'integer',
    default: 5_000,
    min: 100,
    max: 120_000,
    doc: 'how long a request or job waits for a connection to `DATABASE_URL` before it gives up (a request answers 503 `database_unavailable`)',
  },
  // A statement stuck behind a lock or on a server that has stopped answering is cancelled by the server after
  // this long; migrations run without it (an index built on ten years of documents takes longer).
  DATABASE_STATEMENT_TIMEOUT_MS: {
    kind: 'integer',
    default: 30_000,
    min: 0,
    max: 3_600_000,
    doc: "PostgreSQL's `statement_timeout` for the service's statements (`0`: none); migrations run without it. A request whose statement is cancelled answers 503 `database_unavailable`",
  },
  // PGlite cannot come back from a COMMIT whose WAL write its full disk refused (the process hangs: pglite-gateway.ts),
  // so it stops writing first. 256 MB holds the WAL a checkpoint needs and what reads spill.
  EMBEDDED_DISK_RESERVE_MB: {
    kind: 'integer',
    default: 256,
    min: 0,
    max: 1_048_576,
    doc: 'on the embedded database (no `DATABASE_URL`): while the disk of `DATA_DIR` has less free than this, requests that write answer 507 `database_full` and reads go on (`0`: no reserve)',
  },
  REDIS_URL: {
    kind: 'url',
    protocols: ['redis:', 'rediss:'],
    default: undefined,
    doc: 'Redis, shared by the processes; unset = in-memory cache',
  },
  STORAGE: {
    kind: 'choice',
    values: ['fs', 's3'],
    default: 'fs',
    doc: '`fs`: files under `STORAGE_DIR`; `s3`: S3 or S3-compatible object storage. Archived files are read-only and written once, one directory per company and day: `documents/{company}/{yyyy-mm-dd}/{document}.{artefact}.v{n}.{json,xml}` and `received/{company}/{yyyy-mm-dd}/…` (the day, in GMT-4, the document was created or received; documents archived before this layout keep their recorded paths)',
  },
  STORAGE_DIR: {
    kind: 'text',
    default: undefined,
    shape: 'a directory',
    defaultNote: '`DATA_DIR/blobs`',
    doc: 'where `STORAGE=fs` keeps the archived files',
  },
  S3_ENDPOINT: {
    kind: 'url',
    protocols: ['http:', 'https:'],
    default: undefined,
    doc: "an S3-compatible server's endpoint; unset = AWS S3",
  },
  S3_BUCKET: {
    kind: 'text',
    default: undefined,
    shape: 'a bucket name',
    doc: 'the bucket archived files go to; required with `STORAGE=s3`',
  },
  S3_REGION: { kind: 'text', default: 'us-east-1', shape: 'a region', doc: "the bucket's region" },
  S3_ACCESS_KEY_ID: {
    kind: 'text',
    default: undefined,
    shape: 'an access key id',
    doc: "with `S3_SECRET_ACCESS_KEY`, the bucket's credentials; unset = the AWS SDK's own credential chain",
  },
  S3_SECRET_ACCESS_KEY: {
    kind: 'text',
    default: undefined,
    shape: 'a secret key',
    doc: 'the secret of `S3_ACCESS_KEY_ID`',
  },
  S3_FORCE_PATH_STYLE: {
    kind: 'flag',
    default: undefined,
    defaultNote: '`true` when `S3_ENDPOINT` is set, else `false`',
    doc: 'path-style requests (the bucket in the path, not in the host name), as most S3-compatible servers want',
  },
  S3_OBJECT_LOCK_DAYS: {
    kind: 'integer',
    default: undefined,
    min: 1,
    max: 36_500,
    doc: 'when set, every archived object gets S3 Object Lock COMPLIANCE retention for that many days',
  },
  S3_CONNECT_TIMEOUT_MS: {
    kind: 'integer',
    default: 3_000,
    min: 100,
    max: 120_000,
    doc: 'S3 client timeout to connect (TCP and TLS), per attempt; the AWS SDK makes up to three',
  },
  S3_REQUEST_TIMEOUT_MS: {
    kind: 'integer',
    default: 10_000,
    min: 100,
    max: 600_000,
    doc: "S3 client timeout from sending a request to S3's answer, and for the longest silence while its body arrives, per attempt; a call S3 does not finish in time answers the HTTP request 503 `storage_unavailable`",
  },
  OPS_TOKEN: {
    kind: 'text',
    default: undefined,
    minLength: 16,
    doc: 'bearer token for `/metrics` and `/internal/*` (except `/internal/cloud/v1/*`); unset = those routes answer 404',
  },
  OPENAPI_ENABLED: {
    kind: 'flag',
    default: undefined,
    defaultNote: '`true` outside production',
    doc: '`/docs` and `/docs-json`; in production they answer 404 unless `true`',
  },
  MASTER_KEY: {
    kind: 'key',
    default: undefined,
    defaultNote: 'generated',
    doc: 'encrypts secrets at rest (certificate keys). Required when `NODE_ENV=production` or `FISCAL_ENV=PRODUCTION`; otherwise generated once into `DATA_DIR/master.key`. A key that does not match the database stops the start',
  },
  CLOUD_SIGNING_SECRET: {
    kind: 'text',
    default: undefined,
    minLength: 24,
    doc: 'shared secret of the control plane (API guide, "Tenancy"); unset = `/internal/cloud/v1/*` answer 404. `whsec_<base64>` is decoded as Standard Webhooks does',
  },
  RECEIVER_AUTH_MODE: {
    kind: 'choice',
    values: receiverAuthModes,
    default: 'required',
    doc: "the receiver token on the POST receiver routes (`/{env}/{segment}/fe/recepcion/api/ecf` and `…/fe/aprobacioncomercial/api/ecf`): `required` (no token or a bad one → 401), `optional` (a valid token or none; a bad one → 401), `disabled` (tokens ignored). `required` suits DGII's simulator and the sandbox's counterpart, which authenticate when given the authentication URL",
  },
  RECEIVER_LOCAL_COMPANY: {
    kind: 'text',
    default: undefined,
    shape: 'an RNC or a company id',
    defaultNote: 'the demo company when the DGII sandbox is embedded, else none',
    doc: 'the company the local test path `/{env}/emisorreceptor/fe/...` serves',
  },
  LOG_LEVEL: {
    kind: 'choice',
    values: logLevels,
    default: 'info',
    defaultNote: '`silent` under `NODE_ENV=test`',
    doc: 'the least severe level logged; `silent` logs nothing',
  },
  LOG_FORMAT: {
    kind: 'choice',
    values: logFormats,
    default: 'auto',
    doc: '`auto`: one human-readable line per entry when stdout is a terminal and `NODE_ENV` is `development`, JSON lines otherwise; `pretty` or `json` choose one',
  },
  ECF_XSD_DIR: {
    kind: 'text',
    default: undefined,
    defaultNote: '`DATA_DIR/xsd` when `ecf xsd install` put a set there, else unset',
    shape: 'a directory',
    doc: "directory holding DGII's official XSDs, for schema validation of e-CF (tests point it at `../shared/dgii/xsd`); when set it wins over an installed set. `ecf xsd install <dir|zip|URL>` installs them into `DATA_DIR/xsd`; with neither, the model alone validates and the start warns",
  },
  PUBLIC_BASE_URL: {
    kind: 'url',
    protocols: ['http:', 'https:'],
    default: undefined,
    defaultNote: 'the listen address',
    doc: 'base URL written into demo credentials and links',
  },
  SEQUENCE_LOW_STOCK: {
    kind: 'integer',
    default: 100,
    min: 0,
    max: 1_000_000_000,
    doc: 'numbers left of a type at which a `sequence.low_stock` event is recorded',
  },
  SEQUENCE_EXPIRING_DAYS: {
    kind: 'integer',
    default: 30,
    min: 0,
    max: 3_650,
    doc: 'days before a range in use expires at which a `sequence.expiring` event is recorded',
  },
  // A worker sends at most this many documents per DGII answer time (Little's law): DGII states 200 ms on average,
  // so 32 capped a worker near 160 documents/s; against the sandbox, 32 left documents waiting ~0.9 s for a free
  // sender while the sandbox could take more (sending bench: 390-406/s at 32, 427-519/s at 64).
  SEND_CONCURRENCY: {
    kind: 'integer',
    default: 64,
    min: 1,
    max: 512,
    doc: 'documents one worker sends to DGII at once, and verdicts one scheduler asks DGII about at once; one worker sends at most this many per DGII answer time (DGII states 200 ms on average). Lower it to be gentler with DGII; workers send side by side, so more workers send more',
  },
  SEND_MAX_ATTEMPTS: {
    kind: 'integer',
    default: 8,
    min: 1,
    max: 100,
    doc: 'sending to DGII: attempts before a document is `send_failed` (and a failed job opens)',
  },
  SEND_RETRY_BASE_MS: {
    kind: 'integer',
    default: 2_000,
    min: 10,
    max: 3_600_000,
    doc: `sending to DGII: the first retry delay, doubled per attempt with jitter (at most ${minutes(maxRetryDelayMs.sending)} min)`,
  },
  COMMERCIAL_RESPONSE_MAX_ATTEMPTS: {
    kind: 'integer',
    default: 8,
    min: 1,
    max: 100,
    doc: 'delivering a commercial response (ACECF) to the issuer and to DGII: attempts before a delivery is `exhausted`',
  },
  COMMERCIAL_RESPONSE_RETRY_BASE_MS: {
    kind: 'integer',
    default: 5_000,
    min: 10,
    max: 3_600_000,
    doc: `delivering a commercial response: the first retry delay, doubled per attempt with jitter (at most ${minutes(maxRetryDelayMs.commercialResponses)} min)`,
  },
  DELIVERY_MAX_ATTEMPTS: {
    kind: 'integer',
    default: 8,
    min: 1,
    max: 100,
    doc: "delivering an accepted e-CF to its buyer (the buyer's receiver, or e-mail): attempts before the delivery is `failed` and a failed job opens",
  },
  DELIVERY_RETRY_BASE_MS: {
    kind: 'integer',
    default: 10_000,
    min: 10,
    max: 3_600_000,
    doc: `delivering an e-CF to its buyer: the first retry delay, doubled per attempt with jitter, never before a receiver's Retry-After (at most ${minutes(maxRetryDelayMs.buyerDeliveries)} min)`,
  },
  ANNULMENT_MAX_ATTEMPTS: {
    kind: 'integer',
    default: 8,
    min: 1,
    max: 100,
    doc: 'sending an annulment (ANECF) to DGII: attempts before the request is `failed` (`reintentar` sends it again)',
  },
  ANNULMENT_RETRY_BASE_MS: {
    kind: 'integer',
    default: 2_000,
    min: 10,
    max: 3_600_000,
    doc: `sending an annulment: the first retry delay, doubled per attempt with jitter (at most ${minutes(maxRetryDelayMs.annulments)} min)`,
  },
  SEND_LEASE_SECONDS: {
    kind: 'integer',
    default: 90,
    min: 1,
    max: 3_600,
    defaultNote: 'more when the DGII timeouts ask for it',
    doc: "how long one worker holds a document while it talks to DGII; a killed worker's documents are taken up again after it. Must outlast two DGII calls (asking about the e-NCF, then sending), i.e. be more than 2 × (`DGII_CONNECT_TIMEOUT_MS` + `DGII_RESPONSE_TIMEOUT_MS`); a shorter value stops the start",
  },
  QUEUE_MAINTENANCE_SECONDS: {
    kind: 'integer',
    default: 120,
    min: 1,
    max: 3_600,
    doc: "how often the job queue fails jobs that ran past their expiry (a killed worker's stay active until then) so their retries run, and archives old jobs",
  },
  OUTBOUND_ALLOW_PRIVATE: {
    kind: 'flag',
    default: undefined,
    defaultNote: '`true` on the embedded single-machine setup (no `DATABASE_URL`, not production), else `false`',
    doc: "call loopback, private, link-local and metadata addresses on a tenant's behalf (webhooks, buyers' receivers, issuers' approval URLs; local demos, tests); refused with `FISCAL_ENV=PRODUCTION`",
  },
  WEBHOOKS_TIMEOUT_MS: {
    kind: 'integer',
    default: 15_000,
    min: 100,
    max: 60_000,
    doc: 'a delivery succeeds on a 2xx within this time',
  },
  WEBHOOKS_SECRET_GRACE_HOURS: {
    kind: 'integer',
    default: 24,
    min: 0,
    max: 720,
    doc: 'after a secret rotation, how long the old secret still signs deliveries beside the new one',
  },
  WEBHOOKS_DISPATCH_INTERVAL_MS: {
    kind: 'integer',
    default: 250,
    min: 10,
    max: 60_000,
    doc: 'how often an idle worker fans out new events and claims deliveries due (at once after its own fan-out or a re-send in its process)',
  },
  WEBHOOKS_DISABLE_AFTER_DAYS: {
    kind: 'integer',
    default: 5,
    min: 1,
    max: 90,
    doc: 'after how many days of failures without a success an endpoint is disabled',
  },
  WEBHOOKS_RETENTION_DAYS: {
    kind: 'integer',
    default: 30,
    min: 1,
    max: 3_650,
    doc: 'how long settled webhook deliveries (with their attempts) and fanned-out events are kept',
  },
  WEBHOOKS_CONCURRENCY: {
    kind: 'integer',
    default: 64,
    min: 1,
    max: 1_000,
    doc: 'how many deliveries one worker POSTs at once; workers claim deliveries side by side, so more workers deliver more',
  },
  SMTP_URL: {
    kind: 'url',
    protocols: ['smtp:', 'smtps:'],
    default: undefined,
    defaultNote: "unset (with the embedded DGII sandbox: the sandbox's mail catcher)",
    doc: 'the SMTP server e-mail to buyers goes through (the PDF and the signed XML, for buyers who are not electronic receivers): `smtp://` uses STARTTLS when the server offers it, `smtps://` implicit TLS; credentials go in the userinfo (`smtp://user:password@host:587`). Unset = no e-mail, and the start warns; `ecf start` with the embedded DGII sandbox catches the mail in the sandbox instead',
  },
  SMTP_FROM: {
    kind: 'text',
    default: 'facturas@ecf-service.invalid',
    shape: 'an e-mail address',
    defaultNote: 'required with `SMTP_URL` in production',
    doc: "the address e-mail is sent from (envelope and `From`); the name shown beside it is the issuing company's. The default's `.invalid` domain (RFC 2606) only suits the mail catcher and local tests",
  },
  SMTP_TIMEOUT_MS: {
    kind: 'integer',
    default: 15_000,
    min: 100,
    max: 300_000,
    doc: "SMTP client timeout to connect, and for each of the server's replies; a send that runs past it is retried later",
  },
  ARCHIVE_VERIFY_DAYS: {
    kind: 'integer',
    default: 7,
    min: 1,
    max: 365,
    doc: 'the rolling check of the archive starts a pass over every artefact this often',
  },
  ARCHIVE_VERIFY_MB_PER_S: {
    kind: 'integer',
    default: 8,
    min: 0,
    max: 10_000,
    doc: 'the most the archive checks read from the store, in MB a second (`0`: no limit)',
  },
  ARCHIVE_ORPHAN_GRACE_MINUTES: {
    kind: 'integer',
    default: 60,
    min: 0,
    max: 10_080,
    doc: 'a stored object no record names is an orphan finding only once it is this old (a write in progress is not)',
  },
  ARCHIVE_RECENT_SETTLE_SECONDS: {
    kind: 'integer',
    default: 60,
    min: 0,
    max: 86_400,
    doc: 'the worker checks each newly archived file once it is this old (between the full passes)',
  },
  TAXPAYERS_IMPORT_URL: {
    kind: 'url',
    protocols: ['http:', 'https:'],
    default: undefined,
    doc: "URL of DGII's taxpayer listing (e.g. `https://dgii.gov.do/app/WebApps/Consultas/RNC/DGII_RNC.zip`) for the scheduled registry import; unset = no scheduled import (`ecf taxpayers import <file-or-url>` still works by hand)",
  },
  TAXPAYERS_IMPORT_CRON: {
    kind: 'cron',
    default: '30 4 * * *',
    doc: 'when the scheduled import runs (America/Santo_Domingo time)',
  },
  DGII_BASE_URL: {
    kind: 'url',
    protocols: ['http:', 'https:'],
    default: 'https://ecf.dgii.gov.do',
    doc: "where DGII's e-CF services are; point the three `DGII_*_URL` at an `ecf sandbox` to use it as DGII",
  },
  DGII_FC_BASE_URL: {
    kind: 'url',
    protocols: ['http:', 'https:'],
    default: 'https://fc.dgii.gov.do',
    doc: "where DGII's service for consumer-invoice summaries (RFCE, under DOP 250,000) is",
  },
  DGII_STATUS_BASE_URL: {
    kind: 'url',
    protocols: ['http:', 'https:'],
    default: 'https://statusecf.dgii.gov.do',
    doc: "where DGII's service status (maintenance windows) is",
  },
  DGII_SANDBOX: {
    kind: 'choice',
    values: ['embedded', 'off'],
    default: undefined,
    defaultNote: '`embedded` for `TEST` and `CERT` when no DGII URL is set, else `off`',
    doc: '`embedded`: `ecf start` runs the DGII sandbox beside the service, on the same database, and uses it as DGII (never in PRODUCTION)',
  },
  SANDBOX_PORT: {
    kind: 'integer',
    default: 0,
    min: 0,
    max: 65_535,
    defaultNote: 'a free port',
    doc: 'port of the embedded sandbox; `ecf start` prints its URL with the demo key',
  },
  DGII_CONNECT_TIMEOUT_MS: {
    kind: 'integer',
    default: 5_000,
    min: 100,
    max: 120_000,
    doc: 'DGII client timeout to connect (TCP and TLS)',
  },
  DGII_RESPONSE_TIMEOUT_MS: {
    kind: 'integer',
    default: 30_000,
    min: 100,
    max: 600_000,
    doc: "DGII client timeout from connection to the end of DGII's answer; a send that runs past it is *uncertain* and is resolved by asking DGII before any resend",
  },
  DGII_BREAKER_FAILURES: {
    kind: 'integer',
    default: 5,
    min: 1,
    max: 1_000,
    doc: 'circuit breaker per DGII service: consecutive failures that open it',
  },
  DGII_BREAKER_OPEN_MS: {
    kind: 'integer',
    default: 30_000,
    min: 100,
    max: 3_600_000,
    doc: 'circuit breaker per DGII service: how long it short-fails before letting one probe through',
  },
  DGII_STATUS_API_KEY: {
    kind: 'text',
    default: undefined,
    shape: "DGII's API key",
    doc: "API key for DGII's status service (`statusecf`, maintenance windows); unset = no status checks",
  },
  SANDBOX_ADMIN_TOKEN: {
    kind: 'text',
    default: undefined,
    minLength: 16,
    defaultNote: 'unset (embedded: one made once and kept in `DATA_DIR/sandbox-admin-token`)',
    doc: "enables the sandbox's `/sandbox-admin` routes and requires this bearer token on them (`Authorization: Bearer`); the embedded sandbox always has them, with this token or its own",
  },
} as const satisfies Record<string, Setting>;

type Settings = typeof settings;
type SettingName = keyof Settings;
type NamedOf<K extends Setting['kind']> = {
  [N in SettingName]: Settings[N]['kind'] extends K ? N : never;
}[SettingName];

export interface S3Config {
  endpoint: string | undefined;
  bucket: string;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
  objectLockDays: number | undefined;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

export interface Config {
  port: number;
  /** Calls on a tenant's or taxpayer's behalf may go to private addresses (OUTBOUND_ALLOW_PRIVATE). */
  outboundAllowPrivate: boolean;
  /** Niceness a process without the API role (`ecf worker`, `ecf scheduler`) takes, so an API on the same host is served first; 0 keeps the default. */
  backgroundNice: number;
  host: string;
  nodeEnv: 'development' | 'production' | 'test';
  fiscalEnv: FiscalEnvironment;
  dataDir: string;
  /** Absent: embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Connections per process to DATABASE_URL (DATABASE_POOL_SIZE); absent: its declared default, which databaseTarget applies. */
  databasePoolSize: number | undefined;
  databaseConnectTimeoutMs: number;
  databaseStatementTimeoutMs: number;
  embeddedDiskReserveMb: number;
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
  /** `auto`: pretty on a terminal outside production (platform/observability/logger.ts). */
  logFormat: LogFormat;
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
  buyerDeliveries: { maxAttempts: number; retryBaseMs: number };
  /** Sending annulments (ANECF) to DGII: attempts before `failed`, first retry delay (doubled per attempt). */
  annulments: { maxAttempts: number; retryBaseMs: number };
  /** The job queue: how often expired jobs (a killed worker's) are failed and retried, and old jobs archived. */
  queue: { maintenanceIntervalSeconds: number };
  /** When ranges warn (events for webhooks): numbers left of a type, days before a range in use expires. */
  sequenceWarnings: { lowStock: number; expiringDays: number };
  /** Scheduled import of DGII's taxpayer listing: off unless a URL is set; cron in America/Santo_Domingo time. */
  taxpayersImport: { url: string | undefined; cron: string };
  webhooks: WebhooksConfig;
  /** E-mail to buyers: the SMTP server (absent: e-mail off, or the embedded sandbox's catcher), the address sent from, the client's timeout. */
  mail: { url: string | undefined; from: string; timeoutMs: number };
  /** The archive verifier: a rolling pass every `verifyDays`, reads paced to `bytesPerSecond` (undefined: no limit). */
  archive: { verifyDays: number; bytesPerSecond: number | undefined; orphanGraceMs: number; recentSettleMs: number };
}

/** Outbound webhooks (SPEC §6.1, DESIGN §5.5). */
export interface WebhooksConfig {
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
  /** The sandbox's /sandbox-admin routes: off unless set (embedded: always on, with a token made when unset); when
   * set, this token is required (Bearer). */
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
    connectTimeoutMs: integer(env, 'DGII_CONNECT_TIMEOUT_MS') ?? settings.DGII_CONNECT_TIMEOUT_MS.default,
    responseTimeoutMs: integer(env, 'DGII_RESPONSE_TIMEOUT_MS') ?? settings.DGII_RESPONSE_TIMEOUT_MS.default,
    breakerFailureThreshold: integer(env, 'DGII_BREAKER_FAILURES') ?? settings.DGII_BREAKER_FAILURES.default,
    breakerOpenMs: integer(env, 'DGII_BREAKER_OPEN_MS') ?? settings.DGII_BREAKER_OPEN_MS.default,
    statusApiKey: text(env, 'DGII_STATUS_API_KEY'),
  });
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

// Each reader checks a value against its declaration and returns undefined when the variable is unset; the caller
// supplies the default (settings.X.default, or one derived from other settings).

function given(env: Env, name: SettingName): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function text(env: Env, name: NamedOf<'text'>): string | undefined {
  const value = given(env, name);
  const { minLength }: Extract<Setting, { kind: 'text' }> = settings[name];
  if (value !== undefined && minLength !== undefined && value.length < minLength)
    throw new ConfigError(name, `must be at least ${minLength} characters`);
  return value;
}

function choice<N extends NamedOf<'choice'>>(env: Env, name: N): Settings[N]['values'][number] | undefined {
  const value = given(env, name);
  if (value === undefined) return undefined;
  const allowed: readonly Settings[N]['values'][number][] = settings[name].values;
  const match = allowed.find((candidate) => candidate === value);
  if (match === undefined) throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  return match;
}

function integer(env: Env, name: NamedOf<'integer'>): number | undefined {
  const value = given(env, name);
  if (value === undefined) return undefined;
  const { min, max } = settings[name];
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}

function flag(env: Env, name: NamedOf<'flag'>): boolean | undefined {
  const value = given(env, name);
  if (value === undefined) return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ConfigError(name, `must be true or false (got "${value}")`);
}

function url(env: Env, name: NamedOf<'url'>): string | undefined {
  const value = given(env, name);
  if (value === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  const protocols: readonly string[] = settings[name].protocols;
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
  }
  return value;
}

/** Five cron fields of digits, `*`, `/`, `,` and `-`: enough to refuse a typo before pg-boss does at run time. */
function cron(env: Env, name: NamedOf<'cron'>): string | undefined {
  const value = given(env, name);
  if (value === undefined) return undefined;
  if (!/^[\d*/,-]+( [\d*/,-]+){4}$/.test(value))
    throw new ConfigError(name, `must be a five-field cron expression (got "${value}")`);
  return value;
}

/** MASTER_KEY is 32 bytes given as 64 hex characters or as base64. */
function masterKey(env: Env): Buffer | undefined {
  const value = given(env, 'MASTER_KEY');
  if (value === undefined) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (bytes.length !== 32) throw new ConfigError('MASTER_KEY', 'must be 32 bytes, as 64 hex characters or base64');
  return bytes;
}

function storage(env: Env, dataDir: string): Config['storage'] {
  const kind = choice(env, 'STORAGE') ?? settings.STORAGE.default;
  // Frozen like the rest of the config: nothing may redirect storage after start.
  if (kind === 'fs')
    return Object.freeze({ kind, root: resolve(text(env, 'STORAGE_DIR') ?? resolve(dataDir, 'blobs')) });
  const bucket = text(env, 'S3_BUCKET');
  if (bucket === undefined) throw new ConfigError('S3_BUCKET', 'is required when STORAGE=s3');
  const endpoint = url(env, 'S3_ENDPOINT');
  return Object.freeze({
    kind,
    s3: Object.freeze({
      endpoint,
      bucket,
      region: text(env, 'S3_REGION') ?? settings.S3_REGION.default,
      accessKeyId: text(env, 'S3_ACCESS_KEY_ID'),
      secretAccessKey: text(env, 'S3_SECRET_ACCESS_KEY'),
      forcePathStyle: flag(env, 'S3_FORCE_PATH_STYLE') ?? endpoint !== undefined,
      objectLockDays: integer(env, 'S3_OBJECT_LOCK_DAYS'),
      connectTimeoutMs: integer(env, 'S3_CONNECT_TIMEOUT_MS') ?? settings.S3_CONNECT_TIMEOUT_MS.default,
      requestTimeoutMs: integer(env, 'S3_REQUEST_TIMEOUT_MS') ?? settings.S3_REQUEST_TIMEOUT_MS.default,
    }),
  });
}

function dgii(env: Env, fiscalEnv: FiscalEnvironment): DgiiConfig {
  const baseUrl = url(env, 'DGII_BASE_URL');
  const fcBaseUrl = url(env, 'DGII_FC_BASE_URL');
  const statusBaseUrl = url(env, 'DGII_STATUS_BASE_URL');
  const explicit = baseUrl !== undefined || fcBaseUrl !== undefined || statusBaseUrl !== undefined;
  // TEST and CERT start on the embedded sandbox (CERT with DGII's certification portal); PRODUCTION never does.
  const sandbox = choice(env, 'DGII_SANDBOX') ?? (fiscalEnv !== 'PRODUCTION' && !explicit ? 'embedded' : 'off');
  if (sandbox === 'embedded' && fiscalEnv === 'PRODUCTION')
    throw new ConfigError('DGII_SANDBOX', 'cannot be embedded with FISCAL_ENV=PRODUCTION');
  return Object.freeze({
    baseUrl: (baseUrl ?? settings.DGII_BASE_URL.default).replace(/\/+$/, ''),
    fcBaseUrl: (fcBaseUrl ?? settings.DGII_FC_BASE_URL.default).replace(/\/+$/, ''),
    statusBaseUrl: (statusBaseUrl ?? settings.DGII_STATUS_BASE_URL.default).replace(/\/+$/, ''),
    sandbox,
    sandboxPort: integer(env, 'SANDBOX_PORT') ?? settings.SANDBOX_PORT.default,
    sandboxAdminToken: text(env, 'SANDBOX_ADMIN_TOKEN'),
  });
}

/**
 * How long one worker holds a document it is sending. An attempt may make two DGII calls under one lease (ask about
 * the e-NCF, then send), each bounded by the client's connect + response timeouts; a lease that ran out mid-call
 * would let a second worker send the same bytes. So it must outlast both calls: the declared default, or more when
 * the timeouts ask for it, and a shorter value is refused.
 */
function sendLeaseMs(env: Env, client: DgiiClientConfig): number {
  const callsMs = 2 * (client.connectTimeoutMs + client.responseTimeoutMs);
  const floorSeconds = Math.floor(callsMs / 1_000) + 1;
  const seconds = integer(env, 'SEND_LEASE_SECONDS');
  if (seconds === undefined) return Math.max(settings.SEND_LEASE_SECONDS.default, floorSeconds + 10) * 1_000;
  if (seconds < floorSeconds) {
    throw new ConfigError(
      'SEND_LEASE_SECONDS',
      `must be at least ${String(floorSeconds)}: longer than two DGII calls at DGII_CONNECT_TIMEOUT_MS + DGII_RESPONSE_TIMEOUT_MS each (got "${String(seconds)}")`,
    );
  }
  return seconds * 1_000;
}

/**
 * Whether the service may call loopback, private, link-local and metadata addresses for a tenant (webhooks) or a
 * taxpayer (the URLs DGII's directory gives): only on the embedded single-machine setup (no DATABASE_URL, not
 * production) by default, for local demos; never with FISCAL_ENV=PRODUCTION.
 */
function outboundAllowPrivate(env: Env, fiscalEnv: FiscalEnvironment, production: boolean): boolean {
  const allowPrivate = flag(env, 'OUTBOUND_ALLOW_PRIVATE') ?? (!production && given(env, 'DATABASE_URL') === undefined);
  if (allowPrivate && fiscalEnv === 'PRODUCTION')
    throw new ConfigError('OUTBOUND_ALLOW_PRIVATE', 'cannot be true with FISCAL_ENV=PRODUCTION');
  return allowPrivate;
}

function webhooks(env: Env): WebhooksConfig {
  return Object.freeze({
    timeoutMs: integer(env, 'WEBHOOKS_TIMEOUT_MS') ?? settings.WEBHOOKS_TIMEOUT_MS.default,
    secretGraceMs:
      (integer(env, 'WEBHOOKS_SECRET_GRACE_HOURS') ?? settings.WEBHOOKS_SECRET_GRACE_HOURS.default) * 3_600_000,
    dispatchIntervalMs: integer(env, 'WEBHOOKS_DISPATCH_INTERVAL_MS') ?? settings.WEBHOOKS_DISPATCH_INTERVAL_MS.default,
    concurrency: integer(env, 'WEBHOOKS_CONCURRENCY') ?? settings.WEBHOOKS_CONCURRENCY.default,
    disableAfterMs:
      (integer(env, 'WEBHOOKS_DISABLE_AFTER_DAYS') ?? settings.WEBHOOKS_DISABLE_AFTER_DAYS.default) * 86_400_000,
    retentionMs: (integer(env, 'WEBHOOKS_RETENTION_DAYS') ?? settings.WEBHOOKS_RETENTION_DAYS.default) * 86_400_000,
  });
}

/** The envelope sender must be a plain address; a production relay refuses the placeholder's `.invalid` domain. */
function mail(env: Env, production: boolean): Config['mail'] {
  const smtpUrl = url(env, 'SMTP_URL');
  const from = text(env, 'SMTP_FROM');
  if (from !== undefined && !/^[^\s@<>"(),;:]+@[^\s@<>"(),;:]+\.[^\s@<>"(),;:]+$/.test(from))
    throw new ConfigError('SMTP_FROM', `must be an e-mail address such as facturas@example.com (got "${from}")`);
  if (production && smtpUrl !== undefined && from === undefined)
    throw new ConfigError('SMTP_FROM', 'is required with SMTP_URL in production');
  return Object.freeze({
    url: smtpUrl,
    from: from ?? settings.SMTP_FROM.default,
    timeoutMs: integer(env, 'SMTP_TIMEOUT_MS') ?? settings.SMTP_TIMEOUT_MS.default,
  });
}

function archive(env: Env): Config['archive'] {
  const megabytes = integer(env, 'ARCHIVE_VERIFY_MB_PER_S') ?? settings.ARCHIVE_VERIFY_MB_PER_S.default;
  return Object.freeze({
    verifyDays: integer(env, 'ARCHIVE_VERIFY_DAYS') ?? settings.ARCHIVE_VERIFY_DAYS.default,
    bytesPerSecond: megabytes === 0 ? undefined : megabytes * 1_000_000,
    orphanGraceMs:
      (integer(env, 'ARCHIVE_ORPHAN_GRACE_MINUTES') ?? settings.ARCHIVE_ORPHAN_GRACE_MINUTES.default) * 60_000,
    recentSettleMs:
      (integer(env, 'ARCHIVE_RECENT_SETTLE_SECONDS') ?? settings.ARCHIVE_RECENT_SETTLE_SECONDS.default) * 1_000,
  });
}

export function parseConfig(env: Env): Config {
  const nodeEnv = choice(env, 'NODE_ENV') ?? settings.NODE_ENV.default;
  const fiscalEnv = choice(env, 'FISCAL_ENV') ?? settings.FISCAL_ENV.default;
  const dataDir = resolve(text(env, 'DATA_DIR') ?? settings.DATA_DIR.default);
  const production = nodeEnv === 'production' || fiscalEnv === 'PRODUCTION';
  const key = masterKey(env);
  if (production && key === undefined) {
    throw new ConfigError('MASTER_KEY', 'is required in production (NODE_ENV=production or FISCAL_ENV=PRODUCTION)');
  }
  const opsToken = text(env, 'OPS_TOKEN');
  const client = dgiiClient(env);
  const cloudSigningSecret = text(env, 'CLOUD_SIGNING_SECRET');
  return Object.freeze({
    port: integer(env, 'PORT') ?? settings.PORT.default,
    backgroundNice: integer(env, 'BACKGROUND_NICE') ?? settings.BACKGROUND_NICE.default,
    host: text(env, 'HOST') ?? settings.HOST.default,
    nodeEnv,
    fiscalEnv,
    dataDir,
    databaseUrl: url(env, 'DATABASE_URL'),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE'),
    databaseConnectTimeoutMs:
      integer(env, 'DATABASE_CONNECT_TIMEOUT_MS') ?? settings.DATABASE_CONNECT_TIMEOUT_MS.default,
    databaseStatementTimeoutMs:
      integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS') ?? settings.DATABASE_STATEMENT_TIMEOUT_MS.default,
    embeddedDiskReserveMb: integer(env, 'EMBEDDED_DISK_RESERVE_MB') ?? settings.EMBEDDED_DISK_RESERVE_MB.default,
    redisUrl: url(env, 'REDIS_URL'),
    storage: storage(env, dataDir),
    opsToken,
    openApiEnabled: flag(env, 'OPENAPI_ENABLED') ?? nodeEnv !== 'production',
    masterKey: key,
    cloudSigningSecret,
    receiverAuthMode: choice(env, 'RECEIVER_AUTH_MODE') ?? settings.RECEIVER_AUTH_MODE.default,
    receiverLocalCompany: text(env, 'RECEIVER_LOCAL_COMPANY'),
    logLevel: choice(env, 'LOG_LEVEL') ?? (nodeEnv === 'test' ? 'silent' : settings.LOG_LEVEL.default),
    logFormat: choice(env, 'LOG_FORMAT') ?? settings.LOG_FORMAT.default,
    xsdDir: text(env, 'ECF_XSD_DIR'),
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL'),
    dgii: dgii(env, fiscalEnv),
    dgiiClient: client,
    sending: Object.freeze({
      maxAttempts: integer(env, 'SEND_MAX_ATTEMPTS') ?? settings.SEND_MAX_ATTEMPTS.default,
      retryBaseMs: integer(env, 'SEND_RETRY_BASE_MS') ?? settings.SEND_RETRY_BASE_MS.default,
      leaseMs: sendLeaseMs(env, client),
      concurrency: integer(env, 'SEND_CONCURRENCY') ?? settings.SEND_CONCURRENCY.default,
    }),
    commercialResponses: Object.freeze({
      maxAttempts:
        integer(env, 'COMMERCIAL_RESPONSE_MAX_ATTEMPTS') ?? settings.COMMERCIAL_RESPONSE_MAX_ATTEMPTS.default,
      retryBaseMs:
        integer(env, 'COMMERCIAL_RESPONSE_RETRY_BASE_MS') ?? settings.COMMERCIAL_RESPONSE_RETRY_BASE_MS.default,
    }),
    buyerDeliveries: Object.freeze({
      maxAttempts: integer(env, 'DELIVERY_MAX_ATTEMPTS') ?? settings.DELIVERY_MAX_ATTEMPTS.default,
      retryBaseMs: integer(env, 'DELIVERY_RETRY_BASE_MS') ?? settings.DELIVERY_RETRY_BASE_MS.default,
    }),
    annulments: Object.freeze({
      maxAttempts: integer(env, 'ANNULMENT_MAX_ATTEMPTS') ?? settings.ANNULMENT_MAX_ATTEMPTS.default,
      retryBaseMs: integer(env, 'ANNULMENT_RETRY_BASE_MS') ?? settings.ANNULMENT_RETRY_BASE_MS.default,
    }),
    queue: Object.freeze({
      maintenanceIntervalSeconds:
        integer(env, 'QUEUE_MAINTENANCE_SECONDS') ?? settings.QUEUE_MAINTENANCE_SECONDS.default,
    }),
    sequenceWarnings: Object.freeze({
      lowStock: integer(env, 'SEQUENCE_LOW_STOCK') ?? settings.SEQUENCE_LOW_STOCK.default,
      expiringDays: integer(env, 'SEQUENCE_EXPIRING_DAYS') ?? settings.SEQUENCE_EXPIRING_DAYS.default,
    }),
    taxpayersImport: Object.freeze({
      url: url(env, 'TAXPAYERS_IMPORT_URL'),
      cron: cron(env, 'TAXPAYERS_IMPORT_CRON') ?? settings.TAXPAYERS_IMPORT_CRON.default,
    }),
    outboundAllowPrivate: outboundAllowPrivate(env, fiscalEnv, production),
    webhooks: webhooks(env),
    mail: mail(env, production),
    archive: archive(env),
  });
}

export function loadConfig(): Config {
  return parseConfig(process.env);
}
