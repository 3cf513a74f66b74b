import type { Clock } from '../clock.js';
import type { Cache } from './cache.js';
import { createMemoryCache } from './memory-cache.js';
import { createRedisCache } from './redis-cache.js';

export type { Cache } from './cache.js';

export function createCache(redisUrl: string | undefined, clock: Clock, keyPrefix?: string): Promise<Cache> {
  return redisUrl === undefined ? Promise.resolve(createMemoryCache(clock)) : createRedisCache(redisUrl, keyPrefix);
}
