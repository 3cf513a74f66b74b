import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { redisAvailable, testRedisUrl } from '../../../test/support/backends.js';
import { fixedClock } from '../clock.js';
import type { Cache } from './cache.js';
import { createMemoryCache } from './memory-cache.js';
import { createRedisCache } from './redis-cache.js';

interface Subject {
  cache: Cache;
  expire: (seconds: number) => Promise<void>;
  /** The last command the server saw on the cache's own connection; absent for a cache with no server. */
  lastCommand?: () => Promise<string | undefined>;
}

function cacheContract(label: string, open: () => Promise<Subject>, skip: string | false = false) {
  describe(`cache contract: ${label}`, { skip }, () => {
    let subject: Subject;
    before(async () => {
      subject = await open();
    });
    after(async () => {
      await subject.cache.close();
    });

    it('stores, reads and deletes values', async () => {
      const { cache } = subject;
      assert.equal(await cache.get('missing'), undefined);
      await cache.set('greeting', 'hola', 60);
      assert.equal(await cache.get('greeting'), 'hola');
      await cache.delete('greeting');
      assert.equal(await cache.get('greeting'), undefined);
    });

    it('sets only when absent', async () => {
      const { cache } = subject;
      assert.equal(await cache.setIfAbsent('once', 'first', 60), true);
      assert.equal(await cache.setIfAbsent('once', 'second', 60), false);
      assert.equal(await cache.get('once'), 'first');
    });

    it('counts increments within one window and starts again after it expires', async () => {
      const { cache, expire } = subject;
      assert.deepEqual(
        [await cache.increment('hits', 1), await cache.increment('hits', 1), await cache.increment('hits', 1)],
        [1, 2, 3],
      );
      await expire(1.2);
      assert.equal(await cache.increment('hits', 1), 1);
    });

    it('forgets values after their TTL', async () => {
      const { cache, expire } = subject;
      await cache.set('short', 'x', 1);
      await expire(1.2);
      assert.equal(await cache.get('short'), undefined);
    });

    it('answers its probe', async () => {
      await subject.cache.probe(1_000);
      // The answer comes from the server: the probe's PING is the last thing its connection sent.
      if (subject.lastCommand !== undefined) assert.equal(await subject.lastCommand(), 'ping');
    });
  });
}

cacheContract('memory', () => {
  const clock = fixedClock(new Date('2026-11-21T12:00:00Z'));
  return Promise.resolve({
    cache: createMemoryCache(clock),
    expire: (seconds: number) => {
      clock.advance(seconds * 1_000);
      return Promise.resolve();
    },
  });
});

cacheContract(
  'Redis',
  async () => {
    // A prefix per run keeps parallel test files apart on the shared server; the connection's name finds it there.
    const name = `ecf-test-${randomUUID()}`;
    const url = new URL(testRedisUrl());
    url.searchParams.set('connectionName', name);
    const cache = await createRedisCache(url.toString(), `ecf-test:${randomUUID()}:`);
    return {
      cache,
      expire: (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1_000)),
      async lastCommand() {
        const observer = new Redis(testRedisUrl(), { lazyConnect: true });
        try {
          const clients = (await observer.client('LIST')) as string;
          const own = clients.split('\n').find((line) => line.includes(` name=${name} `));
          return own === undefined ? undefined : /\bcmd=(\S+)/.exec(own)?.[1];
        } finally {
          observer.disconnect();
        }
      },
    };
  },
  (await redisAvailable()) ? false : 'Redis does not answer at 127.0.0.1:6379 (CI starts it; run .ci/run)',
);

describe('Redis cache when Redis is down', () => {
  it('fails its probe quickly with a reason instead of hanging', async () => {
    const cache = await createRedisCache('redis://127.0.0.1:1', 'ecf-test:', 200);
    const started = Date.now();
    await assert.rejects(cache.probe(500), (error: unknown) => error instanceof Error && error.message.length > 0);
    assert.ok(Date.now() - started < 3_000);
    await cache.close();
  });
});
