// What buildApplication (src/app.ts) takes and gives: the roles a process runs, its options, and the running
// application with its services, for main.ts, the demo and the tests.
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import type { DgiiClient } from './dgii/index.js';
import type { SchemaSet } from './fiscal/xsd/index.js';
import type { ApiKeysService } from './modules/api-keys/index.js';
import type { ArchiveService } from './modules/archive/index.js';
import type { CompaniesService } from './modules/companies/index.js';
import type { ControlPlaneService } from './modules/control-plane/index.js';
import type { ReceivedApprovals, DocumentsService } from './modules/documents/index.js';
import type { RoleWork } from './modules/module.js';
import type { ReceivedService } from './modules/received/index.js';
import type { SendingService } from './modules/sending/index.js';
import type { SequencesService } from './modules/sequences/index.js';
import type { Cache } from './platform/cache/index.js';
import type { Clock } from './platform/clock.js';
import type { DatabaseHandle, DatabaseTarget } from './platform/db/database.js';
import type { App, CatalogueEntry } from './platform/http/route.js';
import type { Logger } from './platform/observability/logger.js';
import type { Queue } from './platform/queue/queue.js';
import type { BlobStore } from './platform/storage/index.js';
import type { DgiiTarget } from './sandbox/index.js';
import type { SandboxRegistration } from './sandbox-registration.js';
import type { ModuleTables } from './database.js';

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
  receivedApprovals: ReceivedApprovals;
  sending: SendingService;
  /** e-CF other taxpayers sent to the company's receiver. */
  received: ReceivedService;
  archive: ArchiveService;
}

export interface Application {
  config: Config;
  log: Logger;
  database: DatabaseHandle<ModuleTables>;
  queue: Queue;
  cache: Cache;
  blobs: BlobStore;
  /** DGII's official schemas from ECF_XSD_DIR; undefined when none is configured (the model alone checks). */
  schemas: SchemaSet | undefined;
  services: Services;
  dgii: DgiiTarget;
  /** Present with the embedded sandbox: registers the companies served here in its DGII registry and directory. */
  sandboxRegistration: SandboxRegistration | undefined;
  dgiiClient: DgiiClient;
  /** Present when the process serves HTTP. */
  http: { app: App; catalogue: CatalogueEntry[] } | undefined;
  /** What the modules give each role in this configuration, whether or not this process runs it (README, "Roles"). */
  roleWork: RoleWork;
  close(): Promise<void>;
}
