// Tests run against real PostgreSQL and Redis when they answer at their usual local addresses, and on the
// embedded defaults otherwise. TEST_BACKEND=embedded forces the embedded path even when servers are up.
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/platform/db/database.js';

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const forceEmbedded = process.env.TEST_BACKEND === 'embedded';

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 1_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

let postgresUp: Promise<boolean> | undefined;
export function postgresAvailable(): Promise<boolean> {
  if (forceEmbedded) return Promise.resolve(false);
  const url = new URL(adminUrl);
  postgresUp ??= answers(url.hostname, Number(url.port || 5432));
  return postgresUp;
}

let redisUp: Promise<boolean> | undefined;
export function redisAvailable(): Promise<boolean> {
  if (forceEmbedded) return Promise.resolve(false);
  const url = new URL(redisUrl);
  redisUp ??= answers(url.hostname, Number(url.port || 6379));
  return redisUp;
}

export function testRedisUrl(): string {
  return redisUrl;
}

export interface TestDatabase {
  target: DatabaseTarget;
  url: string | undefined;
  drop(): Promise<void>;
}

/**
 * Connections per pool on a test database unless `poolSize` says otherwise: test files run side by side against one
 * server, each with apps and sandboxes of its own, and 5 keep them under its max_connections.
 */
const testPoolSize = 5;

/** A fresh, empty database: its own PostgreSQL database when the server answers, in-memory PGlite otherwise. */
export async function createTestDatabase(
  options: { embedded?: boolean; poolSize?: number; server?: string } = {},
): Promise<TestDatabase> {
  // `server`: the admin URL of another server than the shared one (a test's private cluster: private-postgres.ts).
  const serverUrl = options.server ?? adminUrl;
  if (options.server === undefined && (options.embedded === true || !(await postgresAvailable()))) {
    return { target: { kind: 'pglite-memory' }, url: undefined, drop: () => Promise.resolve() };
  }
  const name = `ecf_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    target: { kind: 'postgres', url: url.toString(), poolSize: options.poolSize ?? testPoolSize },
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
