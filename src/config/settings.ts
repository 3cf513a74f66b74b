// Every environment variable the service reads, declared once: its name, where its value sits in Config, its
// default, what it accepts and what it means. config.ts derives the Config type and parseConfig from this tree, and
// scripts/config-table.ts generates the table of docs/configuration.md from it (test/config-readme.test.ts fails
// when they differ), in this order. A setting is added here and nowhere else; one whose default depends on others
// is derived in config.ts, the one place for that.
import { resolve } from 'node:path';

import { fiscalEnvironments } from '../fiscal/environment.js';
import { choice, cron, flag, integer, key, text, url } from './kinds.js';

/** required: a receiver token on the POST receiver routes; optional: a valid token or none; disabled: tokens ignored. */
export const receiverAuthModes = ['required', 'optional', 'disabled'] as const;
export type ReceiverAuthMode = (typeof receiverAuthModes)[number];

/**
 * What PRODUCTION_ALLOW may name: the refusals of a PRODUCTION start an operator can have a real reason to override
 * (docs/operations.md, "What a production start refuses"). PGlite, a missing OPS_TOKEN and missing XSDs have none.
 */
export const productionOverrides = ['fs-blobs', 's3-without-object-lock'] as const;
export type ProductionOverride = (typeof productionOverrides)[number];
const overrideName = `(?:${productionOverrides.join('|')})`;

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

const minutes = (ms: number) => String(ms / 60_000);

// Config holds durations in milliseconds, whatever unit a variable is written in.
const secondsToMs = (seconds: number) => seconds * 1_000;
const minutesToMs = (count: number) => count * 60_000;
const hoursToMs = (hours: number) => hours * 3_600_000;
const daysToMs = (days: number) => days * 86_400_000;
const withoutTrailingSlash = (base: string) => base.replace(/\/+$/, '');

