#!/usr/bin/env node
// The `ecf` command. `start` runs every role in one process on the configured (by default embedded) back
// ends; `serve`, `worker` and `scheduler` run one role each so they can scale apart; `migrate` only migrates.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// Each command imports only what it runs (below, with `await import`): the whole application (Fastify, the S3
// client, the XSD sets, the DGII sandbox) costs well over 100 MB of RSS before doing anything, and `ecf taxpayers
// import` must stay within its memory budget (<= 300 MB for a million rows: bench/taxpayers.bench.ts).
import type { Application, Roles } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import {
  enforceProductionRules,
  ProductionStartRefusedError,
  warningLine,
  type Objection,
} from './doctor/production-rules.js';
import { databaseTarget } from './platform/db/database-target.js';
import { openDatabase } from './platform/db/database.js';
import { DataDirInUseError } from './platform/db/data-dir-lock.js';
import { DatabaseEnvironmentError } from './platform/db/environment-guard.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { setProcessNice } from './platform/process-priority.js';
import { MasterKeyMismatchError } from './platform/master-key.js';
import { findXsdDir } from './platform/xsd/xsd-dir.js';

const usage = (taxpayersUsage: string) => `Usage: ecf <command>

  start      API, worker and scheduler in one process (embedded defaults when DATABASE_URL is unset)
  serve      the HTTP API only
  worker     the background job worker only
  scheduler  the recurring-job scheduler only
  migrate    apply pending database migrations and exit
  sandbox    the DGII sandbox alone: ecf sandbox [--port 4010] [--host H] [--admin]
  taxpayers  load DGII's taxpayer listing: ${taxpayersUsage}
  archive    check the fiscal archive, or export a company's period for an audit:
             ecf archive verify [--company <id|rnc>] [--from <yyyy-mm-dd>] [--to <yyyy-mm-dd>]
             ecf archive export --company <id|rnc> --from <yyyy-mm-dd> --to <yyyy-mm-dd> --out <file.zip>
  certification  DGII's certification set workbook to the set file: ecf certification convert <workbook.xlsx> [--label <text>]
  xsd        install DGII's XSDs under DATA_DIR, where the service finds them: ecf xsd install <dir|file.zip|URL>
  doctor     check this deployment before the first real invoice, reading only: ecf doctor [--json]
             (one line per check; exit 0 all ok, 1 warnings, 2 failures)
  help       this text

Configuration comes from the environment; see docs/configuration.md.`;

// `start` runs app.js's allRoles.
const roleSets: Record<'serve' | 'worker' | 'scheduler', Roles> = {
  serve: { http: true, work: false, schedule: false },
  worker: { http: false, work: true, schedule: false },
  scheduler: { http: false, work: false, schedule: true },
};

function baseUrlOf(config: Config, address: string): string {
  return config.publicBaseUrl ?? address;
}

function printDemo(
  credentials: { apiKey: string; companyId: string; rnc: string; baseUrl: string },
  path: string,
  sandboxUrl: string | undefined,
  environment: string,
): void {
  process.stdout.write(
    [
      '',
      'Demo company provisioned (embedded default). This API key is shown once:',
      '',
      `  ${credentials.apiKey}`,
      '',
      `  company ${credentials.companyId}, RNC ${credentials.rnc}, environment ${environment}`,
      `  try:    curl -H "x-api-key: <key>" ${credentials.baseUrl}/api/v1/empresa`,
      `  saved:  ${path} (mode 0600)`,
      ...(sandboxUrl === undefined
        ? []
        : [
            `  DGII:   the embedded DGII sandbox at ${sandboxUrl} (the demo company is registered there)`,
            `  mail:   ${sandboxUrl}/sandbox-admin/mail (Authorization: Bearer <sandboxAdminToken, saved above>)`,
          ]),
      '',
    ].join('\n'),
  );
}

/** What a PRODUCTION start goes on with: each warning, and each refusal PRODUCTION_ALLOW overrides, every start. */
function logObjections(application: Application, objections: readonly Objection[]): void {
  for (const objection of objections)
    application.log.warn(
      { setting: objection.setting, ...(objection.overridden ? { productionAllow: objection.override } : {}) },
      warningLine(objection),
    );
}

