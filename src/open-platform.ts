// The platform adapters a process needs, built from config: the database (migrated and checked), cache, blob
// store, DGII's schemas and the XML thread, the DGII target and client, the mailer. buildApplication (src/app.ts)
// wires the modules onto them; nothing else constructs adapters.
import { databaseTarget } from './platform/db/database-target.js';
import { configuredDgiiClient, createHttpTransport, createReceiverClient, type DgiiCredentials } from './dgii/index.js';
import { keyEnvironmentOtherThan } from './modules/api-keys/index.js';
import { sessionTokenSealing } from './modules/dgii-sessions/index.js';
import type { Platform } from './modules/module.js';
import { createCache } from './platform/cache/index.js';
import { systemClock } from './platform/clock.js';
import type { Closers } from './platform/closers.js';
import { openDatabase, type DatabaseHandle } from './platform/db/database.js';
import { checkDatabaseEnvironment } from './platform/db/environment-guard.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { checkMasterKey, resolveMasterKey } from './platform/master-key.js';
import { createMailer } from './platform/mail/index.js';
import { createLogger, logLines } from './platform/observability/logger.js';
import { createMetrics, type Metrics } from './platform/observability/metrics.js';
import { createAbandonedWrites } from './platform/storage/abandoned-writes.js';
import { createBlobStore } from './platform/storage/index.js';
import { createXmlChecks } from './platform/xml-checks/index.js';
import { findXsdDir, loadSchemaSet } from './platform/xsd/index.js';
import { dgiiTarget, type DgiiTarget } from './sandbox/index.js';

import type { BuildOptions } from './application.js';
import type { ModuleTables } from './database.js';

export interface OpenedPlatform {
  platform: Platform;
  database: DatabaseHandle<ModuleTables>;
  metrics: Metrics;
  dgiiUrls: DgiiTarget;
}

/** Opens every adapter, registering each with `closers` as soon as it is open, so a failure part-way closes
 * what was opened. `credentials` is asked only once requests flow (the DGII sessions module owns them). */
export async function openPlatform(
  options: BuildOptions,
  closers: Closers,
  credentials: (companyId: string) => Promise<DgiiCredentials | undefined>,
): Promise<OpenedPlatform> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const log = createLogger(config.logLevel, options.logDestination, logLines(config));
  const metrics = createMetrics();
  const masterKey = resolveMasterKey(config.masterKey, config.dataDir);
  const environment = config.fiscalEnv;

  const database = await openDatabase(options.database ?? databaseTarget(config), log);
  closers.add(() => database.close());
  const db = database.db;
  const applied = await migrateToLatest(db);
  if (applied.length > 0) log.info({ migrations: applied }, 'database migrated');
  await checkMasterKey(db, masterKey);
  await checkDatabaseEnvironment(db, environment, keyEnvironmentOtherThan);

  const cache = await createCache(config.redisUrl, clock);
  closers.add(() => cache.close());
  const blobs = await createBlobStore(config.storage);
  closers.add(() => blobs.close());
  const abandonedWrites = createAbandonedWrites({ db, clock, log });
  closers.add(() => {
    abandonedWrites.close();
  });
  const xsdDir = await findXsdDir(config);
  const schemas = await loadSchemaSet(xsdDir, log);
  closers.add(() => schemas?.dispose());
  const xmlChecks = createXmlChecks({
    schemas,
    xsdDir,
    onThreadFailure: (error) => {
      log.error({ err: error }, 'the XML thread failed; the document is refused');
    },
  });
  closers.add(() => xmlChecks.close());
  const dgiiUrls = await dgiiTarget({ config, embedded: options.embeddedSandbox === true, db, clock, log, schemas });
  closers.add(() => dgiiUrls.sandbox?.close());
  const dgii = configuredDgiiClient(config, {
    urls: dgiiUrls,
    clock,
    cache,
    log,
    tokenSealing: sessionTokenSealing(masterKey),
    credentials,
  });
  closers.add(() => {
    dgii.close();
  });
  const { mailUrl } = dgiiUrls;
  const mailer =
    mailUrl === undefined
      ? undefined
      : createMailer({
          url: mailUrl,
          connectTimeoutMs: config.mail.timeoutMs,
          responseTimeoutMs: config.mail.timeoutMs,
        });
  if (mailer === undefined) log.warn({ smtpUrl: null }, 'e-mail delivery is off: SMTP_URL is not set');
  else {
    closers.add(() => {
      mailer.close();
    });
    log.info({ smtpUrl: mailer.url, from: config.mail.from }, 'e-mail goes out through this SMTP server');
  }
  const receiverTransport = createHttpTransport({
    connectMs: config.dgiiClient.connectTimeoutMs,
    responseMs: config.dgiiClient.responseTimeoutMs,
  });
  closers.add(() => {
    receiverTransport.close();
  });
  const receivers = createReceiverClient({
    transport: receiverTransport,
    policy: { environment, allowPrivate: config.outboundAllowPrivate },
    now: () => clock.now(),
  });

  const platform: Platform = {
    config,
    environment,
    db,
    clock,
    log,
    blobs,
    abandonedWrites,
    cache,
    masterKey,
    dgii,
    receivers,
    mailer,
    xmlChecks,
    schemas,
  };
  return { platform, database, metrics, dgiiUrls };
}
