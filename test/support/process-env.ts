// The environment of a separate `ecf` process (e.g. `ecf worker`) working on a test app's world: its PostgreSQL
// database, master key, blobs and cache, with `extra` (DGII's URLs, timings). PostgreSQL only: PGlite is one
// process's.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { TestApp } from './test-app.js';

/** The server behind test databases (as test/support/backends.ts reaches it). */
const testServerUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function processEnvOf(app: TestApp, extra: Record<string, string>): Promise<Record<string, string>> {
  const { config } = app;
  if (app.application.database.kind !== 'postgres')
    throw new Error('another process can share only a PostgreSQL database');
  if (config.masterKey === undefined || config.storage.kind !== 'fs')
    throw new Error('the test app has no master key or no file storage');
  const name = (await sql<{ name: string }>`select current_database() as name`.execute(app.application.database.db))
    .rows[0]?.name;
  assert.ok(name !== undefined);
  const databaseUrl = new URL(testServerUrl);
  databaseUrl.pathname = `/${name}`;
  return {
    NODE_ENV: 'test',
    FISCAL_ENV: config.fiscalEnv,
    DATA_DIR: app.dataDir,
    DATABASE_URL: databaseUrl.toString(),
    MASTER_KEY: config.masterKey.toString('base64'),
    STORAGE: 'fs',
    STORAGE_DIR: config.storage.root,
    ...(config.redisUrl === undefined ? {} : { REDIS_URL: config.redisUrl }),
    ...extra,
  };
}
