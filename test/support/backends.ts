// Tests run against real PostgreSQL and Redis when they answer at their usual local addresses, and on the
// embedded defaults otherwise. TEST_BACKEND=embedded forces the embedded path even when servers are up.
import { createHash, randomBytes } from 'node:crypto';
import { Buffer } from 'node:buffer';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createConnection } from 'node:net';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openDatabase, type DatabaseTarget } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';

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

// The service's migrations, as one version: a template made from them serves until one changes.
const migrationsDir = new URL('../../migrations/', import.meta.url).pathname;
const migrationsVersion = createHash('sha256')
  .update(
    readdirSync(migrationsDir)
      .sort()
      .map((name) => `${name}\0${readFileSync(join(migrationsDir, name), 'utf8')}`)
      .join('\0'),
  )
  .digest('hex')
  .slice(0, 16);

// A migrated database is cloned, not migrated: the service's ~30 migrations are most of a test app's start (1–2 s on
// PostgreSQL, more on PGlite, whose initdb is most of the rest), and the suite starts hundreds of apps.
const templateName = `ecf_tpl_${migrationsVersion}`;
const templates = new Map<string, Promise<void>>();

/** Makes the server's migrated template once: under an advisory lock across the suite's processes, built under
 * another name and renamed when whole, so a build cut short is never cloned. */
function migratedTemplate(serverUrl: string): Promise<void> {
  let made = templates.get(serverUrl);
  if (made === undefined) {
    made = (async () => {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      try {
        await admin.query('select pg_advisory_lock(hashtext($1))', [templateName]);
        const found = await admin.query('select 1 from pg_database where datname = $1', [templateName]);
        if (found.rowCount === 0) {
          const building = `ecf_tplb_${randomBytes(6).toString('hex')}`;
          await admin.query(`create database ${building}`);
          const url = new URL(serverUrl);
          url.pathname = `/${building}`;
          const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 1 });
          try {
            await migrateToLatest(handle.db);
          } finally {
            await handle.close();
          }
          await admin.query(`alter database ${building} rename to ${templateName}`);
        }
      } finally {
        await admin.end();
      }
    })();
    templates.set(serverUrl, made);
    made.catch(() => templates.delete(serverUrl));
  }
  return made;
}

const imageFile = join(
  'node_modules/.cache',
  `ecf-pglite-${migrationsVersion}-${(JSON.parse(readFileSync('node_modules/@electric-sql/pglite/package.json', 'utf8')) as { version: string }).version}.tar`,
);
let image: Promise<Blob> | undefined;

/** The data directory of a migrated in-memory PGlite, made once and kept on disk for the suite's other processes
 * (written under a temporary name and renamed, so a reader never sees half a file). */
function migratedImage(): Promise<Blob> {
  image ??= (async () => {
    if (!existsSync(imageFile)) {
      // Migrated on disk through the service's own gateway, then dumped by a plain PGlite over the same files.
      const dataDir = mkdtempSync(join(tmpdir(), 'ecf-pglite-image-'));
      try {
        const handle = await openDatabase({ kind: 'pglite', dataDir });
        try {
          await migrateToLatest(handle.db);
        } finally {
          await handle.close();
        }
        const pglite = await PGlite.create(join(dataDir, 'pgdata'));
        const dump = await pglite.dumpDataDir('none');
        await pglite.close();
        mkdirSync(dirname(imageFile), { recursive: true });
        const partial = `${imageFile}.${randomBytes(4).toString('hex')}`;
        writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
        renameSync(partial, imageFile);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
    return new Blob([readFileSync(imageFile)]);
  })();
  image.catch(() => {
    image = undefined;
  });
  return image;
}

/**
 * A fresh database: its own PostgreSQL database when the server answers, in-memory PGlite otherwise. Empty, or with
 * `migrated` the service's migrations applied (cloned from a template made once).
 */
export async function createTestDatabase(
  options: { embedded?: boolean; poolSize?: number; server?: string; migrated?: boolean } = {},
): Promise<TestDatabase> {
  // `server`: the admin URL of another server than the shared one (a test's private cluster: private-postgres.ts).
  const serverUrl = options.server ?? adminUrl;
  if (options.server === undefined && (options.embedded === true || !(await postgresAvailable()))) {
    const target: DatabaseTarget =
      options.migrated === true ? { kind: 'pglite-memory', image: await migratedImage() } : { kind: 'pglite-memory' };
    return { target, url: undefined, drop: () => Promise.resolve() };
  }
  if (options.migrated === true) await migratedTemplate(serverUrl);
  const name = `ecf_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}${options.migrated === true ? ` template ${templateName}` : ''}`);
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
