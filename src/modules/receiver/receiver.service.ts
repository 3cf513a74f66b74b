// Which company a receiver path serves, and the parts the receiver routes need, wired from the app's adapters.
import type { Config } from '../../config.js';
import type { Cache } from '../../platform/cache/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { RecentReads, recentReadMs } from '../../platform/recent-reads.js';
import type { ReceivedService } from '../received/index.js';
import { createReceiverAuth } from './receiver-auth.js';
import { receiverBaseOf } from './receiver-base.js';
import { companyByRncOrId, companyBySegment, type ReceiverCompanyRow } from './receiver.repo.js';
import { localServiceSegment, type ReceiverDeps } from './receiver.routes.js';

export function createReceiver(deps: {
  db: Db;
  cache: Cache;
  clock: Clock;
  config: Pick<Config, 'fiscalEnv' | 'receiverAuthMode'>;
  /** The company `emisorreceptor` serves (RNC or id); undefined: none. */
  localCompany: string | undefined;
  received: ReceivedService;
  receiveApproval: ReceiverDeps['receiveApproval'];
}): ReceiverDeps & {
  forgetCompany(companyId: string): void;
  receiverBaseOf(companyId: string, instanceBaseUrl: string): Promise<string | undefined>;
} {
  const { db } = deps;
  const receiving = (row: ReceiverCompanyRow | undefined) =>
    row !== undefined && row.capabilities.includes('receiving') ? { id: row.id, rnc: row.rnc } : undefined;
  // Every reception names its company by path: kept for recentReadMs, forgotten at once when the company changes here.
  const recentCompanies = new RecentReads<{ id: string; rnc: string }>(recentReadMs, (company) => company.id);
  return {
    forgetCompany: (companyId) => {
      recentCompanies.forgetGroup(companyId);
    },
    /** Where the company's receiver answers on this instance; undefined where companyOf would not find it. */
    receiverBaseOf: (companyId, instanceBaseUrl) =>
      receiverBaseOf(db, companyId, instanceBaseUrl, deps.config.fiscalEnv),
    environment: deps.config.fiscalEnv,
    auth: createReceiverAuth({ cache: deps.cache, clock: deps.clock, mode: deps.config.receiverAuthMode }),
    received: deps.received,
    companyOf(segment) {
      const local = deps.localCompany;
      if (segment === localServiceSegment)
        return local === undefined
          ? Promise.resolve(undefined)
          : recentCompanies.read(segment, async () => receiving(await companyByRncOrId(db, local)));
      return recentCompanies.read(segment, async () => receiving(await companyBySegment(db, segment)));
    },
    receiveApproval: deps.receiveApproval,
  };
}
