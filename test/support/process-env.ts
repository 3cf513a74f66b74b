// The environment of a separate `ecf` process (e.g. `ecf worker`) working on a test app's world: its PostgreSQL
// database, master key, blobs and cache, with `extra` (DGII's URLs, timings). PostgreSQL only: PGlite is one
// process's.
import assert from 'node:assert/strict';
import type { TestApp } from './test-app.js';

export function processEnvOf(app: TestApp, extra: Record<string, string>): Record<string, string> {
  const { config } = app;
  if (app.application.database.kind !== 'postgres')
    throw new Error('another process can share only a PostgreSQL database');
  if (config.masterKey === undefined || config.storage.kind !== 'fs')
    throw new Error('the test app has no master key or no file storage');
  assert.ok(app.databaseUrl !== undefined);
  return {
    NODE_ENV: 'test',
    FISCAL_ENV: config.fiscalEnv,
    DATA_DIR: app.dataDir,
    DATABASE_URL: app.databaseUrl,
    MASTER_KEY: config.masterKey.toString('base64'),
    STORAGE: 'fs',
    STORAGE_DIR: config.storage.root,
    ...(config.redisUrl === undefined ? {} : { REDIS_URL: config.redisUrl }),
    ...extra,
  };
}
