// `ecf archive verify` and `ecf archive export`: the archive checked, or a company's period handed to an auditor,
// from the command line, against the configured database and store. Progress goes to stderr, the report to stdout.
// On the embedded database (PGlite: one process per data directory) they run while the service is stopped; on
// PostgreSQL beside it. A verify records its findings as the scheduled pass does, so the route shows them.
import { parseArgs } from 'node:util';
import type { Config } from '../../config.js';
import { databaseTarget } from '../../platform/db/database-target.js';
import { startOfIsoDate } from '../../fiscal/dates.js';
import { systemClock } from '../../platform/clock.js';
import { openDatabase, type Db } from '../../platform/db/database.js';
import { DataDirInUseError } from '../../platform/db/data-dir-lock.js';
import { migrateToLatest } from '../../platform/db/migrate.js';
import { createLogger } from '../../platform/observability/logger.js';
import { createProgress } from '../../platform/progress.js';
import { createBlobStore, type BlobStore } from '../../platform/storage/index.js';
import { createXmlChecks } from '../../platform/xml-checks/index.js';
import { verifierSettingsOf } from './archive.module.js';
import { createArchiveService } from './archive.service.js';
import { scopeTotals } from './inventory.repo.js';
import { ArchiveExportError, exportArchive } from './export.js';
import { createVerifier, inventoryScopeOf, type PassScope } from './verifier.js';
import type { ArchiveTables } from './tables.js';
import { companyIdByIdOrRnc } from '../companies/index.js';

export const archiveUsage = `ecf archive verify [--company <id|rnc>] [--from <yyyy-mm-dd>] [--to <yyyy-mm-dd>]
       ecf archive export --company <id|rnc> --from <yyyy-mm-dd> --to <yyyy-mm-dd> --out <file.zip>`;

export class ArchiveArgumentError extends Error {
  constructor(message: string) {
    super(`${message}\nusage: ${archiveUsage}`);
    this.name = 'ArchiveArgumentError';
  }
}

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

/** Returns the exit code: 0 clean, 1 findings (verify) or a failed export, 2 when it could not run. */
export async function runArchiveCommand(
  argv: readonly string[],
  config: Config,
  io: CommandIo = process,
): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'verify' && action !== 'export') throw new ArchiveArgumentError('unknown or missing action');
  const { values } = parseArgs({
    args: [...rest],
    options: {
      company: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      out: { type: 'string' },
    },
    strict: true,
  });
  for (const name of ['from', 'to'] as const) {
    const value = values[name];
    if (value !== undefined && startOfIsoDate(value) === undefined)
      throw new ArchiveArgumentError(`--${name} must be a date yyyy-mm-dd, not "${value}"`);
  }
  if (action === 'export') {
    const { company, from, to, out } = values;
    if (company === undefined || from === undefined || to === undefined || out === undefined)
      throw new ArchiveArgumentError('export needs --company, --from, --to and --out');
  }

  let handle;
  try {
    handle = await openDatabase(databaseTarget(config));
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    io.stderr.write(
      `ecf archive: the service is running on ${config.dataDir}; the embedded database serves one process at a time, so stop the service and run this again (on PostgreSQL it runs beside the service).\n`,
    );
    return 2;
  }
  const blobs = await createBlobStore(config.storage);
  const xmlChecks = createXmlChecks({ schemas: undefined, xsdDir: undefined });
  try {
    await migrateToLatest(handle.db);
    const companyId = values.company === undefined ? undefined : await companyIdOf(handle.db, values.company);
    if (companyId === null) {
      io.stderr.write(`ecf archive: no company ${values.company ?? ''} (give its id, cmp_…, or its RNC)\n`);
      return 2;
    }
    const scope: PassScope = {
      ...(companyId === undefined ? {} : { companyId }),
      ...(values.from === undefined ? {} : { from: values.from }),
      ...(values.to === undefined ? {} : { to: values.to }),
    };
    if (action === 'verify') return await verify(handle.db, scope, { blobs, xmlChecks, config, io });
    return await exportPeriod(handle.db, blobs, io, {
      companyId: scope.companyId ?? '',
      from: scope.from ?? '',
      to: scope.to ?? '',
      out: values.out ?? '',
    });
  } finally {
    await xmlChecks.close();
    await blobs.close();
    await handle.close();
  }
}

