// The master key is there, is the one the database was set up with, and opens what is sealed with it: every
// company's certificate key is opened (in memory, as signing does), so a key that only looks right is caught here.
import type { Config } from '../config.js';
import type { CompaniesService } from '../modules/companies/index.js';
import type { Db } from '../platform/db/database.js';
import { existingMasterKey, masterKeyMatches, MasterKeyMismatchError } from '../platform/master-key.js';
import { reasonOf, type CheckResult } from './check.js';

export interface CompanyRef {
  id: string;
  rnc: string;
}

/** The configured or kept key, read without making one, or why it cannot be read. */
export type FoundMasterKey = { key: Buffer; source: string } | { key: undefined; problem: string | undefined };

export function findMasterKey(config: Pick<Config, 'masterKey' | 'dataDir'>): FoundMasterKey {
  try {
    const key = existingMasterKey(config.masterKey, config.dataDir);
    if (key === undefined) return { key, problem: undefined };
    return { key, source: config.masterKey === undefined ? 'DATA_DIR/master.key' : 'MASTER_KEY' };
  } catch (error) {
    return { key: undefined, problem: reasonOf(error) };
  }
}

/** The lines, and whether the key opens every company's certificate key (the DGII checks need those). */
export async function checkMasterKey(
  found: FoundMasterKey,
  db: Db,
  companies: CompaniesService,
  companyRefs: readonly CompanyRef[],
): Promise<{ results: CheckResult[]; opens: boolean }> {
  const result = (status: CheckResult['status'], line: string) => ({
    results: [{ check: 'master-key', status, line }],
    opens: status === 'ok',
  });
  if (found.key === undefined) {
    if (found.problem !== undefined)
      return result('failure', `${found.problem}: set MASTER_KEY to the key the database was set up with`);
    return companyRefs.length === 0
      ? result('ok', 'no master key yet (MASTER_KEY unset, no DATA_DIR/master.key): the first start makes one')
      : result(
          'failure',
          'MASTER_KEY is unset and there is no DATA_DIR/master.key: what this database keeps sealed cannot be opened; set MASTER_KEY to the key it was set up with',
        );
  }
  const matches = await masterKeyMatches(db, found.key);
  if (matches === false) return result('failure', new MasterKeyMismatchError().message);
  let opened = 0;
  for (const company of companyRefs) {
    try {
      if ((await companies.signingIdentity(company.id)) !== undefined) opened += 1;
    } catch (error) {
      return result(
        'failure',
        `${found.source} does not open the certificate key of company ${company.rnc} (${reasonOf(error)}): set MASTER_KEY to the key it was sealed with`,
      );
    }
  }
  const recorded =
    matches === undefined
      ? 'is not recorded in this database yet (its first start records it)'
      : 'matches this database';
  return result('ok', `${found.source} ${recorded} and opens the ${opened} certificate key(s) sealed with it`);
}
