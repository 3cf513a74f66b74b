import assert from 'node:assert/strict';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { assertFieldError } from './support/assert-problem.js';
import { postgresAvailable, redisAvailable, testRedisUrl } from './support/backends.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { opsToken, startTestApp, type TestApp } from './support/test-app.js';

// Asked before any suite is declared: node:test starts the first while the module still awaits.
const [redisUp, postgresUp] = await Promise.all([redisAvailable(), postgresAvailable()]);

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const allUp = {
  database: { status: 'up' },
  queue: { status: 'up' },
  cache: { status: 'up' },
  storage: { status: 'up' },
};

interface Readiness {
  status: string;
  checks: Record<'database' | 'queue' | 'cache' | 'storage', { status: string; error?: string }>;
}

/** Asks /ready until it answers `status`, for at most `timeoutMs`; returns the last answer either way. */
async function readyAnswering(testApp: TestApp, status: number, timeoutMs = 10_000): Promise<LightMyRequestResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await testApp.app.inject({ url: '/ready' });
    if (response.statusCode === status || Date.now() > deadline) return response;
    await sleep(200);
  }
}

function storageRoot(testApp: TestApp): string {
  const storage = testApp.config.storage;
  if (storage.kind !== 'fs') throw new Error('the test app should use filesystem storage');
  return storage.root;
}

