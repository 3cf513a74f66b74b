// The composition root: builds the platform adapters from config and wires the modules into the roles a
// process runs (API, worker, scheduler). Nothing else constructs adapters.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { databaseTarget, type Config } from './config.js';
import { createCache, type Cache } from './platform/cache/index.js';
import { systemClock, type Clock } from './platform/clock.js';
import { openDatabase, type DatabaseHandle, type DatabaseTarget } from './platform/db/database.js';
import { checkDatabaseEnvironment } from './platform/db/environment-guard.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { createHttpServer } from './platform/http/server.js';
import type { App, CatalogueEntry, AppRoute } from './platform/http/route.js';
import { registerRoutes } from './platform/http/route.js';
import { openSecret, sealSecret } from './platform/crypto/secret-box.js';
import { checkMasterKey, resolveMasterKey } from './platform/master-key.js';
import { createLogger, type Logger } from './platform/observability/logger.js';
import { createMetrics } from './platform/observability/metrics.js';
import { startQueue, type Queue } from './platform/queue/queue.js';
import { createBlobStore, type BlobStore } from './platform/storage/index.js';
import { createXmlChecks } from './platform/xml-checks/index.js';
import { loadSchemaSet } from './platform/xsd/index.js';
import type { SchemaSet } from './fiscal/xsd/index.js';
import { apiKeyRoutes, apiKeySchemas, createApiKeysService, type ApiKeysService } from './modules/api-keys/index.js';
import { companyRoutes, companySchemas, createCompaniesService, type CompaniesService } from './modules/companies/index.js';
import { controlPlaneRoutes, controlPlaneSchemas, createControlPlaneService, type ControlPlaneService } from './modules/control-plane/index.js';
import { createCommercialApprovals, createDocumentsService, createIdempotency, createSignedXmlIntake, documentRoutes, documentSchemas, documentViewRoutes, type CommercialApprovals, type DocumentsService } from './modules/documents/index.js';
import { catalogueRoutes, createCataloguesService } from './modules/catalogues/index.js';
import { createDgiiSessionsService, dgiiSessionRoutes } from './modules/dgii-sessions/index.js';
import { opsRoutes } from './modules/ops/index.js';
import { createDelivery, createSendingService, deliveryPolicy, sendingRoutes, sendingSchemas, startPoller, startSender, type SendingService } from './modules/sending/index.js';
import { allocationRoutes, annulmentRoutes, annulmentSchemas, annulmentLeaseMs, createAnnulmentSendTarget, createAnnulmentsService, createSequencesService, sequenceRoutes, sequenceSchemas, type SequencesService } from './modules/sequences/index.js';
import { createWorkEngine, startWorkLoop, type WorkEngine } from './platform/work/work-engine.js';
import type { ClaimLoop } from './platform/queue/claim-loop.js';
import { createTaxpayersService, taxpayerRoutes, taxpayerSchemas } from './modules/taxpayers/index.js';
import { approvalTestOf, certificationRoutes, certificationSchemas, createCaseChanges, createCertificationService, createLane, startLaneLoop } from './modules/certification/index.js';
import { createReceivedService, receivedRoutes, receivedSchemas, type ReceivedService } from './modules/received/index.js';
import { createReceiver, registerReceiverRoutes } from './modules/receiver/index.js';
import { commercialResponseRoutes, commercialResponseSchemas, createCommercialResponses, createResponseDeliveryTarget, responseDeliveryLeaseMs } from './modules/received/index.js';
import { environmentSegment } from './fiscal/environment.js';
import { demoRnc } from './demo.js';
import { createWebhookDelivery, createWebhooksService, startDispatcher, webhookRoutes, webhookSchemas } from './modules/webhooks/index.js';
import { createDgiiClient, createHttpTransport, type DgiiClient } from './dgii/index.js';
import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox/index.js';
import { createJobs, jobList } from './jobs.js';
import { schedules } from './schedules.js';
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

/** The DGII the service talks to: the configured URLs, or the embedded sandbox's. */
export interface DgiiTarget {
  baseUrl: string;
  fcBaseUrl: string;
  statusBaseUrl: string;
  /** Present when the sandbox runs in this process. */
  sandbox: Sandbox | undefined;
  /** The bearer token of the embedded sandbox's /sandbox-admin routes, when they are on. */
  sandboxAdminToken?: string | undefined;
}

