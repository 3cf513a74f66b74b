// The composition root: builds the platform adapters from config and wires the modules into the roles a
// process runs (API, worker, scheduler). Nothing else constructs adapters.
import type { DestinationStream } from 'pino';
import { databaseTarget, type Config } from './config.js';
import { demoRnc } from './demo.js';
import { createDgiiClient, createHttpTransport, type DgiiClient } from './dgii/index.js';
import type { SchemaSet } from './fiscal/xsd/index.js';
import { apiKeysModule, type ApiKeysService } from './modules/api-keys/index.js';
import { cataloguesModule } from './modules/catalogues/index.js';
import { approvalTestOf, certificationModule } from './modules/certification/index.js';
import { companiesModule, type CompaniesService } from './modules/companies/index.js';
import { controlPlaneModule, type ControlPlaneService } from './modules/control-plane/index.js';
import { dgiiSessionsModule, sessionTokenSealing } from './modules/dgii-sessions/index.js';
import { documentsModule, type CommercialApprovals, type DocumentsService } from './modules/documents/index.js';
import type { LoopRole, ModuleParts, Platform } from './modules/module.js';
import { opsModule } from './modules/ops/index.js';
import { receivedModule, type ReceivedService } from './modules/received/index.js';
import { receiverModule } from './modules/receiver/index.js';
import { sendingModule, type SendingService } from './modules/sending/index.js';
import { sequencesModule, type SequencesService } from './modules/sequences/index.js';
import { taxpayersModule } from './modules/taxpayers/index.js';
import { webhooksModule } from './modules/webhooks/index.js';
import { createCache, type Cache } from './platform/cache/index.js';
import { systemClock, type Clock } from './platform/clock.js';
import { openDatabase, type DatabaseHandle, type DatabaseTarget } from './platform/db/database.js';
import { checkDatabaseEnvironment } from './platform/db/environment-guard.js';
import { migrateToLatest } from './platform/db/migrate.js';
import type { App, CatalogueEntry } from './platform/http/route.js';
import { registerRoutes } from './platform/http/route.js';
import { createHttpServer } from './platform/http/server.js';
import { checkMasterKey, resolveMasterKey } from './platform/master-key.js';
import { createLogger, type Logger } from './platform/observability/logger.js';
import { createMetrics } from './platform/observability/metrics.js';
import { openQueue, type Queue } from './platform/queue/queue.js';
import { createBlobStore, type BlobStore } from './platform/storage/index.js';
import { createXmlChecks } from './platform/xml-checks/index.js';
import { loadSchemaSet } from './platform/xsd/index.js';
import { dgiiTarget, type DgiiTarget } from './sandbox/index.js';
import { version } from './version.js';

export interface Roles {
  http: boolean;
  work: boolean;
  schedule: boolean;
}

export const allRoles: Roles = { http: true, work: true, schedule: true };

export interface BuildOptions {
  config: Config;
  roles: Roles;
  clock?: Clock;
  /** Where logs go; stdout when absent. */
  logDestination?: DestinationStream;
  /** Overrides the database chosen from config (tests use a throwaway one). */
  database?: DatabaseTarget;
  /** Run the DGII sandbox beside the service and use it as DGII, when config.dgii.sandbox is `embedded`
   * (`ecf start` asks for it). */
  embeddedSandbox?: boolean;
}

export interface Services {
  companies: CompaniesService;
  apiKeys: ApiKeysService;
  controlPlane: ControlPlaneService;
  sequences: SequencesService;
  documents: DocumentsService;
  /** A buyer's ACECF about one of our e-CF (the receiver route's aprobacioncomercial). */
  commercialApprovals: CommercialApprovals;
  sending: SendingService;
  /** e-CF other taxpayers sent to the company's receiver. */
  received: ReceivedService;
}

export interface Application {
  config: Config;
  log: Logger;
  database: DatabaseHandle;
  queue: Queue;
  cache: Cache;
  blobs: BlobStore;
  /** DGII's official schemas from ECF_XSD_DIR; undefined when none is configured (the model alone checks). */
  schemas: SchemaSet | undefined;
  services: Services;
  dgii: DgiiTarget;
  dgiiClient: DgiiClient;
  /** Present when the process serves HTTP. */
  http: { app: App; catalogue: CatalogueEntry[] } | undefined;
  /** What the modules give each role in this configuration, whether or not this process runs it (README, "Roles"). */
  roleWork: RoleWork;
  close(): Promise<void>;
}

/** The loops each role runs, the jobs workers run and the schedules the scheduler keeps. */
export interface RoleWork {
  loops: Record<LoopRole, string[]>;
  jobs: string[];
  schedules: { job: string; cron: string }[];
}

function roleWorkOf(parts: readonly ModuleParts[]): RoleWork {
  const loops = parts.flatMap((part) => part.loops ?? []);
  return {
    loops: {
      work: loops.filter((loop) => loop.role === 'work').map((loop) => loop.name),
      schedule: loops.filter((loop) => loop.role === 'schedule').map((loop) => loop.name),
    },
    jobs: parts.flatMap((part) => part.jobs ?? []).map((job) => job.name),
    schedules: parts
      .flatMap((part) => part.schedules ?? [])
      .map((schedule) => ({ job: schedule.job.name, cron: schedule.cron })),
  };
}

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
    const timeouts = { connectMs: config.dgiiClient.connectTimeoutMs, responseMs: config.dgiiClient.responseTimeoutMs };
    const dgii = createDgiiClient({
      urls: dgiiUrls,
      environment,
      clock,
      cache,
      log,
      timeouts,
      // The sender's and the poller's requests of one process may go to one host: neither waits for the other's sockets.
      connectionsPerHost: 2 * config.sending.concurrency,
      breaker: { failureThreshold: config.dgiiClient.breakerFailureThreshold, openMs: config.dgiiClient.breakerOpenMs },
      statusApiKey: config.dgiiClient.statusApiKey,
      tokenSealing: sessionTokenSealing(masterKey),
      // Asked only once requests flow, when the sessions module below exists.
      credentials: (companyId) => dgiiSessions.credentialsOf(companyId),
    });
    closing(() => {
      dgii.close();
    });
    const receiverTransport = createHttpTransport(timeouts);
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
      certificationApprovalTest: approvalTestOf(db, environment),
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
        commercialApprovals: documents.commercialApprovals,
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
      commercialApprovals: documents.commercialApprovals,
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
