import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, maxRetryDelayMs, parseConfig, settings, type Setting } from './config.js';
import { databaseTarget } from './platform/db/database-target.js';
import { deliveryPolicy } from './modules/sending/index.js';

const hexKey = randomBytes(32).toString('hex');

describe('parseConfig defaults', () => {
  const config = parseConfig({});

  it('listens on 127.0.0.1:3000 in development for the TEST environment', () => {
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.nodeEnv, 'development');
    assert.equal(config.fiscalEnv, 'TEST');
    assert.equal(config.logLevel, 'info');
    assert.equal(config.receiverAuthMode, 'required');
  });

  it('runs embedded: PGlite and the in-memory cache when no DATABASE_URL or REDIS_URL is given', () => {
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.databasePoolSize, undefined, 'the database default (20) applies');
    assert.equal(config.redisUrl, undefined);
  });

  it('reads the pool size per process for DATABASE_URL', () => {
    assert.equal(parseConfig({ DATABASE_URL: 'postgres://db/ecf', DATABASE_POOL_SIZE: '35' }).databasePoolSize, 35);
  });

  it('opens PGlite under DATA_DIR (or the directory given) keeping 256 MB free, else PostgreSQL with DATABASE_POOL_SIZE connections (20 by default)', () => {
    const reserve = 256 * 1_048_576;
    assert.deepEqual(databaseTarget(config), { kind: 'pglite', dataDir: resolve('./data'), diskReserveBytes: reserve });
    assert.deepEqual(databaseTarget(config, '/srv/ecf/sandbox'), {
      kind: 'pglite',
      dataDir: '/srv/ecf/sandbox',
      diskReserveBytes: reserve,
    });
    assert.deepEqual(databaseTarget(parseConfig({ EMBEDDED_DISK_RESERVE_MB: '0' })), {
      kind: 'pglite',
      dataDir: resolve('./data'),
      diskReserveBytes: 0,
    });
    assert.deepEqual(databaseTarget(parseConfig({ DATABASE_URL: 'postgres://db/ecf' }), '/srv/ecf/sandbox'), {
      kind: 'postgres',
      url: 'postgres://db/ecf',
      poolSize: 20,
      connectTimeoutMs: 5_000,
      statementTimeoutMs: 30_000,
    });
    assert.deepEqual(
      databaseTarget(
        parseConfig({
          DATABASE_URL: 'postgres://db/ecf',
          DATABASE_POOL_SIZE: '35',
          DATABASE_CONNECT_TIMEOUT_MS: '2000',
          DATABASE_STATEMENT_TIMEOUT_MS: '0',
        }),
      ),
      { kind: 'postgres', url: 'postgres://db/ecf', poolSize: 35, connectTimeoutMs: 2_000, statementTimeoutMs: 0 },
    );
  });

  it('keeps data under ./data and files under DATA_DIR/blobs', () => {
    assert.equal(config.dataDir, resolve('./data'));
    assert.deepEqual(config.storage, { kind: 'fs', root: resolve('./data/blobs') });
    const elsewhere = parseConfig({ DATA_DIR: '/srv/ecf' });
    assert.equal(elsewhere.dataDir, '/srv/ecf');
    assert.deepEqual(elsewhere.storage, { kind: 'fs', root: '/srv/ecf/blobs' });
    assert.deepEqual(parseConfig({ DATA_DIR: '/srv/ecf', STORAGE_DIR: '/mnt/archive' }).storage, {
      kind: 'fs',
      root: '/mnt/archive',
    });
  });

  it('leaves the optional secrets unset and publishes the OpenAPI contract outside production', () => {
    assert.equal(config.opsToken, undefined);
    assert.equal(config.masterKey, undefined);
    assert.equal(config.cloudSigningSecret, undefined);
    assert.equal(config.openApiEnabled, true);
    assert.equal(config.xsdDir, undefined);
    assert.equal(config.publicBaseUrl, undefined);
  });

  it('is silent under NODE_ENV=test and hides the contract in production', () => {
    assert.equal(parseConfig({ NODE_ENV: 'test' }).logLevel, 'silent');
    assert.equal(parseConfig({ NODE_ENV: 'production', MASTER_KEY: hexKey }).openApiEnabled, false);
    assert.equal(
      parseConfig({ NODE_ENV: 'production', MASTER_KEY: hexKey, OPENAPI_ENABLED: 'true' }).openApiEnabled,
      true,
    );
  });

  it('lowers background processes to niceness 10 unless told otherwise', () => {
    assert.equal(parseConfig({}).backgroundNice, 10);
    assert.equal(parseConfig({ BACKGROUND_NICE: '0' }).backgroundNice, 0);
    assert.equal(parseConfig({ BACKGROUND_NICE: '19' }).backgroundNice, 19);
  });

  it('treats empty and blank values as unset', () => {
    const blank = parseConfig({ PORT: '', OPS_TOKEN: '', REDIS_URL: '  ', FISCAL_ENV: '', LOG_LEVEL: ' ' });
    assert.equal(blank.port, 3000);
    assert.equal(blank.opsToken, undefined);
    assert.equal(blank.redisUrl, undefined);
    assert.equal(blank.fiscalEnv, 'TEST');
    assert.equal(blank.logLevel, 'info');
  });
});