/**
 * The embedded sandbox's admin token: the configured one, else in CERT one made once and kept in DATA_DIR (0600), so
 * scripts can play DGII's certification portal (the demo credentials carry it). TEST keeps them off unless configured.
 */
function embeddedAdminToken(config: Config): string | undefined {
  if (config.dgii.sandboxAdminToken !== undefined || config.fiscalEnv !== 'CERT') return config.dgii.sandboxAdminToken;
  const path = join(config.dataDir, 'sandbox-admin-token');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return token;
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
  close(): Promise<void>;
}

async function dgiiTarget(options: BuildOptions, parts: Pick<SandboxOptions<unknown>, 'clock' | 'log' | 'schemas'> & { db: DatabaseHandle['db'] }): Promise<DgiiTarget> {
  const { dgii } = options.config;
  if (options.embeddedSandbox !== true || dgii.sandbox !== 'embedded') return { ...dgii, sandbox: undefined };
  const adminToken = embeddedAdminToken(options.config);
  const sandbox = await createSandbox({
    db: parts.db,
    clock: parts.clock,
    log: parts.log,
    schemas: parts.schemas,
    admin: { enabled: adminToken !== undefined, token: adminToken },
  });
  const url = await sandbox.listen(dgii.sandboxPort, options.config.host);
  parts.log.info({ url }, 'DGII sandbox listening (embedded); the service uses it as DGII');
  return { baseUrl: url, fcBaseUrl: url, statusBaseUrl: url, sandbox, sandboxAdminToken: adminToken };
}

/** A dependency built after something that needs it; reaching it before it is set is a wiring bug. */
function lateBound<T>(name: string): { get: () => T; set: (value: T) => void } {
  let value: T | undefined;
  return {
    get: () => {
      if (value === undefined) throw new Error(`${name} was reached before it was built`);
      return value;
    },
    set: (built) => {
      value = built;
    },
  };
}