describe('health and readiness', () => {
  let testApp: TestApp;
  before(async () => {
    testApp = await startTestApp();
  });
  after(async () => {
    await testApp.close();
  });

  it('answers /health with exactly {status: "ok"}, not enveloped', async () => {
    const response = await testApp.app.inject({ url: '/health' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.deepEqual(response.json(), { status: 'ok' });
  });

  it('answers /ready with every dependency up, not enveloped', async () => {
    const response = await testApp.app.inject({ url: '/ready' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ready', checks: allUp });
  });

  it('keeps the fs storage under DATA_DIR/blobs', () => {
    assert.equal(storageRoot(testApp), `${testApp.dataDir}/blobs`);
  });

  it('reports storage down (503) while its root is not a directory, and ready again once it is', async () => {
    const root = storageRoot(testApp);
    rmSync(root, { recursive: true, force: true });
    writeFileSync(root, 'not a directory');
    try {
      const down = await testApp.app.inject({ url: '/ready' });
      assert.equal(down.statusCode, 503);
      assert.match(String(down.headers['content-type']), /^application\/json/);
      const body = down.json<Readiness>();
      assert.equal(body.status, 'not_ready');
      assert.equal(body.checks.storage.status, 'down');
      // A public route: the kind of failure, never the path or the system error.
      assert.equal(body.checks.storage.error, 'unavailable');
      assert.deepEqual(body.checks.database, { status: 'up' });
      assert.deepEqual(body.checks.queue, { status: 'up' });
      assert.deepEqual(body.checks.cache, { status: 'up' });
    } finally {
      rmSync(root, { force: true });
      mkdirSync(root, { recursive: true });
    }
    const up = await testApp.app.inject({ url: '/ready' });
    assert.equal(up.statusCode, 200);
    assert.deepEqual(up.json(), { status: 'ready', checks: allUp });
    assert.ok(statSync(root).isDirectory());
  });
});

if (!redisUp) {
  console.warn(
    `\n!!! SKIPPING the Redis outage test: Redis at ${testRedisUrl()} does not answer. Start redis-server to run it. !!!\n`,
  );
}

describe(
  'readiness while Redis goes away and comes back',
  { skip: redisUp ? false : `Redis at ${testRedisUrl()} does not answer` },
  () => {
    let proxy: TcpProxy;
    let testApp: TestApp;
    before(async () => {
      const redis = new URL(testRedisUrl());
      proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
      testApp = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` } });
    });
    after(async () => {
      await testApp.close();
      await proxy.close();
    });

    it('uses Redis (through the proxy) as its cache', () => {
      assert.equal(testApp.application.cache.kind, 'redis');
      assert.equal(testApp.config.redisUrl, `redis://127.0.0.1:${proxy.port}`);
    });

    it('is ready, then 503 with the cache down while Redis is unreachable, then ready again', async () => {
      const initially = await readyAnswering(testApp, 200);
      assert.equal(initially.statusCode, 200);
      assert.deepEqual(initially.json(), { status: 'ready', checks: allUp });

      await proxy.pause();
      const down = await readyAnswering(testApp, 503, 5_000);
      assert.equal(down.statusCode, 503);
      const body = down.json<Readiness>();
      assert.equal(body.status, 'not_ready');
      assert.equal(body.checks.cache.status, 'down');
      assert.match(body.checks.cache.error ?? '', /^(unavailable|no answer within \d+ ms)$/);
      assert.deepEqual(body.checks.database, { status: 'up' });
      assert.deepEqual(body.checks.queue, { status: 'up' });
      assert.deepEqual(body.checks.storage, { status: 'up' });

      await proxy.resume();
      // ioredis reconnects on its own (backoff of at most 2 s); nothing in the app is restarted.
      const recovered = await readyAnswering(testApp, 200, 10_000);
      assert.equal(recovered.statusCode, 200, `still not ready 10 s after Redis came back: ${recovered.body}`);
      assert.deepEqual(recovered.json(), { status: 'ready', checks: allUp });
    });
  },
);

describe(
  'requests while PostgreSQL goes away and comes back (issue 43)',
  { skip: postgresUp ? false : 'PostgreSQL does not answer here' },
  () => {
    let proxy: TcpProxy;
    let testApp: TestApp;
    let apiKey: string;
    before(async () => {
      proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
      testApp = await startTestApp({ databasePort: proxy.port, env: { DATABASE_STATEMENT_TIMEOUT_MS: '500' } });
      const companyId = await testApp.provisionCompany();
      ({ apiKey } = await testApp.issueKey(companyId, ['documents:read']));
    });
    after(async () => {
      await testApp.close();
      await proxy.close();
    });

    const list = () => testApp.app.inject({ url: '/api/v1/documentos', headers: { 'x-api-key': apiKey } });

    it('answers 503 database_unavailable with Retry-After while it is cut off, never a 500, then answers again', async () => {
      assert.equal((await list()).statusCode, 200);

      // Every connection cut, as a restart or a failover does, and none made until it returns.
      await proxy.pause();
      for (let i = 0; i < 3; i++) {
        const down = await list();
        assert.equal(down.statusCode, 503, down.body);
        assert.equal(down.headers['content-type'], 'application/problem+json; charset=utf-8');
        assert.equal(down.headers['retry-after'], '5');
        assert.equal(down.json<{ code: string }>().code, 'database_unavailable');
      }

      await proxy.resume();
      const deadline = Date.now() + 10_000;
      let back = await list();
      while (back.statusCode !== 200 && Date.now() < deadline) {
        await sleep(200);
        back = await list();
      }
      assert.equal(back.statusCode, 200, back.body);
    });

    it('answers 503 once a statement waits past DATABASE_STATEMENT_TIMEOUT_MS, instead of hanging', async () => {
      // A migration-sized lock held elsewhere: every read of the table waits behind it.
      const holder = new pg.Client({ connectionString: testApp.databaseUrl });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('lock table documents in access exclusive mode');
        const started = Date.now();
        const held = await list();
        assert.equal(held.statusCode, 503, held.body);
        assert.equal(held.json<{ code: string }>().code, 'database_unavailable');
        assert.ok(Date.now() - started < 5_000, `answered after ${String(Date.now() - started)} ms`);
        await holder.query('commit');
        assert.equal((await list()).statusCode, 200);
      } finally {
        await holder.end();
      }
    });
  },
);

describe('operations routes without OPS_TOKEN', () => {
  let testApp: TestApp;
  before(async () => {
    testApp = await startTestApp({ env: { OPS_TOKEN: '' } });
  });
  after(async () => {
    await testApp.close();
  });

  it('treats an empty OPS_TOKEN as unset', () => {
    assert.equal(testApp.config.opsToken, undefined);
  });

  for (const headers of [{}, { authorization: `Bearer ${opsToken}` }]) {
    it(`answers /metrics 404 route_not_found ${'authorization' in headers ? 'even with a bearer token' : 'without a token'}`, async () => {
      const response = await testApp.app.inject({ url: '/metrics', headers });
      assert.equal(response.statusCode, 404);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      const body = response.json<{ code: string; status: number; instance: string }>();
      assert.equal(body.code, 'route_not_found');
      assert.equal(body.status, 404);
      assert.equal(body.instance, '/metrics');
      assert.doesNotMatch(response.body, /ecf_http_request_duration_seconds/);
    });
  }

  it('answers /internal/archive/findings 404 even with a bearer token', async () => {
    const response = await testApp.app.inject({
      url: '/internal/archive/findings',
      headers: { authorization: `Bearer ${opsToken}` },
    });
    assert.equal(response.statusCode, 404);
    assert.equal(response.json<{ code: string }>().code, 'route_not_found');
  });
});

describe('operations routes with OPS_TOKEN', () => {
  let testApp: TestApp;
  before(async () => {
    testApp = await startTestApp();
  });
  after(async () => {
    await testApp.close();
  });

  const refused: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer not-the-ops-token-at-all' }],
    ['the right token with a suffix', { authorization: `Bearer ${opsToken}x` }],
    ['the right token under another scheme', { authorization: `Basic ${opsToken}` }],
    ['the right token without a scheme', { authorization: opsToken }],
  ];
  for (const [label, headers] of refused) {
    it(`refuses /metrics with ${label}: 401 ops_token_invalid`, async () => {
      const response = await testApp.app.inject({ url: '/metrics', headers });
      assert.equal(response.statusCode, 401);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      const body = response.json<{ code: string; status: number }>();
      assert.equal(body.code, 'ops_token_invalid');
      assert.equal(body.status, 401);
      assert.doesNotMatch(response.body, /ecf_http_request_duration_seconds/);
    });
  }

  it('refuses /internal/archive/findings without the token, and lists findings with it', async () => {
    const refusedFindings = await testApp.app.inject({ url: '/internal/archive/findings' });
    assert.equal(refusedFindings.statusCode, 401);
    assert.equal(refusedFindings.json<{ code: string }>().code, 'ops_token_invalid');
    const listed = await testApp.app.inject({
      url: '/internal/archive/findings?kind=missing_blob&status=open',
      headers: { authorization: `Bearer ${opsToken}` },
    });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(listed.json<{ data: { findings: unknown[] } }>().data.findings, []);
    const badKind = await testApp.app.inject({
      url: '/internal/archive/findings?kind=rot',
      headers: { authorization: `Bearer ${opsToken}` },
    });
    assert.equal(badKind.statusCode, 400, badKind.body);
  });

  it('serves Prometheus text with the right token, labelled by route template', async () => {
    assert.equal((await testApp.app.inject({ url: '/health' })).statusCode, 200);
    assert.equal((await testApp.app.inject({ url: '/no/such/route/12345' })).statusCode, 404);
    assert.equal(
      (await testApp.app.inject({ url: '/internal/cloud/v1/companies/cmp_Metrics123/api-keys' })).statusCode,
      401,
    );

    const response = await testApp.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${opsToken}` } });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain/);
    const text = response.body;
    assert.match(text, /^# HELP ecf_http_request_duration_seconds /m);
    assert.match(text, /^# TYPE ecf_http_request_duration_seconds histogram$/m);
    assert.match(text, /^ecf_http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} 1$/m);
    assert.match(text, /^# HELP ecf_jobs_processed_total /m);
    assert.match(text, /^# TYPE ecf_jobs_processed_total counter$/m);
    // Labels are route templates, so ids in URLs cannot blow up the series count.
    assert.match(text, /route="\/internal\/cloud\/v1\/companies\/:companyId\/api-keys",status="401"/);
    assert.doesNotMatch(text, /cmp_Metrics123/);
    assert.match(text, /route="unmatched",status="404"/);
    assert.doesNotMatch(text, /no\/such\/route/);
  });

  it('answers plain text, not a JSON envelope', async () => {
    const response = await testApp.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${opsToken}` } });
    assert.equal(response.statusCode, 200);
    assert.throws(() => JSON.parse(response.body) as unknown);
  });
});

