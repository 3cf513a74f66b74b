// `ecf doctor`'s checks, in the order an operator fixes things: the configuration's production rules beside the
// back end each names (database, Redis, storage, OPS_TOKEN, XSDs), the master key, DGII, then each company. Read
// only: it migrates nothing, records nothing, writes no object and keeps no DGII token beyond its own run. A check
// that throws is a failure line, and the checks after it still run.
import type { Config } from '../config.js';
import { configuredDgiiClient } from '../dgii/index.js';
import { environmentSegment } from '../fiscal/environment.js';
import { companyIds, createCompaniesService } from '../modules/companies/index.js';
import { createDgiiSessionsService } from '../modules/dgii-sessions/index.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/db/database.js';
import { createLogger } from '../platform/observability/logger.js';
import { checkCache } from './cache-check.js';
import { reasonOf, type CheckResult } from './check.js';
import { checkCertificate, checkRanges, checkReceiver } from './company-checks.js';
import { checkDatabase } from './database-check.js';
import { checkDgiiAuthentication, checkDgiiStatus } from './dgii-checks.js';
import { checkMasterKey, findMasterKey, type CompanyRef } from './master-key-check.js';
import { checkOpsToken, checkXsds } from './settings-checks.js';
import { checkStorage } from './storage-check.js';

export interface DoctorOptions {
  config: Config;
  clock: Clock;
  /** Says a slow check is under way (stderr). */
  progress: (what: string) => void;
}

/** A check that throws fails with its reason instead of stopping the others. */
async function guarded(check: string, run: () => Promise<CheckResult[]>, company?: string): Promise<CheckResult[]> {
  try {
    return await run();
  } catch (error) {
    return [
      {
        check,
        ...(company === undefined ? {} : { company }),
        status: 'failure',
        line: `could not check: ${reasonOf(error)}`,
      },
    ];
  }
}

export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  const { config, progress } = options;
  progress('opening the database');
  const { results, database } = await checkDatabase(config);
  try {
    progress('asking Redis');
    results.push(...(await guarded('redis', () => checkCache(config))));
    progress("reading the archive's storage");
    results.push(...(await guarded('storage', () => checkStorage(config))));
    results.push(...checkOpsToken(config));
    results.push(...(await guarded('xsds', () => checkXsds(config, progress))));
    if (database !== undefined) results.push(...(await checkWithDatabase(database.db, options)));
  } finally {
    await database?.close();
  }
  return results;
}

/** The master key, DGII and the companies: what needs the database. */
async function checkWithDatabase(db: Db, options: DoctorOptions): Promise<CheckResult[]> {
  const { config, clock, progress } = options;
  const now = clock.now();
  const found = findMasterKey(config);
  // Without a key nothing sealed is opened below (the DGII checks need it and wait for the master-key check).
  const companies = createCompaniesService({ db, clock, masterKey: found.key ?? Buffer.alloc(32) });
  const refs: CompanyRef[] = [];
  for (const id of await companyIds(db)) {
    const company = await companies.get(id);
    if (company !== undefined) refs.push({ id, rnc: company.rnc });
  }
  let keyOpens = false;
  const results = await guarded('master-key', async () => {
    const checked = await checkMasterKey(found, db, companies, refs);
    keyOpens = checked.opens;
    return checked.results;
  });

  const embedded = config.dgii.sandbox === 'embedded';
  const dgii = configuredDgiiClient(config, {
    urls: config.dgii,
    clock,
    log: createLogger('silent'),
    credentials: (companyId) => sessions.credentialsOf(companyId),
  });
  const sessions = createDgiiSessionsService({
    db,
    clock,
    environment: config.fiscalEnv,
    masterKey: found.key ?? Buffer.alloc(32),
    companies,
    dgii,
  });
  const environment = `${config.fiscalEnv} (${environmentSegment[config.fiscalEnv]})`;
  try {
    if (embedded)
      results.push({
        check: 'dgii',
        status: 'ok',
        line: 'DGII is the sandbox `ecf start` runs beside the service (DGII_SANDBOX=embedded): nothing of DGII to check',
      });
    else {
      progress("asking DGII's status service");
      results.push(...(await guarded('dgii-status', () => checkDgiiStatus(config, dgii, now))));
    }
    for (const company of refs) {
      const per = (check: string, run: () => Promise<CheckResult[]>) => guarded(check, run, company.rnc);
      results.push(...(await per('certificate', async () => [await checkCertificate(company, companies, now)])));
      if (!embedded)
        results.push(
          ...(await per('dgii-auth', async () => {
            if (!keyOpens)
              return [
                {
                  check: 'dgii-auth',
                  company: company.rnc,
                  status: 'failure',
                  line: 'not tried: the master key does not open its certificate key (see master-key)',
                },
              ];
            progress(`authenticating ${company.rnc} with DGII`);
            return [await checkDgiiAuthentication(company, sessions, environment)];
          })),
        );
      results.push(...(await per('ranges', async () => [await checkRanges(company, db, config, now)])));
      results.push(
        ...(await per('receiver', async () => {
          const receiver = await checkReceiver(company, db, config, progress);
          return receiver === undefined ? [] : [receiver];
        })),
      );
    }
  } finally {
    dgii.close();
  }
  return results;
}
