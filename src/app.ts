// The composition root: builds the platform adapters from config and wires the modules into the roles a
// process runs (API, worker, scheduler). Nothing else constructs adapters.
import { databaseTarget } from './config.js';
import { demoRnc } from './demo.js';
import { configuredDgiiClient, createHttpTransport } from './dgii/index.js';
import { apiKeysModule } from './modules/api-keys/index.js';
import { cataloguesModule } from './modules/catalogues/index.js';
import { receivedApprovalTestOf, certificationModule } from './modules/certification/index.js';
import { companiesModule } from './modules/companies/index.js';
import { controlPlaneModule } from './modules/control-plane/index.js';
import { dgiiSessionsModule, sessionTokenSealing } from './modules/dgii-sessions/index.js';
import { documentsModule } from './modules/documents/index.js';
import { roleWorkOf, type ModuleParts, type Platform } from './modules/module.js';
import { opsModule } from './modules/ops/index.js';
import { receivedModule } from './modules/received/index.js';
import { receiverModule } from './modules/receiver/index.js';
import { sendingModule } from './modules/sending/index.js';
import { sequencesModule } from './modules/sequences/index.js';
import { taxpayersModule } from './modules/taxpayers/index.js';
import { webhooksModule } from './modules/webhooks/index.js';
import { createCache } from './platform/cache/index.js';
import { systemClock } from './platform/clock.js';
import { openDatabase } from './platform/db/database.js';
import { checkDatabaseEnvironment } from './platform/db/environment-guard.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { registerRoutes } from './platform/http/route.js';
import { createHttpServer } from './platform/http/server.js';
import { checkMasterKey, resolveMasterKey } from './platform/master-key.js';
import { createLogger } from './platform/observability/logger.js';
import { createMetrics } from './platform/observability/metrics.js';
import { openQueue } from './platform/queue/queue.js';
import { createBlobStore } from './platform/storage/index.js';
import { createXmlChecks } from './platform/xml-checks/index.js';
import { loadSchemaSet } from './platform/xsd/index.js';
import { dgiiTarget } from './sandbox/index.js';
import { version } from './version.js';

import type { Application, BuildOptions, Services } from './application.js';

export { allRoles, type Application, type BuildOptions, type Roles, type Services } from './application.js';

