// `ecf sandbox`: the DGII sandbox on its own, for integrators trying the protocol without DGII. State in
// DATABASE_URL when set, else in its own PGlite directory under DATA_DIR; DGII's XSDs from ECF_XSD_DIR or
// the set `ecf xsd install` put under DATA_DIR.
import { join } from 'node:path';
import type { Config } from './config.js';
import { databaseTarget } from './platform/db/database-target.js';
import { systemClock } from './platform/clock.js';
import { openDatabase } from './platform/db/database.js';
import { createLogger, logLines } from './platform/observability/logger.js';
import { findXsdDir, loadSchemaSet } from './platform/xsd/index.js';
import { createSandbox } from './sandbox/index.js';

export interface SandboxArguments {
  port: number;
  host: string;
  admin: boolean;
}

export class SandboxArgumentError extends Error {}

export function parseSandboxArguments(argv: readonly string[], config: Config): SandboxArguments {
  const parsed: SandboxArguments = {
    port: 4010,
    host: config.host,
    admin: config.dgii.sandboxAdminToken !== undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    const value = argv[i + 1];
    if (argument === '--admin') parsed.admin = true;
    else if (argument === '--port' && value !== undefined && /^\d+$/.test(value) && Number(value) <= 65_535) {
      parsed.port = Number(value);
      i++;
    } else if (argument === '--host' && value !== undefined) {
      parsed.host = value;
      i++;
    } else {
      throw new SandboxArgumentError(
        `ecf sandbox: unexpected argument "${String(argument)}" (usage: ecf sandbox [--port N] [--host H] [--admin])`,
      );
    }
  }
  return parsed;
}

export async function runSandbox(
  argv: readonly string[],
  config: Config,
): Promise<{ url: string; close(): Promise<void> }> {
  const options = parseSandboxArguments(argv, config);
  const log = createLogger(config.logLevel, undefined, logLines(config));
  const database = await openDatabase(databaseTarget(config, join(config.dataDir, 'sandbox')));
  try {
    const schemas = await loadSchemaSet(await findXsdDir(config), log);
    const sandbox = await createSandbox({
      db: database.db,
      clock: systemClock,
      log,
      schemas,
      admin: { enabled: options.admin, token: config.dgii.sandboxAdminToken },
    });
    const url = await sandbox.listen(options.port, options.host);
    log.info({ url, admin: options.admin, database: database.kind }, 'DGII sandbox listening');
    return {
      url,
      async close() {
        await sandbox.close();
        schemas?.dispose();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
