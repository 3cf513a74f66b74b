// What a capability module contributes to a process. Each module's index.ts exports one `xxxModule(platform, needs)`
// that builds its services and returns them with its parts; src/app.ts lists the modules and gathers the parts:
// the routes and schemas when the process serves HTTP, the jobs for the queue (when they recur is src/schedules.ts's),
// the loops of the roles it runs, and what each forgets when a company changes.
import type { Config, FiscalEnvironment } from '../config.js';
import type { DgiiClient, ReceiverClient } from '../dgii/index.js';
import type { SchemaSet } from '../fiscal/xsd/index.js';
import type { Cache } from '../platform/cache/index.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import type { ContractSchemas } from '../platform/http/openapi.js';
import type { App, AppRoute, CatalogueEntry } from '../platform/http/route.js';
import type { Mailer } from '../platform/mail/index.js';
import type { Logger } from '../platform/observability/logger.js';
import type { AnyJob } from '../platform/queue/job.js';
import type { Schedule } from '../platform/queue/queue.js';
import type { AbandonedWrites } from '../platform/storage/abandoned-writes.js';
import type { BlobStore } from '../platform/storage/index.js';
import type { XmlChecks } from '../platform/xml-checks/index.js';

/** The adapters every module may use, built once by src/app.ts from the configuration. */
export interface Platform {
  config: Config;
  environment: FiscalEnvironment;
  db: Db;
  clock: Clock;
  log: Logger;
  blobs: BlobStore;
  /** Where blobs written for work that failed before recording them are said to be no one's (see its file). */
  abandonedWrites: AbandonedWrites;
  cache: Cache;
  /** Seals secrets at rest (certificate keys, DGII session tokens, webhook secrets). */
  masterKey: Buffer;
  dgii: DgiiClient;
  /** Other taxpayers' receivers (our e-CF to buyers, our ACECF to issuers), with the DGII client's timeouts. */
  receivers: ReceiverClient;
  /** E-mail to buyers through SMTP_URL, or the embedded sandbox's mail catcher; undefined: e-mail is off. Sent as
   * config.mail.from. */
  mailer: Mailer | undefined;
  xmlChecks: XmlChecks;
  /** DGII's official schemas (ECF_XSD_DIR); undefined when none is configured. */
  schemas: SchemaSet | undefined;
}

/** The roles that run loops: `work` (ecf worker) and `schedule` (ecf scheduler); `ecf start` runs both. */
export type LoopRole = 'work' | 'schedule';

/**
 * A loop one role runs (sending, polling, delivering): built with its module, started by src/app.ts after every
 * module is built, when the process runs its role. Work queued before the start, or in a process without the role,
 * needs no wake-up: the loop's claims find it.
 */
export interface Loop {
  readonly name: string;
  readonly role: LoopRole;
  /** Work may be due: claim now instead of at the end of the rest (nothing before the start). */
  wake(): void;
  start(): void;
  /** Stops claiming and waits for the work in flight. */
  stop(): Promise<void>;
}

/** `run` starts the loop under the loop's name (its log lines say it). */
export function defineLoop(
  name: string,
  role: LoopRole,
  run: (name: string) => { wake(): void; stop(): Promise<void> },
): Loop {
  let running: { wake(): void; stop(): Promise<void> } | undefined;
  return {
    name,
    role,
    wake: () => running?.wake(),
    start: () => {
      running ??= run(name);
    },
    stop: () => running?.stop() ?? Promise.resolve(),
  };
}

export interface ModuleParts {
  /** TypeBox schemas the routes reference by $id. */
  schemas?: readonly object[];
  routes?: readonly AppRoute[];
  /** Schemas for the OpenAPI contract only, never compiled for validation: they replace or join components by name. */
  contractSchemas?: ContractSchemas;
  /** Routes that need a scope of their own (plugins, an error handler): registered after the plain routes. */
  registerHttp?: (app: App, catalogue: CatalogueEntry[]) => Promise<void>;
  jobs?: readonly AnyJob[];
  loops?: readonly Loop[];
  /** Forgets what this process keeps of a company once a change to it commits (another process's within seconds). */
  forgetCompany?: (companyId: string) => void;
}

/** The loops each role runs, the jobs workers run and the schedules the scheduler keeps. */
export interface RoleWork {
  loops: Record<LoopRole, string[]>;
  jobs: string[];
  schedules: { job: string; cron: string }[];
}

export function roleWorkOf(parts: readonly ModuleParts[], schedules: readonly Schedule[]): RoleWork {
  const loops = parts.flatMap((part) => part.loops ?? []);
  return {
    loops: {
      work: loops.filter((loop) => loop.role === 'work').map((loop) => loop.name),
      schedule: loops.filter((loop) => loop.role === 'schedule').map((loop) => loop.name),
    },
    jobs: parts.flatMap((part) => part.jobs ?? []).map((job) => job.name),
    schedules: schedules.map((schedule) => ({ job: schedule.job.name, cron: schedule.cron })),
  };
}