export async function buildApplication(options: BuildOptions): Promise<Application> {
  const { config, roles } = options;
  const clock = options.clock ?? systemClock;
  const log = createLogger(config.logLevel, options.logDestination);
  const metrics = createMetrics();
  const masterKey = resolveMasterKey(config.masterKey, config.dataDir);

  const database = await openDatabase(options.database ?? databaseTarget(config));
  const closers: (() => Promise<void>)[] = [() => database.close()];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const closer of [...closers].reverse()) await closer();
  };
  try {
    const applied = await migrateToLatest(database.db);
    if (applied.length > 0) log.info({ migrations: applied }, 'database migrated');
    await checkMasterKey(database.db, masterKey);
    await checkDatabaseEnvironment(database.db, config.fiscalEnv);

    const cache = await createCache(config.redisUrl, clock);
    closers.push(() => cache.close());
    const blobs = createBlobStore(config.storage);
    closers.push(() => blobs.close());
    const schemas = await loadSchemaSet(config.xsdDir, log);
    closers.push(() => {
      schemas?.dispose();
      return Promise.resolve();
    });
    const xmlChecks = createXmlChecks({ schemas, xsdDir: config.xsdDir, onThreadFailure: (error) => { log.error({ err: error }, 'the XML thread failed; the document is refused'); } });
    closers.push(() => xmlChecks.close());

    const db = database.db;
    const dgii = await dgiiTarget(options, { db, clock, log, schemas });
    if (dgii.sandbox !== undefined) closers.push(() => (dgii.sandbox as Sandbox).close());

    const dgiiClient = createDgiiClient({
      urls: dgii,
      environment: config.fiscalEnv,
      clock,
      cache,
      log,
      timeouts: { connectMs: config.dgiiClient.connectTimeoutMs, responseMs: config.dgiiClient.responseTimeoutMs },
      // The sender's and the poller's requests of one process may go to one host: neither waits for the other's sockets.
      connectionsPerHost: 2 * config.sending.concurrency,
      breaker: { failureThreshold: config.dgiiClient.breakerFailureThreshold, openMs: config.dgiiClient.breakerOpenMs },
      statusApiKey: config.dgiiClient.statusApiKey,
      tokenSealing: {
        seal: (text) => sealSecret(masterKey, text, 'dgii-token'),
        open: (sealed) => {
          try {
            return openSecret(masterKey, sealed, 'dgii-token').toString('utf8');
          } catch {
            return undefined;
          }
        },
      },
      // Called only once requests flow, when `dgiiSessions` (built below) exists.
      credentials: (companyId) => dgiiSessions.credentialsOf(companyId),
    });
    closers.push(() => {
      dgiiClient.close();
      return Promise.resolve();
    });
    // Jobs are registered before the queue starts, and the services they run need the queue: they reach them late.
    const sequencesLate = lateBound<SequencesService>('sequences');
    const responseLeaseMs = responseDeliveryLeaseMs({ connectMs: config.dgiiClient.connectTimeoutMs, responseMs: config.dgiiClient.responseTimeoutMs });
    const jobs = createJobs({
      db,
      clock,
      taxpayersImportUrl: config.taxpayersImport.url,
      sequences: sequencesLate.get,
      environment: config.fiscalEnv,
      webhookRetentionMs: config.webhooks.retentionMs,
    });
    const queue = await startQueue({
      executor: database.executor,
      jobs: jobList(jobs),
      schedules: schedules(jobs, config.taxpayersImport),
      roles: { work: roles.work, schedule: roles.schedule },
      log,
      metrics,
      maintenanceIntervalSeconds: config.queue.maintenanceIntervalSeconds,
    });
    closers.push(() => queue.stop());

    // Webhooks: workers fan out the outbox and deliver in a loop of their own (not jobs); the API only manages
    // endpoints and sets deliveries pending again, waking this process's loop when it runs one.
    let wakeWebhookDelivery: () => void = () => undefined;
    if (roles.work) {
      const webhookDelivery = createWebhookDelivery({ db: database.db, clock, log, environment: config.fiscalEnv, masterKey, policy: config.webhooks });
      const dispatcher = startDispatcher({ delivery: webhookDelivery, log, batchSize: 200, concurrency: config.webhooks.concurrency, restMs: config.webhooks.dispatchIntervalMs });
      wakeWebhookDelivery = () => {
        dispatcher.wake();
      };
      closers.push(() => dispatcher.stop());
    }

    const companies = createCompaniesService({ db, clock, masterKey });
    const apiKeys = createApiKeysService({ db, clock, environment: config.fiscalEnv });
    // What this process keeps of a company (its keys, certificate, receiver path) is forgotten once a change commits.
    const companyChangedListeners: ((companyId: string) => void)[] = [
      (id) => {
        companies.forget(id);
      },
      (id) => {
        apiKeys.forgetCompany(id);
      },
    ];
    const controlPlane = createControlPlaneService({
      db,
      companies,
      companyChanged: (companyId) => {
        for (const listener of companyChangedListeners) listener(companyId);
      },
    });
    const sequences = createSequencesService({ db, clock, environment: config.fiscalEnv, thresholds: config.sequenceWarnings });
    sequencesLate.set(sequences);
    const documents = createDocumentsService({ db, clock, blobs, environment: config.fiscalEnv, companies, sequences, xmlChecks });
    const dgiiSessions = createDgiiSessionsService({ db, clock, environment: config.fiscalEnv, masterKey, companies, dgii: dgiiClient });
    const delivery = createDelivery({ db, clock, log, environment: config.fiscalEnv, dgii: dgiiClient, companies, documents, policy: deliveryPolicy(config) });
    // Documents to send are claimed by this process's sender when it is a worker (not jobs: sending/loops.ts).
    let wakeSender: () => void = () => undefined;
    if (roles.work) {
      const sender = startSender({ delivery, log, restMs: 500, concurrency: config.sending.concurrency });
      wakeSender = () => {
        sender.wake();
      };
      closers.push(() => sender.stop());
    }
    const annulmentIssuer = async (companyId: string) => {
      const company = await companies.get(companyId);
      return company === undefined ? undefined : { rnc: company.rnc, identity: await companies.signingIdentity(companyId) };
    };
    const annulmentSends = createWorkEngine({ db, clock, log, environment: config.fiscalEnv, target: createAnnulmentSendTarget({ db, clock, environment: config.fiscalEnv, blobs, dgii: dgiiClient, issuer: annulmentIssuer, policy: { maxAttempts: config.annulments.maxAttempts, retryDelayMs: config.annulments.retryBaseMs, leaseMs: annulmentLeaseMs({ connectMs: config.dgiiClient.connectTimeoutMs, responseMs: config.dgiiClient.responseTimeoutMs }) } }) });
    let wakeAnnulmentSends: () => void = () => undefined;
    if (roles.work) {
      const loop = startWorkLoop(annulmentSends, { name: 'annulment send', log, batchSize: 4, concurrency: 4, restMs: 1_000 });
      wakeAnnulmentSends = () => {
        loop.wake();
      };
      closers.push(() => loop.stop());
    }
    const annulments = createAnnulmentsService({
      db,
      clock,
      environment: config.fiscalEnv,
      blobs,
      issuer: annulmentIssuer,
      schedule: (trx, annulmentId) => annulmentSends.enqueue(trx, [annulmentId]),
      queued: () => {
        wakeAnnulmentSends();
      },
    });
    const sending = createSendingService({ db, clock, environment: config.fiscalEnv, dgii: dgiiClient, delivery, queued: () => {
        wakeSender();
      } });
    if (roles.schedule) {
      // Verdicts come due a second after their trackId and are asked in batches: a short rest keeps their wait near
      // that second (not up to another one), for one indexed look at the documents in process per rest.
      const poller = startPoller({ delivery, log, restMs: 250, concurrency: config.sending.concurrency });
      closers.push(() => poller.stop());
    }
    // Certification's serial lanes, worked by the workers (CERT only: elsewhere no process can exist).
    let wakeLane: () => void = () => undefined;
    if (roles.work && config.fiscalEnv === 'CERT') {
      // The lease outlasts one step of the lane: a document made and queued, or one call to DGII (connect + answer).
      const lane = createLane({ db, clock, environment: config.fiscalEnv, log, blobs, companies, documents, sending, dgii: dgiiClient, changes: createCaseChanges(config.fiscalEnv), leaseMs: 2 * (config.dgiiClient.connectTimeoutMs + config.dgiiClient.responseTimeoutMs) + 10_000 });
      const laneLoop = startLaneLoop({ db, environment: config.fiscalEnv, lane, log, restMs: 500 });
      wakeLane = () => {
        laneLoop.wake();
      };
      closers.push(() => laneLoop.stop());
    }
    const commercialApprovals = createCommercialApprovals({ db, clock, blobs, environment: config.fiscalEnv, companies, schemas, certificationApprovalTest: approvalTestOf(db, config.fiscalEnv) });
    const received = createReceivedService({ db, clock, blobs, environment: config.fiscalEnv, xmlChecks, signingKey: async (companyId) => (await companies.issuer(companyId))?.identity });
    // Commercial responses (ACECF) to received e-CF: made by the API, delivered by the workers to the issuer and DGII.
    const receiverTransport = createHttpTransport({ connectMs: config.dgiiClient.connectTimeoutMs, responseMs: config.dgiiClient.responseTimeoutMs });
    closers.push(() => {
      receiverTransport.close();
      return Promise.resolve();
    });
    const responseDeliveries = Object.fromEntries(
      (['issuer', 'dgii'] as const).map((target) => [
        target,
        createWorkEngine({
          db,
          clock,
          log,
          environment: config.fiscalEnv,
          target: createResponseDeliveryTarget({
            db,
            clock,
            blobs,
            environment: config.fiscalEnv,
            dgii: dgiiClient,
            dgiiAcecfUrl: `${dgii.baseUrl.replace(/\/+$/, '')}/${environmentSegment[config.fiscalEnv]}/aprobacioncomercial/api/aprobacioncomercial`,
            transport: receiverTransport,
            companies,
            target,
            policy: { maxAttempts: config.commercialResponses.maxAttempts, retryDelayMs: config.commercialResponses.retryBaseMs, leaseMs: responseLeaseMs },
          }),
        }),
      ]),
    ) as Record<'issuer' | 'dgii', WorkEngine<unknown>>;
    const responseLoops: ClaimLoop[] = [];
    if (roles.work) {
      for (const [target, engine] of Object.entries(responseDeliveries)) responseLoops.push(startWorkLoop(engine, { name: `commercial response to ${target}`, log, batchSize: 8, concurrency: 8, restMs: 1_000 }));
      closers.push(async () => {
        await Promise.all(responseLoops.map((loop) => loop.stop()));
      });
    }
    const commercialResponses = createCommercialResponses({ db, clock, blobs, environment: config.fiscalEnv, schemas, companies, received, scheduleDelivery: (trx, receivedDocumentId, target) => responseDeliveries[target].enqueue(trx, [receivedDocumentId]), queued: () => {
        for (const loop of responseLoops) loop.wake();
      } });
    const services: Services = { companies, apiKeys, controlPlane, sequences, documents, commercialApprovals, sending, received };

    let http: Application['http'];
    if (roles.http) {
      const server = await createHttpServer({ config, log, metrics, authenticator: apiKeys.authenticator, clock, version });
      for (const schema of [...companySchemas, ...apiKeySchemas, ...controlPlaneSchemas, ...sequenceSchemas, ...annulmentSchemas, ...documentSchemas, ...sendingSchemas, ...taxpayerSchemas, ...webhookSchemas, ...receivedSchemas, ...commercialResponseSchemas, ...certificationSchemas]) server.app.addSchema(schema);
      const routes: AppRoute[] = [
        ...opsRoutes({ probes: {
            database: (ms) => database.probe(ms),
            queue: (ms) => queue.probe(ms),
            cache: (ms) => cache.probe(ms),
            storage: (ms) => blobs.probe(ms),
          }, metrics }),
        ...companyRoutes(companies),
        ...controlPlaneRoutes(controlPlane),
        ...apiKeyRoutes({ db, apiKeys, companies }),
        ...sequenceRoutes(sequences),
        ...allocationRoutes(sequences),
        ...annulmentRoutes(annulments),
        ...documentRoutes(
          documents,
          createIdempotency({ db, clock, environment: config.fiscalEnv }),
          createSignedXmlIntake({ db, clock, blobs, environment: config.fiscalEnv, companies, sequences, xmlChecks }),
        ),
        ...documentViewRoutes(documents),
        ...sendingRoutes(sending),
        ...dgiiSessionRoutes(dgiiSessions),
        ...webhookRoutes(createWebhooksService({ db, clock, environment: config.fiscalEnv, masterKey, allowPrivate: config.webhooks.allowPrivate, secretGraceMs: config.webhooks.secretGraceMs, wakeDelivery: () => { wakeWebhookDelivery(); } })),
        ...receivedRoutes(received),
        ...commercialResponseRoutes(commercialResponses),
        ...certificationRoutes(
          createCertificationService({
            db,
            clock,
            environment: config.fiscalEnv,
            companies,
            canAuthenticate: async (companyId) => (await dgiiSessions.credentialsOf(companyId)) !== undefined,
            publicBaseUrl: config.publicBaseUrl,
            laneQueued: () => {
              wakeLane();
            },
          }),
        ),
        ...catalogueRoutes(createCataloguesService({ companies })),
        ...taxpayerRoutes(
          createTaxpayersService({
            db,
            clock,
            cache,
            // DGII's directory of electronic issuers, asked with the caller's company session.
            directory: async (rnc, companyId) => {
              const found = await dgiiClient.directory(companyId, rnc);
              if (found.kind === 'not_found') return undefined;
              if (found.kind !== 'found') throw new Error(`DGII's directory did not answer: ${found.kind}`);
              const { urlRecepcion, urlAceptacion, urlOpcional } = found.entry;
              return { electronicIssuer: true, urls: { reception: urlRecepcion, approval: urlAceptacion, ...(urlOpcional === '' ? {} : { authentication: urlOpcional }) } };
            },
          }),
        ),
      ] as AppRoute[];
      registerRoutes(server.app, routes, server.catalogue);
      // DGII's receiver standard (/{env}/{service}/fe/...): its own scope, DGII-style answers, no API key.
      const receiver = createReceiver({
        db,
        cache,
        clock,
        config,
        // `emisorreceptor`: the configured company, else the demo company when the sandbox is embedded.
        localCompany: config.receiverLocalCompany ?? (config.dgii.sandbox === 'embedded' ? demoRnc : undefined),
        received,
        receiveApproval: (companyId, xml) => commercialApprovals.receive(companyId, xml),
      });
      companyChangedListeners.push((id) => {
        receiver.forgetCompany(id);
      });
      await registerReceiverRoutes(server.app, receiver, server.catalogue);
      await server.app.ready();
      closers.push(() => server.app.close());
      http = server;
    }

    return { config, log, database, queue, cache, blobs, schemas, services, dgii, dgiiClient, http, close };
  } catch (error) {
    await close();
    throw error;
  }
}
