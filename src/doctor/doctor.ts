// `ecf doctor`'s checks, in the order an operator fixes things: the configuration's production rules beside the
// back end each names (database, Redis, storage, OPS_TOKEN, XSDs), the master key, DGII, then each company. Read
// only: it migrates nothing, records nothing, writes no object and keeps no DGII token beyond its own run. A check
// that throws is a failure line, and the checks after it still run.
import type { Config } from '../config.js';
import { configuredDgiiClient } from '../dgii/index.js';
import { companyIds, createCompaniesService, type CompaniesService } from '../modules/companies/index.js';
import { createDgiiSessionsService, type DgiiSessionsService } from '../modules/dgii-sessions/index.js';
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

interface CompanyCheckDeps {
  db: Db;
  config: Config;
  now: Date;
  companies: CompaniesService;
  /** Undefined with the embedded sandbox: there is no DGII to authenticate with. */
  sessions: DgiiSessionsService | undefined;
  /** The master key opens the certificate keys: without that no DGII authentication is tried. */
  keyOpens: boolean;
  progress: (what: string) => void;
}

/** One company's lines: certificate, DGII authentication, ranges, receiver. */
async function checkCompany(company: CompanyRef, deps: CompanyCheckDeps): Promise<CheckResult[]> {
  const { db, config, now, sessions, progress } = deps;
  const per = (check: string, run: () => Promise<CheckResult[]>) => guarded(check, run, company.rnc);
  const results = await per('certificate', async () => [await checkCertificate(company, deps.companies, now)]);
  if (sessions !== undefined)
    results.push(
      ...(await per('dgii-auth', async () => {
        if (!deps.keyOpens)
          return [
            {
              check: 'dgii-auth',
              company: company.rnc,
              status: 'failure',
              line: 'not tried: the master key does not open its certificate key (see master-key)',
            },
          ];
        progress(`authenticating ${company.rnc} with DGII`);
        return [await checkDgiiAuthentication(company, sessions, config.fiscalEnv)];
      })),
    );
  results.push(...(await per('ranges', async () => [await checkRanges(company, db, config, now)])));
  results.push(
    ...(await per('receiver', async () => {
      const receiver = await checkReceiver(company, db, config, progress);
      return receiver === undefined ? [] : [receiver];
    })),
  );
  return results;
}

/** The master key, DGII and the companies: what needs the database. */
async function checkWithDatabase(db: Db, options: DoctorOptions): Promise<CheckResult[]> {
  const { config, clock, progress } = options;
  const now = clock.now();
  const found = findMasterKey(config);
  // Without a key, a stand-in: nothing sealed is opened with it (the master-key check fails, and no DGII
  // authentication is tried), while the companies' plain records are still read.
  const masterKey = found.key ?? Buffer.alloc(32);
  const companies = createCompaniesService({ db, clock, masterKey });
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

  if (config.dgii.sandbox === 'embedded') {
    results.push({
      check: 'dgii',
      status: 'ok',
      line: 'DGII is the sandbox `ecf start` runs beside the service (DGII_SANDBOX=embedded): nothing of DGII to check',
    });
    for (const company of refs)
      results.push(
        ...(await checkCompany(company, { db, config, now, companies, sessions: undefined, keyOpens, progress })),
      );
    return results;
  }
  // No shared cache: the doctor's DGII tokens live and die with it, and never replace the service's.
  const dgii = configuredDgiiClient(config, {
    urls: config.dgii,
    clock,
    log: createLogger('silent'),
    credentials: (companyId) => sessions.credentialsOf(companyId),
  });
  const sessions = createDgiiSessionsService({ db, clock, environment: config.fiscalEnv, masterKey, companies, dgii });
  try {
    progress("asking DGII's status service");
    results.push(...(await guarded('dgii-status', () => checkDgiiStatus(config, dgii, now))));
    for (const company of refs)
      results.push(...(await checkCompany(company, { db, config, now, companies, sessions, keyOpens, progress })));
  } finally {
    dgii.close();
  }
  return results;
}
