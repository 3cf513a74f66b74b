import type { Clock } from '../clock.js';
import type { Cache } from './cache.js';

interface Entry {
  value: string;
  expiresAt: number;
}

export function createMemoryCache(clock: Clock): Cache {
  const entries = new Map<string, Entry>();

  function live(key: string): Entry | undefined {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= clock.now().getTime()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  function put(key: string, value: string, ttlSeconds: number): void {
    entries.set(key, { value, expiresAt: clock.now().getTime() + ttlSeconds * 1_000 });
  }

  return {
    kind: 'memory',
    get: (key) => Promise.resolve(live(key)?.value),
    set(key, value, ttlSeconds) {
      put(key, value, ttlSeconds);
      return Promise.resolve();
    },
    setIfAbsent(key, value, ttlSeconds) {
      if (live(key) !== undefined) return Promise.resolve(false);
      put(key, value, ttlSeconds);
      return Promise.resolve(true);
    },
    delete(key) {
      entries.delete(key);
      return Promise.resolve();
    },
    increment(key, ttlSeconds) {
      const entry = live(key);
      if (entry === undefined) {
        put(key, '1', ttlSeconds);
        return Promise.resolve(1);
      }
      entry.value = String(Number(entry.value) + 1);
      return Promise.resolve(Number(entry.value));
    },
    probe: () => Promise.resolve(),
    close() {
      entries.clear();
      return Promise.resolve();
    },
  };
}