export async function buildApplication(options: BuildOptions): Promise<Application> {
  const { config, roles } = options;
  const clock = options.clock ?? systemClock;
  const log = createLogger(config.logLevel, options.logDestination);
  const metrics = createMetrics();
  const masterKey = resolveMasterKey(config.masterKey, config.dataDir);
  const environment = config.fiscalEnv;

  const database = await openDatabase(options.database ?? databaseTarget(config));
  const closers: (() => Promise<void>)[] = [() => database.close()];
  const closing = (close: () => unknown) =>
    closers.push(async () => {
      await close();
    });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const closer of [...closers].reverse()) await closer();
  };
  try {
    const db = database.db;
    const applied = await migrateToLatest(db);
    if (applied.length > 0) log.info({ migrations: applied }, 'database migrated');
    await checkMasterKey(db, masterKey);
    await checkDatabaseEnvironment(db, environment);

    const cache = await createCache(config.redisUrl, clock);
    closing(() => cache.close());
    const blobs = createBlobStore(config.storage);
    closing(() => blobs.close());
    const schemas = await loadSchemaSet(config.xsdDir, log);
    closing(() => schemas?.dispose());
    const xmlChecks = createXmlChecks({
      schemas,
      xsdDir: config.xsdDir,
      onThreadFailure: (error) => {
        log.error({ err: error }, 'the XML thread failed; the document is refused');
      },
    });
    closing(() => xmlChecks.close());
    const dgiiUrls = await dgiiTarget({ config, embedded: options.embeddedSandbox === true, db, clock, log, schemas });
    if (dgiiUrls.sandbox !== undefined) closing(() => dgiiUrls.sandbox?.close());
    const dgii = configuredDgiiClient(config, {
      urls: dgiiUrls,
      clock,
      cache,
      log,
      tokenSealing: sessionTokenSealing(masterKey),
      // Asked only once requests flow, when the sessions module below exists.
      credentials: (companyId) => dgiiSessions.credentialsOf(companyId),
    });
    closing(() => {
      dgii.close();
    });
    const receiverTransport = createHttpTransport({
      connectMs: config.dgiiClient.connectTimeoutMs,
      responseMs: config.dgiiClient.responseTimeoutMs,
    });
    closing(() => {
      receiverTransport.close();
    });
    const platform: Platform = {
      config,
      environment,
      db,
      clock,
      log,
      blobs,
      cache,
      masterKey,
      dgii,
      receiverTransport,
      xmlChecks,
      schemas,
    };

    // The modules, each built from the platform and the services of those above it.
    const companies = companiesModule(platform);
    const apiKeys = apiKeysModule(platform, { companies: companies.companies });
    const controlPlane = controlPlaneModule(platform, {
      companies: companies.companies,
      companyChanged: (companyId) => {
        for (const part of parts) part.forgetCompany?.(companyId);
      },
    });
    const sequences = sequencesModule(platform, { companies: companies.companies });
    const documents = documentsModule(platform, {
      companies: companies.companies,
      sequences: sequences.sequences,
      certificationApprovalTest: receivedApprovalTestOf(db, environment),
    });
    const { dgiiSessions, ...sessionParts } = dgiiSessionsModule(platform, { companies: companies.companies });
    const sending = sendingModule(platform, { companies: companies.companies, documents: documents.documents });
    const received = receivedModule(platform, { companies: companies.companies });
    const queue = await openQueue({
      executor: database.executor,
      roles,
      log,
      metrics,
      maintenanceIntervalSeconds: config.queue.maintenanceIntervalSeconds,
    });
    closing(() => queue.stop());
    const parts: ModuleParts[] = [
      opsModule({
        probes: {
          database: (ms) => database.probe(ms),
          queue: (ms) => queue.probe(ms),
          cache: (ms) => cache.probe(ms),
          storage: (ms) => blobs.probe(ms),
        },
        metrics,
      }),
      companies,
      controlPlane,
      apiKeys,
      sequences,
      documents,
      sending,
      sessionParts,
      webhooksModule(platform),
      received,
      certificationModule(platform, {
        companies: companies.companies,
        documents: documents.documents,
        sending: sending.sending,
        dgiiSessions,
      }),
      cataloguesModule({ companies: companies.companies }),
      taxpayersModule(platform),
      // `emisorreceptor`: the configured company, else the demo company when the sandbox is embedded.
      receiverModule(platform, {
        received: received.received,
        receivedApprovals: documents.receivedApprovals,
        localCompany: config.receiverLocalCompany ?? (config.dgii.sandbox === 'embedded' ? demoRnc : undefined),
      }),
    ];

    // The queue runs the jobs and schedules of the roles this process has, then the loops start.
    await queue.run({
      jobs: parts.flatMap((part) => part.jobs ?? []),
      schedules: parts.flatMap((part) => part.schedules ?? []),
    });
    for (const loop of parts.flatMap((part) => part.loops ?? [])) {
      if (!roles[loop.role]) continue;
      loop.start();
      closing(() => loop.stop());
    }

    let http: Application['http'];
    if (roles.http) {
      const server = await createHttpServer({
        config,
        log,
        metrics,
        authenticator: apiKeys.apiKeys.authenticator,
        clock,
        version,
      });
      for (const part of parts) for (const schema of part.schemas ?? []) server.app.addSchema(schema);
      registerRoutes(
        server.app,
        parts.flatMap((part) => part.routes ?? []),
        server.catalogue,
      );
      for (const part of parts) await part.registerHttp?.(server.app, server.catalogue);
      await server.app.ready();
      closing(() => server.app.close());
      http = server;
    }

    const services: Services = {
      companies: companies.companies,
      apiKeys: apiKeys.apiKeys,
      controlPlane: controlPlane.controlPlane,
      sequences: sequences.sequences,
      documents: documents.documents,
      receivedApprovals: documents.receivedApprovals,
      sending: sending.sending,
      received: received.received,
    };
    return {
      config,
      log,
      database,
      queue,
      cache,
      blobs,
      schemas,
      services,
      dgii: dgiiUrls,
      dgiiClient: dgii,
      http,
      roleWork: roleWorkOf(parts),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