async function verify(
  db: Db<ArchiveTables>,
  scope: PassScope,
  deps: {
    blobs: BlobStore;
    xmlChecks: ReturnType<typeof createXmlChecks>;
    config: Config;
    io: CommandIo;
  },
): Promise<number> {
  const { io } = deps;
  const verifier = createVerifier({
    db,
    blobs: deps.blobs,
    xmlChecks: deps.xmlChecks,
    clock: systemClock,
    // The operator asked for this pass now: it reads as fast as the store answers.
    settings: { ...verifierSettingsOf(deps.config), bytesPerSecond: undefined },
  });
  const archive = createArchiveService({
    db,
    environment: deps.config.fiscalEnv,
    clock: systemClock,
    log: createLogger('silent'),
    verifier,
    rolling: { passIntervalMs: 0, bytesPerSecond: undefined, leaseMs: 0, tickBudgetMs: 0, settleMs: 0, recentBatch: 0 },
  });
  const totals = await scopeTotals(db, inventoryScopeOf(scope));
  const progress = createProgress({
    write: (text) => io.stderr.write(text),
    tty: io.stderr.isTTY === true,
    label: 'archive verify',
    unit: 'artefacts',
  });
  const done = { rows: 0, bytes: 0, totalBytes: totals.bytes };
  let report;
  try {
    report = await archive.runPass(scope, (slice) => {
      done.rows += slice.artefacts;
      done.bytes += slice.bytes;
      progress.update(done);
    });
  } finally {
    await verifier.close();
  }
  progress.finish(done);
  const failures = report.failing.flatMap((verdict) => verdict.failures.map((failure) => ({ verdict, failure })));
  io.stdout.write(
    `Verified ${String(report.pass.artefacts)} artefacts (${String(report.pass.bytes)} bytes) and ${String(report.pass.stored_objects)} stored objects: ${failures.length === 0 ? 'no findings' : `${String(failures.length)} finding(s)`} (pass ${report.pass.id}).\n`,
  );
  for (const { verdict, failure } of failures) {
    const owner =
      verdict.artefact === undefined ? 'no record' : `${verdict.artefact.owner} ${verdict.artefact.ownerId}`;
    const kind = verdict.artefact?.kind ?? '-';
    io.stdout.write(`${failure.kind}\t${owner}\t${kind}\t${verdict.key}\t${failure.detail}\n`);
  }
  return failures.length === 0 ? 0 : 1;
}

async function exportPeriod(
  db: Db<ArchiveTables>,
  blobs: BlobStore,
  io: CommandIo,
  options: { companyId: string; from: string; to: string; out: string },
): Promise<number> {
  const progress = createProgress({
    write: (text) => io.stderr.write(text),
    tty: io.stderr.isTTY === true,
    label: 'archive export',
    unit: 'documents',
  });
  const done = { rows: 0, bytes: 0, totalBytes: 0 as number | undefined };
  try {
    const summary = await exportArchive(
      { db, blobs },
      {
        ...options,
        // Documents stand in for bytes: the bar and ETA follow the share of the period's documents written.
        progress: (count, total) => {
          Object.assign(done, { rows: count, bytes: count, totalBytes: total });
          progress.update(done);
        },
      },
    );
    progress.finish(done);
    io.stdout.write(
      `Exported ${String(summary.documents)} documents, ${String(summary.receivedDocuments)} received documents and ${String(summary.annulments)} annulments (${String(summary.artefacts)} files, ${String(summary.bytes)} bytes) to ${options.out} (${String(summary.zipBytes)} bytes). Check it with: unzip ${options.out} -d export && cd export && sha256sum -c SHA256SUMS\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof ArchiveExportError)) throw error;
    io.stderr.write(`ecf archive: ${error.message}\n`);
    return error.code === 'artefact_unreadable' ? 1 : 2;
  }
}

/** A company id as given, or the id of the company with that RNC; null when there is none. */
function companyIdOf(db: Db<ArchiveTables>, given: string): Promise<string | null> {
  return companyIdByIdOrRnc(db, given);
}
