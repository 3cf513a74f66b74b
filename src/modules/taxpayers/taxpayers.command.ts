// `ecf taxpayers import <file-or-url>`: loads DGII's listing into the configured database, showing progress on
// stderr and the report on stdout. Rejected rows are reported, not fatal; an unreadable source or an unknown
// layout exits 1.
import { systemClock } from '../../platform/clock.js';
import { openDatabase, type DatabaseTarget } from '../../platform/db/database.js';
import { migrateToLatest } from '../../platform/db/migrate.js';
import { createProgress } from '../../platform/progress.js';
import { describeReport, importRegistry, RegistryLayoutError } from './registry-import.js';
import { RegistrySourceError } from './registry-source.js';

export const taxpayersUsage = 'ecf taxpayers import <file.zip|file.txt|https://…/DGII_RNC.zip>';

export class TaxpayersArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaxpayersArgumentError';
  }
}

export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

/** Returns the exit code. */
export async function runTaxpayersCommand(
  argv: readonly string[],
  database: DatabaseTarget,
  io: CommandIo = process,
): Promise<number> {
  const [action, location, ...extra] = argv;
  if (action !== 'import' || location === undefined || location === '' || extra.length > 0) {
    throw new TaxpayersArgumentError(`usage: ${taxpayersUsage}`);
  }
  const handle = await openDatabase(database);
  try {
    await migrateToLatest(handle.db);
    const progress = createProgress({ write: (text) => io.stderr.write(text), tty: io.stderr.isTTY === true });
    const report = await importRegistry({ db: handle.db, clock: systemClock }, location, { progress });
    io.stdout.write(describeReport(report));
    return 0;
  } catch (error) {
    if (error instanceof RegistrySourceError || error instanceof RegistryLayoutError) {
      io.stderr.write(`ecf: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await handle.close();
  }
}