export const configSettings = {
  port: integer('PORT', {
    default: 3000,
    min: 0,
    max: 65_535,
    doc: 'HTTP port (`0` picks a free one)',
  }),
  backgroundNice: integer('BACKGROUND_NICE', {
    default: 10,
    min: 0,
    max: 19,
    doc: "CPU niceness that `ecf worker` and `ecf scheduler` take, every thread of them (V8's garbage collection and compilation threads too), so an API on the same host answers first; `0` leaves it",
  }),
  host: text('HOST', {
    default: '127.0.0.1',
    shape: 'an address',
    doc: 'interface to listen on (`0.0.0.0` in containers)',
  }),
  nodeEnv: choice('NODE_ENV', {
    values: ['development', 'production', 'test'],
    default: 'development',
    doc: '`production`: `MASTER_KEY` required, `/docs` and private webhook targets off unless asked for; `test`: nothing logged unless asked for',
  }),
  fiscalEnv: choice('FISCAL_ENV', {
    values: fiscalEnvironments,
    default: 'TEST',
    doc: 'DGII\'s environment (`testecf`, `certecf`, `ecf`). An instance serves one environment; keys of another get 401. So does a database: the first instance to start on it sets its environment, and an instance of another one is refused at start (one database per environment). `PRODUCTION` refuses to start without PostgreSQL, S3 with Object Lock, DGII\'s XSDs and `OPS_TOKEN` (docs/operations.md, "What a production start refuses")',
  }),
  productionAllow: text('PRODUCTION_ALLOW', {
    default: undefined,
    shape: `a comma-separated list of ${productionOverrides.map((name) => `\`${name}\``).join(', ')}`,
    matches: {
      pattern: new RegExp(`^${overrideName}(?:\\s*,\\s*${overrideName})*$`),
      as: `a comma-separated list of ${productionOverrides.join(', ')}`,
    },
    to: (list) => (list === undefined ? [] : (list.split(',').map((name) => name.trim()) as ProductionOverride[])),
    doc: '`FISCAL_ENV=PRODUCTION` refuses to start on storage that does not keep the archive immutable; this overrides the refusals it names, each logged as a warning at every start: `fs-blobs` (`STORAGE=fs` on a WORM volume), `s3-without-object-lock` (a bucket whose own default retention locks every object). See docs/operations.md',
  }),
  dataDir: text('DATA_DIR', {
    default: './data',
    to: (dir) => resolve(dir),
    shape: 'a directory',
    doc: 'embedded database, blobs, generated master key, demo credentials',
  }),
  databaseUrl: url('DATABASE_URL', {
    protocols: ['postgres:', 'postgresql:'],
    default: undefined,
    doc: 'PostgreSQL; unset = embedded PGlite under `DATA_DIR/pgdata` (one process only; refused with `FISCAL_ENV=PRODUCTION`)',
  }),
  // Sending runs 64 attempts at once (their records batched), beside the API's requests, the poller and the webhook
  // loop: with 5 connections the sending bench waited 54 ms per checkout and sent 77 documents/s, with 20 it waited
  // 13 ms and sent 102/s.
  databasePoolSize: integer('DATABASE_POOL_SIZE', {
    default: 20,
    min: 1,
    max: 500,
    doc: "connections each process keeps to `DATABASE_URL`; keep processes × pool size under the server's `max_connections`",
  }),
  // While PostgreSQL is away (a restart, a failover) a request waits this long for a connection, then answers 503
  // database_unavailable with Retry-After.
  databaseConnectTimeoutMs: integer('DATABASE_CONNECT_TIMEOUT_MS', {
    default: 5_000,
    min: 100,
    max: 120_000,
    doc: 'how long a request or job waits for a connection to `DATABASE_URL` before it gives up (a request answers 503 `database_unavailable`)',
  }),
  // A statement stuck behind a lock or on a server that has stopped answering is cancelled by the server after
  // this long; migrations run without it (an index built on ten years of documents takes longer).
  databaseStatementTimeoutMs: integer('DATABASE_STATEMENT_TIMEOUT_MS', {
    default: 30_000,
    min: 0,
    max: 3_600_000,
    doc: "PostgreSQL's `statement_timeout` for the service's statements (`0`: none); migrations run without it. A request whose statement is cancelled answers 503 `database_unavailable`",
  }),
  // PGlite cannot come back from a COMMIT whose WAL write its full disk refused (the process hangs: pglite-gateway.ts),
  // so it stops writing first. 256 MB holds the WAL a checkpoint needs and what reads spill.
  embeddedDiskReserveMb: integer('EMBEDDED_DISK_RESERVE_MB', {
    default: 256,
    min: 0,
    max: 1_048_576,
    doc: 'on the embedded database (no `DATABASE_URL`): while the disk of `DATA_DIR` has less free than this, requests that write answer 507 `database_full` and reads go on (`0`: no reserve)',
  }),
  redisUrl: url('REDIS_URL', {
    protocols: ['redis:', 'rediss:'],
    default: undefined,
    doc: 'Redis, shared by the processes; unset = in-memory cache',
  }),
  storage: {
    kind: choice('STORAGE', {
      values: ['fs', 's3'],
      default: 'fs',
      doc: '`fs`: files under `STORAGE_DIR` (refused with `FISCAL_ENV=PRODUCTION` unless `PRODUCTION_ALLOW=fs-blobs`); `s3`: S3 or S3-compatible object storage. Archived files are read-only and written once, one directory per company and day: `documents/{company}/{yyyy-mm-dd}/{document}.{artefact}.v{n}.{json,xml}` and `received/{company}/{yyyy-mm-dd}/…` (the day, in GMT-4, the document was created or received; documents archived before this layout keep their recorded paths)',
    }),
    root: text('STORAGE_DIR', {
      default: undefined,
      shape: 'a directory',
      defaultNote: '`DATA_DIR/blobs`',
      doc: 'where `STORAGE=fs` keeps the archived files',
    }),
    s3: {
      endpoint: url('S3_ENDPOINT', {
        protocols: ['http:', 'https:'],
        default: undefined,
        doc: "an S3-compatible server's endpoint; unset = AWS S3",
      }),
      bucket: text('S3_BUCKET', {
        default: undefined,
        shape: 'a bucket name',
        doc: 'the bucket archived files go to; required with `STORAGE=s3`',
      }),
      region: text('S3_REGION', {
        default: 'us-east-1',
        shape: 'a region',
        doc: "the bucket's region",
      }),
      accessKeyId: text('S3_ACCESS_KEY_ID', {
        default: undefined,
        shape: 'an access key id',
        doc: "with `S3_SECRET_ACCESS_KEY`, the bucket's credentials; unset = the AWS SDK's own credential chain",
      }),
      secretAccessKey: text('S3_SECRET_ACCESS_KEY', {
        default: undefined,
        shape: 'a secret key',
        doc: 'the secret of `S3_ACCESS_KEY_ID`',
      }),
      forcePathStyle: flag('S3_FORCE_PATH_STYLE', {
        defaultNote: '`true` when `S3_ENDPOINT` is set, else `false`',
        doc: 'path-style requests (the bucket in the path, not in the host name), as most S3-compatible servers want',
      }),
      objectLockDays: integer('S3_OBJECT_LOCK_DAYS', {
        default: undefined,
        min: 1,
        max: 36_500,
        doc: 'when set, every archived object gets S3 Object Lock COMPLIANCE retention for that many days. Required with `FISCAL_ENV=PRODUCTION` (`3653`: ten years); a start with less warns of the shortfall',
      }),
      connectTimeoutMs: integer('S3_CONNECT_TIMEOUT_MS', {
        default: 3_000,
        min: 100,
        max: 120_000,
        doc: 'S3 client timeout to connect (TCP and TLS), per attempt; the AWS SDK makes up to three',
      }),
      requestTimeoutMs: integer('S3_REQUEST_TIMEOUT_MS', {
        default: 10_000,
        min: 100,
        max: 600_000,
        doc: "S3 client timeout from sending a request to S3's answer, and for the longest silence while its body arrives, per attempt; a call S3 does not finish in time answers the HTTP request 503 `storage_unavailable`",
      }),
    },
  },
  opsToken: text('OPS_TOKEN', {
    default: undefined,
    minLength: 16,
    doc: 'bearer token for `/metrics` and `/internal/*` (except `/internal/cloud/v1/*`); unset = those routes answer 404. Required with `FISCAL_ENV=PRODUCTION`',
  }),
  openApiEnabled: flag('OPENAPI_ENABLED', {
    defaultNote: '`true` outside production',
    doc: '`/docs` and `/docs-json`; in production they answer 404 unless `true`',
  }),
  masterKey: key('MASTER_KEY', {
    defaultNote: 'generated',
    doc: 'encrypts secrets at rest (certificate keys). Required when `NODE_ENV=production` or `FISCAL_ENV=PRODUCTION`; otherwise generated once into `DATA_DIR/master.key`. A key that does not match the database stops the start',
  }),
  cloudSigningSecret: text('CLOUD_SIGNING_SECRET', {
    default: undefined,
    minLength: 24,
    doc: 'shared secret of the control plane (API guide, "Tenancy"); unset = `/internal/cloud/v1/*` answer 404. `whsec_<base64>` is decoded as Standard Webhooks does',
  }),
  receiverAuthMode: choice('RECEIVER_AUTH_MODE', {
    values: receiverAuthModes,
    default: 'required',
    doc: "the receiver token on the POST receiver routes (`/{env}/{segment}/fe/recepcion/api/ecf` and `…/fe/aprobacioncomercial/api/ecf`): `required` (no token or a bad one → 401), `optional` (a valid token or none; a bad one → 401), `disabled` (tokens ignored). `required` suits DGII's simulator and the sandbox's counterpart, which authenticate when given the authentication URL",
  }),
  receiverLocalCompany: text('RECEIVER_LOCAL_COMPANY', {
    default: undefined,
    shape: 'an RNC or a company id',
    defaultNote: 'the demo company when the DGII sandbox is embedded, else none',
    doc: 'the company the local test path `/{env}/emisorreceptor/fe/...` serves',
  }),
  logLevel: choice('LOG_LEVEL', {
    values: logLevels,
    default: 'info',
    defaultNote: '`silent` under `NODE_ENV=test`',
    doc: 'the least severe level logged; `silent` logs nothing',
  }),
  logFormat: choice('LOG_FORMAT', {
    values: logFormats,
    default: 'auto',
    doc: '`auto`: one human-readable line per entry when stdout is a terminal and `NODE_ENV` is `development`, JSON lines otherwise; `pretty` or `json` choose one',
  }),
  xsdDir: text('ECF_XSD_DIR', {
    default: undefined,
    defaultNote: '`DATA_DIR/xsd` when `ecf xsd install` put a set there, else unset',
    shape: 'a directory',
    doc: "directory holding DGII's official XSDs, for schema validation of e-CF (tests point it at `../shared/dgii/xsd`); when set it wins over an installed set. `ecf xsd install <dir|zip|URL>` installs them into `DATA_DIR/xsd`; with neither, the model alone validates and the start warns (with `FISCAL_ENV=PRODUCTION` it refuses to start)",
  }),
  publicBaseUrl: url('PUBLIC_BASE_URL', {
    protocols: ['http:', 'https:'],
    default: undefined,
    defaultNote: 'the listen address',
    doc: 'base URL written into demo credentials and links, and the base of the receiver URLs given to DGII, which `ecf doctor` calls',
  }),
  sequenceWarnings: {
    lowStock: integer('SEQUENCE_LOW_STOCK', {
      default: 100,
      min: 0,
      max: 1_000_000_000,
      doc: 'numbers left of a type at which a `sequence.low_stock` event is recorded',
    }),
    expiringDays: integer('SEQUENCE_EXPIRING_DAYS', {
      default: 30,
      min: 0,
      max: 3_650,
      doc: 'days before a range in use expires at which a `sequence.expiring` event is recorded',
    }),
  },
  sending: {
    // A worker sends at most this many documents per DGII answer time (Little's law): DGII states 200 ms on average,
    // so 32 capped a worker near 160 documents/s; against the sandbox, 32 left documents waiting ~0.9 s for a free
    // sender while the sandbox could take more (sending bench: 390-406/s at 32, 427-519/s at 64).
    concurrency: integer('SEND_CONCURRENCY', {
      default: 64,
      min: 1,
      max: 512,
      doc: 'documents one worker sends to DGII at once, and verdicts one scheduler asks DGII about at once; one worker sends at most this many per DGII answer time (DGII states 200 ms on average). Lower it to be gentler with DGII; workers send side by side, so more workers send more',
    }),
    maxAttempts: integer('SEND_MAX_ATTEMPTS', {
      default: 8,
      min: 1,
      max: 100,
      doc: 'sending to DGII: attempts before a document is `send_failed` (and a failed job opens)',
    }),
    retryBaseMs: integer('SEND_RETRY_BASE_MS', {
      default: 2_000,
      min: 10,
      max: 3_600_000,
      doc: `sending to DGII: the first retry delay, doubled per attempt with jitter (at most ${minutes(maxRetryDelayMs.sending)} min)`,
    }),
    leaseMs: integer('SEND_LEASE_SECONDS', {
      default: 90,
      to: secondsToMs,
      min: 1,
      max: 3_600,
      defaultNote: 'more when the DGII timeouts ask for it',
      doc: "how long one worker holds a document while it talks to DGII; a killed worker's documents are taken up again after it. Must outlast two DGII calls (asking about the e-NCF, then sending), i.e. be more than 2 × (`DGII_CONNECT_TIMEOUT_MS` + `DGII_RESPONSE_TIMEOUT_MS`); a shorter value stops the start",
    }),
  },
  commercialResponses: {
    maxAttempts: integer('COMMERCIAL_RESPONSE_MAX_ATTEMPTS', {
      default: 8,
      min: 1,
      max: 100,
      doc: 'delivering a commercial response (ACECF) to the issuer and to DGII: attempts before a delivery is `exhausted`',
    }),
    retryBaseMs: integer('COMMERCIAL_RESPONSE_RETRY_BASE_MS', {
      default: 5_000,
      min: 10,
      max: 3_600_000,
      doc: `delivering a commercial response: the first retry delay, doubled per attempt with jitter (at most ${minutes(maxRetryDelayMs.commercialResponses)} min)`,
    }),
  },
  buyerDeliveries: {
    maxAttempts: integer('DELIVERY_MAX_ATTEMPTS', {
      default: 8,
      min: 1,
      max: 100,
      doc: "delivering an accepted e-CF to its buyer (the buyer's receiver, or e-mail): attempts before the delivery is `failed` and a failed job opens",
    }),
    retryBaseMs: integer('DELIVERY_RETRY_BASE_MS', {
      default: 10_000,
      min: 10,
      max: 3_600_000,
      doc: `delivering an e-CF to its buyer: the first retry delay, doubled per attempt with jitter, never before a receiver's Retry-After (at most ${minutes(maxRetryDelayMs.buyerDeliveries)} min)`,
    }),
  },
  annulments: {
    maxAttempts: integer('ANNULMENT_MAX_ATTEMPTS', {
      default: 8,
      min: 1,
      max: 100,
      doc: 'sending an annulment (ANECF) to DGII: attempts before the request is `failed` (`reintentar` sends it again)',
    }),
    retryBaseMs: integer('ANNULMENT_RETRY_BASE_MS', {
      default: 2_000,
      min: 10,
      max: 3_600_000,
      doc: `sending an annulment: the first retry delay, doubled per attempt with jitter (at most ${minutes(maxRetryDelayMs.annulments)} min)`,
    }),
  },
  queue: {
    maintenanceIntervalSeconds: integer('QUEUE_MAINTENANCE_SECONDS', {
      default: 120,
      min: 1,
      max: 3_600,
      doc: "how often the job queue fails jobs that ran past their expiry (a killed worker's stay active until then) so their retries run, and archives old jobs",
    }),
  },
  outboundAllowPrivate: flag('OUTBOUND_ALLOW_PRIVATE', {
    defaultNote: '`true` on the embedded single-machine setup (no `DATABASE_URL`, not production), else `false`',
    doc: "call loopback, private, link-local and metadata addresses on a tenant's behalf (webhooks, buyers' receivers, issuers' approval URLs; local demos, tests); refused with `FISCAL_ENV=PRODUCTION`",
  }),
  webhooks: {
    timeoutMs: integer('WEBHOOKS_TIMEOUT_MS', {
      default: 15_000,
      min: 100,
      max: 60_000,
      doc: 'a delivery succeeds on a 2xx within this time',
    }),
    secretGraceMs: integer('WEBHOOKS_SECRET_GRACE_HOURS', {
      default: 24,
      to: hoursToMs,
      min: 0,
      max: 720,
      doc: 'after a secret rotation, how long the old secret still signs deliveries beside the new one',
    }),
    dispatchIntervalMs: integer('WEBHOOKS_DISPATCH_INTERVAL_MS', {
      default: 250,
      min: 10,
      max: 60_000,
      doc: 'how often an idle worker fans out new events and claims deliveries due (at once after its own fan-out or a re-send in its process)',
    }),
    disableAfterMs: integer('WEBHOOKS_DISABLE_AFTER_DAYS', {
      default: 5,
      to: daysToMs,
      min: 1,
      max: 90,
      doc: 'after how many days of failures without a success an endpoint is disabled',
    }),
    retentionMs: integer('WEBHOOKS_RETENTION_DAYS', {
      default: 30,
      to: daysToMs,
      min: 1,
      max: 3_650,
      doc: 'how long settled webhook deliveries (with their attempts) and fanned-out events are kept',
    }),
    concurrency: integer('WEBHOOKS_CONCURRENCY', {
      default: 64,
      min: 1,
      max: 1_000,
      doc: 'how many deliveries one worker POSTs at once; workers claim deliveries side by side, so more workers deliver more',
    }),
  },
  mail: {
    url: url('SMTP_URL', {
      protocols: ['smtp:', 'smtps:'],
      default: undefined,
      defaultNote: "unset (with the embedded DGII sandbox: the sandbox's mail catcher)",
      doc: 'the SMTP server e-mail to buyers goes through (the PDF and the signed XML, for buyers who are not electronic receivers): `smtp://` uses STARTTLS when the server offers it, `smtps://` implicit TLS; credentials go in the userinfo (`smtp://user:password@host:587`). Unset = no e-mail, and the start warns; `ecf start` with the embedded DGII sandbox catches the mail in the sandbox instead',
    }),
    from: text('SMTP_FROM', {
      default: 'facturas@ecf-service.invalid',
      shape: 'an e-mail address',
      // The envelope sender must be a plain address.
      matches: {
        pattern: /^[^\s@<>"(),;:]+@[^\s@<>"(),;:]+\.[^\s@<>"(),;:]+$/,
        as: 'an e-mail address such as facturas@example.com',
      },
      defaultNote: 'required with `SMTP_URL` in production',
      doc: "the address e-mail is sent from (envelope and `From`); the name shown beside it is the issuing company's. The default's `.invalid` domain (RFC 2606) only suits the mail catcher and local tests",
    }),
    timeoutMs: integer('SMTP_TIMEOUT_MS', {
      default: 15_000,
      min: 100,
      max: 300_000,
      doc: "SMTP client timeout to connect, and for each of the server's replies; a send that runs past it is retried later",
    }),
  },
  archive: {
    verifyDays: integer('ARCHIVE_VERIFY_DAYS', {
      default: 7,
      min: 1,
      max: 365,
      doc: 'the rolling check of the archive starts a pass over every artefact this often',
    }),
    bytesPerSecond: integer('ARCHIVE_VERIFY_MB_PER_S', {
      default: 8,
      to: (megabytes) => (megabytes === 0 ? undefined : megabytes * 1_000_000),
      min: 0,
      max: 10_000,
      doc: 'the most the archive checks read from the store, in MB a second (`0`: no limit)',
    }),
    orphanGraceMs: integer('ARCHIVE_ORPHAN_GRACE_MINUTES', {
      default: 60,
      to: minutesToMs,
      min: 0,
      max: 10_080,
      doc: 'a stored object no record names is an orphan finding only once it is this old (a write in progress is not)',
    }),
    leaseMs: integer('ARCHIVE_LEASE_SECONDS', {
      default: 120,
      to: secondsToMs,
      min: 10,
      max: 3_600,
      doc: 'the archive checks run on one worker at a time, which renews its hold on them every 5 s and before each batch or slice (500 files) it reads: keep this longer than a slice takes at `ARCHIVE_VERIFY_MB_PER_S`. A worker that stops without letting go (killed, its machine lost) is replaced by another this long after its last renewal',
    }),
    recentSettleMs: integer('ARCHIVE_RECENT_SETTLE_SECONDS', {
      default: 60,
      to: secondsToMs,
      min: 0,
      max: 86_400,
      doc: 'the worker checks each newly archived file once it is this old (between the full passes)',
    }),
  },
  taxpayersImport: {
    url: url('TAXPAYERS_IMPORT_URL', {
      protocols: ['http:', 'https:'],
      default: undefined,
      doc: "URL of DGII's taxpayer listing (e.g. `https://dgii.gov.do/app/WebApps/Consultas/RNC/DGII_RNC.zip`) for the scheduled registry import; unset = no scheduled import (`ecf taxpayers import <file-or-url>` still works by hand)",
    }),
    cron: cron('TAXPAYERS_IMPORT_CRON', {
      default: '30 4 * * *',
      doc: 'when the scheduled import runs (America/Santo_Domingo time)',
    }),
  },
  dgii: {
    baseUrl: url('DGII_BASE_URL', {
      protocols: ['http:', 'https:'],
      default: 'https://ecf.dgii.gov.do',
      to: withoutTrailingSlash,
      doc: "where DGII's e-CF services are; point the three `DGII_*_URL` at an `ecf sandbox` to use it as DGII",
    }),
    fcBaseUrl: url('DGII_FC_BASE_URL', {
      protocols: ['http:', 'https:'],
      default: 'https://fc.dgii.gov.do',
      to: withoutTrailingSlash,
      doc: "where DGII's service for consumer-invoice summaries (RFCE, under DOP 250,000) is",
    }),
    statusBaseUrl: url('DGII_STATUS_BASE_URL', {
      protocols: ['http:', 'https:'],
      default: 'https://statusecf.dgii.gov.do',
      to: withoutTrailingSlash,
      doc: "where DGII's service status (maintenance windows) is",
    }),
    sandbox: choice('DGII_SANDBOX', {
      values: ['embedded', 'off'],
      default: undefined,
      defaultNote: '`embedded` for `TEST` and `CERT` when no DGII URL is set, else `off`',
      doc: '`embedded`: `ecf start` runs the DGII sandbox beside the service, on the same database, and uses it as DGII (never in PRODUCTION)',
    }),
    sandboxPort: integer('SANDBOX_PORT', {
      default: 0,
      min: 0,
      max: 65_535,
      defaultNote: 'a free port',
      doc: 'port of the embedded sandbox; `ecf start` prints its URL with the demo key',
    }),
    sandboxAdminToken: text('SANDBOX_ADMIN_TOKEN', {
      default: undefined,
      minLength: 16,
      defaultNote: 'unset (embedded: one made once and kept in `DATA_DIR/sandbox-admin-token`)',
      doc: "enables the sandbox's `/sandbox-admin` routes and requires this bearer token on them (`Authorization: Bearer`); the embedded sandbox always has them, with this token or its own",
    }),
  },
  dgiiClient: {
    connectTimeoutMs: integer('DGII_CONNECT_TIMEOUT_MS', {
      default: 5_000,
      min: 100,
      max: 120_000,
      doc: 'DGII client timeout to connect (TCP and TLS)',
    }),
    responseTimeoutMs: integer('DGII_RESPONSE_TIMEOUT_MS', {
      default: 30_000,
      min: 100,
      max: 600_000,
      doc: "DGII client timeout from connection to the end of DGII's answer; a send that runs past it is *uncertain* and is resolved by asking DGII before any resend",
    }),
    breakerFailureThreshold: integer('DGII_BREAKER_FAILURES', {
      default: 5,
      min: 1,
      max: 1_000,
      doc: 'circuit breaker per DGII service: consecutive failures that open it',
    }),
    breakerOpenMs: integer('DGII_BREAKER_OPEN_MS', {
      default: 30_000,
      min: 100,
      max: 3_600_000,
      doc: 'circuit breaker per DGII service: how long it short-fails before letting one probe through',
    }),
    statusApiKey: text('DGII_STATUS_API_KEY', {
      default: undefined,
      shape: "DGII's API key",
      doc: "API key for DGII's status service (`statusecf`, maintenance windows); unset = no status checks",
    }),
  },
};
