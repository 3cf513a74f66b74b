import { Redis } from 'ioredis';
import { withTimeout } from '../timeout.js';
import type { Cache } from './cache.js';

/** Resolves when the client is ready, or after `timeoutMs` (the cache then reports down until Redis answers). */
function readyWithin(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    }
    redis.once('ready', done);
  });
}

/**
 * Commands fail fast while Redis is down (no offline queue, one retry) so a request never hangs on the
 * cache; the client keeps reconnecting in the background and recovers by itself. Creation waits briefly for
 * the first connection, so the first commands do not fail merely because it was still being made.
 */
export async function createRedisCache(url: string, keyPrefix = 'ecf:', connectWaitMs = 3_000): Promise<Cache> {
  const redis = new Redis(url, {
    keyPrefix,
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Connection errors are reported by probe(); without a listener ioredis would print each one.
  redis.on('error', () => undefined);
  await readyWithin(redis, connectWaitMs);

  return {
    kind: 'redis',
    async get(key) {
      return (await redis.get(key)) ?? undefined;
    },
    async set(key, value, ttlSeconds) {
      await redis.set(key, value, 'EX', ttlSeconds);
    },
    async setIfAbsent(key, value, ttlSeconds) {
      return (await redis.set(key, value, 'EX', ttlSeconds, 'NX')) === 'OK';
    },
    async delete(key) {
      await redis.del(key);
    },
    async increment(key, ttlSeconds) {
      const [[incrError, count] = [], [expireError] = []] =
        (await redis.multi().incr(key).expire(key, ttlSeconds, 'NX').exec()) ?? [];
      if (incrError) throw incrError;
      if (expireError) throw expireError;
      return Number(count);
    },
    async probe(timeoutMs) {
      await withTimeout(redis.ping(), timeoutMs, 'Redis');
    },
    async close() {
      redis.disconnect();
      await Promise.resolve();
    },
  };
}
