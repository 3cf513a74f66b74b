// The private cluster does what outage tests rely on: a restart ends open connections the way PostgreSQL ends them
// (57P01), a stopped server refuses connections, a started one takes them again, and a proxy's cut() drops them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { privatePostgresAvailable, startPrivatePostgres, type PrivatePostgres } from './support/private-postgres.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { skipUnlessTools } from './support/tools.js';

const unavailable =
  skipUnlessTools('initdb', 'pg_ctl') ||
  ((await privatePostgresAvailable())
    ? false
    : 'needs initdb and pg_ctl in one directory and, as root, a postgres OS user');

type PgError = Error & { code?: string };

/** A connected client and its first 'error': without a listener, an error pg emits would end the test process. */
async function connected(connectionString: string): Promise<{ client: pg.Client; failed: Promise<PgError> }> {
  const client = new pg.Client({ connectionString });
  const failed = new Promise<PgError>((resolve) => client.on('error', resolve));
  await client.connect();
  return { client, failed };
}

async function selectOne(connectionString: string): Promise<void> {
  const { client } = await connected(connectionString);
  try {
    const { rows } = await client.query<{ one: number }>('select 1 as one');
    assert.deepEqual(rows, [{ one: 1 }]);
  } finally {
    await client.end();
  }
}

describe('a private PostgreSQL cluster', { skip: unavailable }, () => {
  let server: PrivatePostgres;
  let proxy: TcpProxy | undefined;
  let url: string;

  before(async () => {
    server = await startPrivatePostgres();
    url = await server.createDatabase();
  });

  after(async () => {
    await proxy?.close();
    await server.close();
  });

  it('serves a fresh database', async () => {
    await selectOne(url);
  });

  it('ends an open connection with 57P01 on a fast restart and takes new ones after it', async () => {
    const { client, failed } = await connected(url);
    await server.restart('fast');
    assert.equal((await failed).code, '57P01', await server.logTail());
    await client.end().catch(() => undefined);
    await selectOne(url);
  });

  it('refuses connections while stopped and takes them again once started', async () => {
    await server.stop('fast');
    await assert.rejects(selectOne(url), { code: 'ECONNREFUSED' });
    await server.start();
    await selectOne(url);
  });

  it("drops an open connection through a proxy's cut() and takes a new one on the same port", async () => {
    proxy = await startTcpProxy({ host: '127.0.0.1', port: server.port });
    const proxied = new URL(url);
    proxied.port = String(proxy.port);
    const { client, failed } = await connected(proxied.toString());
    await client.query('select 1');
    proxy.cut();
    assert.equal((await failed).message, 'Connection terminated unexpectedly');
    await client.end().catch(() => undefined);
    await selectOne(proxied.toString());
  });
});
