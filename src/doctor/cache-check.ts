// Redis answers, when there is one; several processes need it to share receiver seeds, tokens and DGII sessions.
import type { Config } from '../config.js';
import { createRedisCache } from '../platform/cache/redis-cache.js';
import { reasonOf, type CheckResult } from './check.js';

/** How long the doctor waits for Redis: it answers a ping in milliseconds when it is up. */
const redisWaitMs = 2_000;

export async function checkCache(config: Pick<Config, 'redisUrl' | 'fiscalEnv'>): Promise<CheckResult[]> {
  const result = (status: CheckResult['status'], line: string): CheckResult[] => [{ check: 'redis', status, line }];
  if (config.redisUrl === undefined)
    return config.fiscalEnv === 'PRODUCTION'
      ? result(
          'warning',
          'REDIS_URL is unset: each process keeps its own cache (receiver seeds and tokens, DGII sessions), which is right for one process only; set REDIS_URL when the roles run apart',
        )
      : result('ok', 'REDIS_URL is unset: an in-memory cache, for one process');
  // Host and port only: the URL may carry a password.
  const where = `Redis at ${new URL(config.redisUrl).host}`;
  const cache = await createRedisCache(config.redisUrl, 'ecf:', redisWaitMs);
  try {
    await cache.probe(redisWaitMs);
    return result('ok', `${where} answers`);
  } catch (error) {
    return result('failure', `${where} does not answer (${reasonOf(error)}): check REDIS_URL and that Redis runs`);
  } finally {
    await cache.close();
  }
}