async function runRoles(command: 'start' | keyof typeof roleSets, config: Config): Promise<Application> {
  // Before anything is opened or loaded: a refused start costs nothing and changes nothing.
  const objections = enforceProductionRules(config, await findXsdDir(config));
  const { allRoles, buildApplication } = await import('./app.js');
  const { afterListening, demoCredentialsPath } = await import('./demo.js');
  const roles = command === 'start' ? allRoles : roleSets[command];
  const application = await buildApplication({ config, roles, embeddedSandbox: command === 'start' });
  logObjections(application, objections);
  const stop = (signal: string) => {
    application.log.info({ signal }, 'shutting down');
    application.close().then(
      () => process.exit(0),
      (error: unknown) => {
        application.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  if (application.http !== undefined) {
    const address = await application.http.app.listen({ port: config.port, host: config.host });
    application.log.info(
      { address, environment: config.fiscalEnv, database: application.database.kind },
      'ecf-service listening',
    );
    const demo = command === 'start' ? await afterListening(application, baseUrlOf(config, address)) : undefined;
    if (demo !== undefined) {
      if (demo.created)
        printDemo(
          demo.credentials,
          demoCredentialsPath(config.dataDir),
          application.dgii.sandbox === undefined ? undefined : application.dgii.baseUrl,
          config.fiscalEnv,
        );
      else application.log.info({ credentials: demoCredentialsPath(config.dataDir) }, 'demo company ready');
    }
  } else {
    // Background work yields the CPU to an API on the same host (deliveries draining must not slow its answers).
    if (config.backgroundNice > 0) setProcessNice(config.backgroundNice);
    application.log.info({ roles, environment: config.fiscalEnv, nice: config.backgroundNice }, 'ecf-service running');
  }
  return application;
}

async function migrate(config: Config): Promise<void> {
  const database = await openDatabase(databaseTarget(config));
  try {
    const applied = await migrateToLatest(database.db);
    process.stdout.write(applied.length === 0 ? 'Database is up to date.\n' : `Applied: ${applied.join(', ')}\n`);
  } finally {
    await database.close();
  }
}

export async function run(argv: readonly string[]): Promise<void> {
  const command = argv[0] ?? 'start';
  // The expected failures of the commands loaded so far: one clear line, not a stack trace.
  const expected: (abstract new (...args: never[]) => Error)[] = [
    ConfigError,
    DataDirInUseError,
    DatabaseEnvironmentError,
    MasterKeyMismatchError,
    ProductionStartRefusedError,
  ];
  try {
    if (command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(`${usage((await import('./modules/taxpayers/index.js')).taxpayersUsage)}\n`);
      return;
    }
    if (command === 'certification') {
      // Offline: reads a workbook, writes JSON; needs no configuration, database or network.
      const { runCertificationCommand } = await import('./modules/certification/index.js');
      process.exitCode = await runCertificationCommand(argv.slice(1));
      return;
    }
    if (command === 'doctor') {
      // Before the configuration is read: a bad setting is one of the failures it reports.
      const { runDoctorCommand } = await import('./doctor/doctor-command.js');
      process.exitCode = await runDoctorCommand(argv.slice(1));
      return;
    }
    const config = loadConfig();
    if (command === 'migrate') {
      await migrate(config);
      return;
    }
    if (command === 'sandbox') {
      const { runSandbox, SandboxArgumentError } = await import('./sandbox-command.js');
      expected.push(SandboxArgumentError);
      const sandbox = await runSandbox(argv.slice(1), config);
      process.stdout.write(
        `DGII sandbox at ${sandbox.url} (TesteCF: ${sandbox.url}/testecf/autenticacion/api/autenticacion/semilla)\n`,
      );
      const stop = () => {
        sandbox.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return;
    }
    if (command === 'taxpayers') {
      const { runTaxpayersCommand, TaxpayersArgumentError } = await import('./modules/taxpayers/index.js');
      expected.push(TaxpayersArgumentError);
      process.exitCode = await runTaxpayersCommand(argv.slice(1), databaseTarget(config));
      return;
    }
    if (command === 'archive') {
      const { runArchiveCommand, ArchiveArgumentError } = await import('./modules/archive/index.js');
      expected.push(ArchiveArgumentError);
      process.exitCode = await runArchiveCommand(argv.slice(1), config);
      return;
    }
    if (command === 'xsd') {
      const { runXsdCommand } = await import('./xsd-command.js');
      process.exitCode = await runXsdCommand(argv.slice(1), config);
      return;
    }
    if (command === 'start' || command === 'serve' || command === 'worker' || command === 'scheduler') {
      await runRoles(command, config);
      return;
    }
    process.stderr.write(
      `Unknown command "${command}".\n\n${usage((await import('./modules/taxpayers/index.js')).taxpayersUsage)}\n`,
    );
    process.exitCode = 2;
  } catch (error) {
    // Expected start-up failures get one clear line, not a stack trace.
    if (error instanceof Error && expected.some((type) => error instanceof type)) {
      process.stderr.write(`ecf: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

const entry = process.argv[1];
if (entry !== undefined && realpathSync(entry) === fileURLToPath(import.meta.url)) await run(process.argv.slice(2));