describe('parseConfig with values', () => {
  it('reads what it is given', () => {
    const config = parseConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      FISCAL_ENV: 'CERT',
      DATABASE_URL: 'postgres://ecf@db:5432/ecf',
      REDIS_URL: 'redis://cache:6379',
      OPS_TOKEN: 'a-long-enough-ops-token',
      LOG_LEVEL: 'debug',
      RECEIVER_AUTH_MODE: 'optional',
    });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.fiscalEnv, 'CERT');
    assert.equal(config.databaseUrl, 'postgres://ecf@db:5432/ecf');
    assert.equal(config.redisUrl, 'redis://cache:6379');
    assert.equal(config.opsToken, 'a-long-enough-ops-token');
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.receiverAuthMode, 'optional');
  });

  it('reads MASTER_KEY as 64 hex characters or as base64 of 32 bytes', () => {
    const bytes = randomBytes(32);
    assert.deepEqual(parseConfig({ MASTER_KEY: bytes.toString('hex') }).masterKey, bytes);
    assert.deepEqual(parseConfig({ MASTER_KEY: bytes.toString('base64') }).masterKey, bytes);
  });

  it('reads S3 storage', () => {
    const config = parseConfig({
      STORAGE: 's3',
      S3_BUCKET: 'archive',
      S3_ENDPOINT: 'http://127.0.0.1:4569',
      S3_OBJECT_LOCK_DAYS: '3650',
      S3_REQUEST_TIMEOUT_MS: '2500',
    });
    assert.deepEqual(config.storage, {
      kind: 's3',
      s3: {
        endpoint: 'http://127.0.0.1:4569',
        bucket: 'archive',
        region: 'us-east-1',
        accessKeyId: undefined,
        secretAccessKey: undefined,
        forcePathStyle: true,
        objectLockDays: 3650,
        connectTimeoutMs: 3000,
        requestTimeoutMs: 2500,
      },
    });
  });

  it('reads PRODUCTION_ALLOW as the overrides it names, none when unset', () => {
    assert.deepEqual(parseConfig({}).productionAllow, []);
    assert.deepEqual(parseConfig({ PRODUCTION_ALLOW: 'fs-blobs , s3-without-object-lock' }).productionAllow, [
      'fs-blobs',
      's3-without-object-lock',
    ]);
  });

  it('accepts production with a master key', () => {
    assert.equal(parseConfig({ NODE_ENV: 'production', MASTER_KEY: hexKey }).nodeEnv, 'production');
    assert.equal(parseConfig({ FISCAL_ENV: 'PRODUCTION', MASTER_KEY: hexKey }).fiscalEnv, 'PRODUCTION');
  });
});

