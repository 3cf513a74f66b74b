// The whole database as Kysely sees it, composed from the tables each owner declares: the platform's
// (platform/db/schema.ts) and each module's (src/modules/<m>/tables.ts). Only the application's wiring and the
// tests need the whole; a module sees its own tables (docs/architecture.md).
import type { ApiKeysTables } from './modules/api-keys/index.js';
import type { ArchiveTables } from './modules/archive/index.js';
import type { CertificationTables } from './modules/certification/index.js';
import type { CompaniesTables } from './modules/companies/index.js';
import type { ControlPlaneTables } from './modules/control-plane/index.js';
import type { DgiiSessionsTables } from './modules/dgii-sessions/index.js';
import type { DocumentsTables } from './modules/documents/index.js';
import type { ReceivedTables } from './modules/received/index.js';
import type { SequencesTables } from './modules/sequences/index.js';
import type { TaxpayersTables } from './modules/taxpayers/index.js';
import type { WebhooksTables } from './modules/webhooks/index.js';
import type { Db } from './platform/db/database.js';
import type { PlatformTables } from './platform/db/schema.js';
import type { Trx } from './platform/db/transact.js';

export type ModuleTables = ApiKeysTables &
  ArchiveTables &
  CertificationTables &
  CompaniesTables &
  ControlPlaneTables &
  DgiiSessionsTables &
  DocumentsTables &
  ReceivedTables &
  SequencesTables &
  TaxpayersTables &
  WebhooksTables;

export type Database = PlatformTables & ModuleTables;

/** The whole database: for the application's wiring and the tests, never for a module's code. */
export type FullDb = Db<ModuleTables>;
export type FullTrx = Trx<ModuleTables>;