describe('correlation ids', () => {
  let testApp: TestApp;
  let apiKey: string;
  before(async () => {
    testApp = await startTestApp();
    const companyId = await testApp.provisionCompany();
    apiKey = (await testApp.issueKey(companyId, ['documents:read'])).apiKey;
  });
  after(async () => {
    await testApp.close();
  });

  async function company(correlationId?: string) {
    const response = await testApp.app.inject({
      url: '/api/v1/empresa',
      headers: { 'x-api-key': apiKey, ...(correlationId === undefined ? {} : { 'x-correlation-id': correlationId }) },
    });
    assert.equal(response.statusCode, 200, response.body);
    const header = response.headers['x-correlation-id'];
    assert.equal(typeof header, 'string');
    return {
      header: String(header),
      body: response.json<{ data: unknown; meta: { correlationId: string; timestamp: string } }>(),
    };
  }

  it('echoes a valid X-Correlation-ID in the response header and in meta.correlationId', async () => {
    const { header, body } = await company('abc-123');
    assert.equal(header, 'abc-123');
    assert.equal(body.meta.correlationId, 'abc-123');
    assert.notEqual(body.data, undefined);
  });

  for (const given of [
    'abc/123',
    'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
    'x'.repeat(128),
  ])
    it(`echoes any printable ASCII id without spaces, up to 128 characters (${given.slice(0, 20)}…)`, async () => {
      const { header, body } = await company(given);
      assert.equal(header, given);
      assert.equal(body.meta.correlationId, given);
    });

  const refused: [string, string, string][] = [
    ['500 characters long', 'a'.repeat(500), 'too_long'],
    ['129 characters long', 'a'.repeat(129), 'too_long'],
    ['with a space inside', 'abc 123', 'pattern'],
    ['two ids, joined by Node', 'abc, def', 'pattern'],
    ['with a character beyond ASCII', 'abc-ñ', 'pattern'],
    ['empty', '', 'empty'],
  ];
  for (const [label, given, code] of refused)
    it(`refuses an X-Correlation-ID it cannot carry (${label}): 400 naming the header, never replaced`, async () => {
      const response = await testApp.app.inject({
        url: '/api/v1/empresa',
        headers: { 'x-api-key': apiKey, 'x-correlation-id': given },
      });
      const error = assertFieldError(response, 400, 'validation_failed', '/x-correlation-id');
      assert.equal(error.in, 'headers');
      assert.equal(error.code, code);
      // The refusal's own id is a new one: the caller's value is not taken as it stands, nor trimmed into another.
      assert.match(String(response.headers['x-correlation-id']), uuid);
    });

  it('refuses it on every route that answers with the id: health, operations, unknown paths, the receiver', async () => {
    const tooLong = { 'x-correlation-id': 'a'.repeat(500) };
    for (const url of ['/health', '/ready', '/metrics', '/nope']) {
      const response = await testApp.app.inject({ url, headers: tooLong });
      assertFieldError(response, 400, 'validation_failed', '/x-correlation-id');
    }
    // DGII's receiver routes answer in DGII's style (SPEC §9.4), never problem+json: a 400 naming the header.
    const receiver = await testApp.app.inject({
      url: '/testecf/131880681/fe/autenticacion/api/semilla',
      headers: tooLong,
    });
    assert.equal(receiver.statusCode, 400);
    assert.match(receiver.json<{ mensaje: string }>().mensaje, /headers \/x-correlation-id .*at most 128/);
  });

  it('generates a fresh UUID for each request that sends none', async () => {
    const first = await company();
    const second = await company();
    assert.match(first.header, uuid);
    assert.match(second.header, uuid);
    assert.equal(first.body.meta.correlationId, first.header);
    assert.notEqual(first.header, second.header);
  });

  it('stamps meta.timestamp as ISO-8601 UTC at the time of the answer', async () => {
    const start = Date.now();
    const { body } = await company();
    const end = Date.now();
    assert.match(body.meta.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(new Date(body.meta.timestamp).toISOString(), body.meta.timestamp);
    const at = Date.parse(body.meta.timestamp);
    assert.ok(at >= start - 1 && at <= end + 1, `${body.meta.timestamp} is not between the request's start and end`);
  });

  it('carries the correlation id into problems too', async () => {
    const response = await testApp.app.inject({ url: '/api/v1/empresa', headers: { 'x-correlation-id': 'abc-123' } });
    assert.equal(response.statusCode, 401);
    assert.equal(response.headers['x-correlation-id'], 'abc-123');
    assert.equal(response.json<{ correlationId: string }>().correlationId, 'abc-123');
  });

  it('echoes the correlation id on unenveloped routes as a header', async () => {
    const response = await testApp.app.inject({ url: '/health', headers: { 'x-correlation-id': 'health:check@1' } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-correlation-id'], 'health:check@1');
    assert.deepEqual(response.json(), { status: 'ok' });
  });
});