describe('parseConfig refuses a bad value, naming the variable', () => {
  const production = { NODE_ENV: 'production', MASTER_KEY: hexKey };
  const cases: [string, Record<string, string>, string][] = [
    ['PORT=abc', { PORT: 'abc' }, 'PORT'],
    ['PORT=70000', { PORT: '70000' }, 'PORT'],
    ['PORT=-1', { PORT: '-1' }, 'PORT'],
    ['PORT=80.5', { PORT: '80.5' }, 'PORT'],
    ['BACKGROUND_NICE=20', { BACKGROUND_NICE: '20' }, 'BACKGROUND_NICE'],
    ['BACKGROUND_NICE=-5', { BACKGROUND_NICE: '-5' }, 'BACKGROUND_NICE'],
    ['FISCAL_ENV=DEV', { FISCAL_ENV: 'DEV' }, 'FISCAL_ENV'],
    ['FISCAL_ENV=test (case matters)', { FISCAL_ENV: 'test' }, 'FISCAL_ENV'],
    ['NODE_ENV=staging', { NODE_ENV: 'staging' }, 'NODE_ENV'],
    ['DATABASE_URL=mysql://x', { DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    ['DATABASE_URL that is no URL', { DATABASE_URL: 'localhost:5432/ecf' }, 'DATABASE_URL'],
    ['REDIS_URL=http://cache', { REDIS_URL: 'http://cache' }, 'REDIS_URL'],
    ['MASTER_KEY too short (hex)', { MASTER_KEY: hexKey.slice(0, 32) }, 'MASTER_KEY'],
    ['MASTER_KEY too short (base64)', { MASTER_KEY: randomBytes(16).toString('base64') }, 'MASTER_KEY'],
    ['MASTER_KEY too long', { MASTER_KEY: randomBytes(48).toString('base64') }, 'MASTER_KEY'],
    ['MASTER_KEY missing with NODE_ENV=production', { NODE_ENV: 'production' }, 'MASTER_KEY'],
    ['MASTER_KEY missing with FISCAL_ENV=PRODUCTION', { FISCAL_ENV: 'PRODUCTION' }, 'MASTER_KEY'],
    ['MASTER_KEY blank with NODE_ENV=production', { NODE_ENV: 'production', MASTER_KEY: ' ' }, 'MASTER_KEY'],
    ['STORAGE=s3 without S3_BUCKET', { STORAGE: 's3' }, 'S3_BUCKET'],
    ['STORAGE=gcs', { STORAGE: 'gcs' }, 'STORAGE'],
    ['PRODUCTION_ALLOW naming no override', { PRODUCTION_ALLOW: 'pglite' }, 'PRODUCTION_ALLOW'],
    ['PRODUCTION_ALLOW with an empty name', { PRODUCTION_ALLOW: 'fs-blobs,,' }, 'PRODUCTION_ALLOW'],
    ['S3_OBJECT_LOCK_DAYS=0', { STORAGE: 's3', S3_BUCKET: 'b', S3_OBJECT_LOCK_DAYS: '0' }, 'S3_OBJECT_LOCK_DAYS'],
    ['S3_ENDPOINT=ftp://x', { STORAGE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'ftp://x' }, 'S3_ENDPOINT'],
    ['OPS_TOKEN too short', { OPS_TOKEN: 'short-token' }, 'OPS_TOKEN'],
    ['CLOUD_SIGNING_SECRET too short', { CLOUD_SIGNING_SECRET: 'not-long-enough' }, 'CLOUD_SIGNING_SECRET'],
    ['LOG_LEVEL=loud', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    ['DATABASE_POOL_SIZE=0', { DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    ['OPENAPI_ENABLED=maybe', { OPENAPI_ENABLED: 'maybe' }, 'OPENAPI_ENABLED'],
    ['RECEIVER_AUTH_MODE=sometimes', { RECEIVER_AUTH_MODE: 'sometimes' }, 'RECEIVER_AUTH_MODE'],
    ['PUBLIC_BASE_URL=ftp://x', { PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL'],
    ['SMTP_URL=http://mail', { SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    ['SMTP_FROM that is no address', { SMTP_FROM: 'Facturas <facturas@example.com>' }, 'SMTP_FROM'],
    ['SMTP_FROM missing with SMTP_URL in production', { ...production, SMTP_URL: 'smtp://mail:587' }, 'SMTP_FROM'],
    ['SMTP_TIMEOUT_MS=0', { SMTP_TIMEOUT_MS: '0' }, 'SMTP_TIMEOUT_MS'],
  ];
  for (const [label, env, variable] of cases) {
    it(label, () => {
      assert.throws(
        () => parseConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
          assert.equal(error.name, 'ConfigError');
          assert.match(error.message, new RegExp(`^Invalid configuration: ${variable} `));
          return true;
        },
      );
    });
  }

  it('does not echo a rejected secret in the message', () => {
    const secrets: Record<string, string>[] = [
      { MASTER_KEY: 'c2VjcmV0LW1hc3Rlci1rZXk=' },
      { OPS_TOKEN: 'secret-token' },
      { CLOUD_SIGNING_SECRET: 'secret-signing' },
      { DATABASE_URL: 'mysql://ecf:hunter2-secret@db/ecf' },
      { REDIS_URL: 'http://:hunter2-secret@cache' },
      { SMTP_URL: 'http://facturas:hunter2-secret@mail' },
    ];
    for (const env of secrets) {
      const [value] = Object.values(env);
      assert.throws(
        () => parseConfig(env),
        (error: unknown) =>
          error instanceof ConfigError && !error.message.includes(value ?? '') && !error.message.includes('hunter2'),
      );
    }
  });
});

describe('parseConfig: e-mail', () => {
  it('has no SMTP server by default, sends as the placeholder address, and waits 15 s for the server', () => {
    assert.deepEqual(parseConfig({}).mail, { url: undefined, from: 'facturas@ecf-service.invalid', timeoutMs: 15_000 });
  });

  it('reads the server, the address sent from and the timeout', () => {
    const mail = parseConfig({
      NODE_ENV: 'production',
      MASTER_KEY: hexKey,
      SMTP_URL: 'smtps://facturas:secreto@mail.example.com:465',
      SMTP_FROM: 'facturas@example.com',
      SMTP_TIMEOUT_MS: '5000',
    }).mail;
    assert.deepEqual(mail, {
      url: 'smtps://facturas:secreto@mail.example.com:465',
      from: 'facturas@example.com',
      timeoutMs: 5_000,
    });
    assert.ok(Object.isFrozen(mail));
  });
});

describe('the parsed config is frozen', () => {
  it('refuses changes at the top level', () => {
    const config = parseConfig({ OPS_TOKEN: 'a-long-enough-ops-token' });
    assert.ok(Object.isFrozen(config));
    assert.throws(() => {
      (config as { port: number }).port = 1;
    }, TypeError);
    assert.throws(() => {
      (config as { opsToken: string | undefined }).opsToken = undefined;
    }, TypeError);
    assert.equal(config.port, 3000);
    assert.equal(config.opsToken, 'a-long-enough-ops-token');
  });

  it('refuses changes to the storage settings too', () => {
    const fs = parseConfig({});
    assert.ok(Object.isFrozen(fs.storage));
    assert.throws(() => {
      (fs.storage as { root: string }).root = '/tmp/elsewhere';
    }, TypeError);
    const s3 = parseConfig({ STORAGE: 's3', S3_BUCKET: 'archive' });
    if (s3.storage.kind !== 's3') throw new Error('expected s3 storage');
    assert.ok(Object.isFrozen(s3.storage));
    assert.ok(Object.isFrozen(s3.storage.s3));
    assert.throws(() => {
      (s3.storage as { s3: { bucket: string } }).s3.bucket = 'other';
    }, TypeError);
    assert.equal(s3.storage.s3.bucket, 'archive');
  });
});

describe('parseConfig: where DGII is', () => {
  it('uses the embedded sandbox for TEST when no DGII URL is given, and the real hosts otherwise', () => {
    const embedded = parseConfig({});
    assert.equal(embedded.dgii.sandbox, 'embedded');
    assert.equal(embedded.dgii.sandboxPort, 0);
    assert.equal(embedded.dgii.sandboxAdminToken, undefined);
    const production = parseConfig({ FISCAL_ENV: 'PRODUCTION', MASTER_KEY: hexKey });
    assert.deepEqual(
      { ...production.dgii },
      {
        baseUrl: 'https://ecf.dgii.gov.do',
        fcBaseUrl: 'https://fc.dgii.gov.do',
        statusBaseUrl: 'https://statusecf.dgii.gov.do',
        sandbox: 'off',
        sandboxPort: 0,
        sandboxAdminToken: undefined,
      },
    );
    const elsewhere = parseConfig({
      DGII_BASE_URL: 'http://127.0.0.1:4010/',
      DGII_FC_BASE_URL: 'http://127.0.0.1:4010',
    });
    assert.equal(elsewhere.dgii.sandbox, 'off');
    assert.equal(elsewhere.dgii.baseUrl, 'http://127.0.0.1:4010');
    assert.equal(elsewhere.dgii.statusBaseUrl, 'https://statusecf.dgii.gov.do');
  });

  it('refuses an embedded sandbox outside TEST, a bad DGII URL and a short admin token', () => {
    const masterKey = Buffer.alloc(32, 7).toString('base64');
    assert.throws(
      () => parseConfig({ FISCAL_ENV: 'PRODUCTION', MASTER_KEY: masterKey, DGII_SANDBOX: 'embedded' }),
      /DGII_SANDBOX cannot be embedded with FISCAL_ENV=PRODUCTION/,
    );
    assert.equal(parseConfig({ FISCAL_ENV: 'CERT' }).dgii.sandbox, 'embedded');
    assert.equal(parseConfig({ FISCAL_ENV: 'PRODUCTION', MASTER_KEY: masterKey }).dgii.sandbox, 'off');
    assert.throws(() => parseConfig({ DGII_BASE_URL: 'ftp://dgii' }), /DGII_BASE_URL must use http: or https:/);
    assert.throws(
      () => parseConfig({ SANDBOX_ADMIN_TOKEN: 'short' }),
      /SANDBOX_ADMIN_TOKEN must be at least 16 characters/,
    );
    assert.throws(() => parseConfig({ SANDBOX_PORT: '70000' }), /SANDBOX_PORT/);
  });
});

describe('parseConfig: sending to DGII', () => {
  it('defaults to 8 attempts from 2 s, a 90 s lease, 64 documents at once and the queue maintained every 2 minutes', () => {
    const config = parseConfig({});
    assert.deepEqual({ ...config.sending }, { maxAttempts: 8, retryBaseMs: 2_000, leaseMs: 90_000, concurrency: 64 });
    assert.deepEqual({ ...config.queue }, { maintenanceIntervalSeconds: 120 });
    assert.deepEqual(
      { ...config.dgiiClient },
      {
        connectTimeoutMs: 5_000,
        responseTimeoutMs: 30_000,
        breakerFailureThreshold: 5,
        breakerOpenMs: 30_000,
        statusApiKey: undefined,
      },
    );
  });

  it('sends with 8 attempts from 2 s up to 5 min apart, a 90 s lease and a minute before asking about an uncertain send', () => {
    assert.deepEqual(deliveryPolicy(parseConfig({})), {
      maxAttempts: 8,
      retryDelayMs: 2_000,
      maxRetryDelayMs: 5 * 60_000,
      leaseMs: 90_000,
      firstPollDelayMs: 1_000,
      maxPollDelayMs: 5 * 60_000,
      notFoundAfterPolls: 5,
      uncertainSettleMs: 60_000,
    });
    assert.deepEqual(maxRetryDelayMs, {
      sending: 5 * 60_000,
      annulments: 5 * 60_000,
      commercialResponses: 30 * 60_000,
      buyerDeliveries: 30 * 60_000,
    });
  });

  it('takes the documents one worker sends at once from SEND_CONCURRENCY', () => {
    assert.equal(parseConfig({ SEND_CONCURRENCY: '8' }).sending.concurrency, 8);
  });

  it('stretches the default lease past two DGII calls when the timeouts are long', () => {
    assert.equal(parseConfig({ DGII_RESPONSE_TIMEOUT_MS: '60000' }).sending.leaseMs, 141_000);
  });

  it('refuses a lease shorter than two DGII calls, and bad attempts, delays and maintenance intervals', () => {
    assert.throws(() => parseConfig({ SEND_LEASE_SECONDS: '60' }), /SEND_LEASE_SECONDS must be at least 71/);
    assert.equal(parseConfig({ SEND_LEASE_SECONDS: '71' }).sending.leaseMs, 71_000);
    assert.throws(() => parseConfig({ QUEUE_MAINTENANCE_SECONDS: '0' }), /QUEUE_MAINTENANCE_SECONDS/);
    assert.throws(() => parseConfig({ SEND_MAX_ATTEMPTS: '0' }), /SEND_MAX_ATTEMPTS/);
    assert.throws(
      () => parseConfig({ SEND_CONCURRENCY: '0' }),
      /SEND_CONCURRENCY must be a whole number from 1 to 512/,
    );
    assert.throws(() => parseConfig({ SEND_CONCURRENCY: '513' }), /SEND_CONCURRENCY/);
    assert.throws(() => parseConfig({ SEND_RETRY_BASE_MS: 'soon' }), /SEND_RETRY_BASE_MS/);
    assert.throws(() => parseConfig({ DGII_CONNECT_TIMEOUT_MS: '-1' }), /DGII_CONNECT_TIMEOUT_MS/);
  });
});

describe('the declarations of src/config.ts', () => {
  // DATABASE_URL makes the pool size count; DGII_SANDBOX is fixed, since naming any DGII URL turns the sandbox off.
  const base = { DATABASE_URL: 'postgres://db/ecf', DGII_SANDBOX: 'off' };
  const effective = (env: Record<string, string>) => {
    const config = parseConfig(env);
    return { ...config, databasePoolSize: databaseTarget(config) };
  };

  it('hold the defaults parseConfig applies: a variable set to its declared default changes nothing', () => {
    for (const [name, setting] of Object.entries<Setting>(settings)) {
      if (setting.default !== undefined)
        assert.deepEqual(effective({ ...base, [name]: String(setting.default) }), effective(base), name);
    }
  });

  it('check every variable that is set, one its other settings leave unused too', () => {
    assert.throws(() => parseConfig({ STORAGE: 'fs', S3_ENDPOINT: 'ftp://x' }), /S3_ENDPOINT must use http: or https:/);
    assert.throws(() => parseConfig({ SMTP_TIMEOUT_MS: '0' }), /SMTP_TIMEOUT_MS must be a whole number from 100/);
  });

  it('give Config each value in the unit it holds: durations in milliseconds, paths resolved, URLs without a trailing slash', () => {
    const config = parseConfig({
      WEBHOOKS_SECRET_GRACE_HOURS: '2',
      WEBHOOKS_DISABLE_AFTER_DAYS: '3',
      ARCHIVE_VERIFY_MB_PER_S: '0',
      ARCHIVE_ORPHAN_GRACE_MINUTES: '5',
      DGII_STATUS_BASE_URL: 'http://127.0.0.1:4010//',
    });
    assert.equal(config.webhooks.secretGraceMs, 2 * 3_600_000);
    assert.equal(config.webhooks.disableAfterMs, 3 * 86_400_000);
    assert.equal(config.archive.bytesPerSecond, undefined, '0: no limit');
    assert.equal(parseConfig({}).archive.bytesPerSecond, 8_000_000);
    assert.equal(config.archive.orphanGraceMs, 5 * 60_000);
    assert.equal(config.dgii.statusBaseUrl, 'http://127.0.0.1:4010');
  });

  it('name every variable parseConfig reads, and parseConfig reads every one', () => {
    const read = new Set<string>();
    const recording = (env: Record<string, string>) =>
      new Proxy(env, {
        get: (target, name) => {
          if (typeof name === 'string') read.add(name);
          return typeof name === 'string' ? target[name] : undefined;
        },
      });
    parseConfig(recording({}));
    parseConfig(recording({ STORAGE: 's3', S3_BUCKET: 'archive' }));
    assert.deepEqual([...read].sort(), Object.keys(settings).sort());
  });
});
