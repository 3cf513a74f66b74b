// Builds the real application against a throwaway database and drives it the way its users do: the control
// plane through signed events, integrators through API keys.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { DestinationStream } from 'pino';
import { buildApplication, type Application, type Roles } from '../../src/app.js';
import { parseConfig, type Config } from '../../src/config.js';
import { databaseTarget } from '../../src/platform/db/database-target.js';
import type { Clock } from '../../src/platform/clock.js';
import type { App } from '../../src/platform/http/route.js';
import type { Scope } from '../../src/platform/http/scopes.js';
import { signMessage } from '../../src/platform/http/signed-message.js';
import { createTestDatabase, redisAvailable, testRedisUrl } from './backends.js';

export const cloudSecret = 'test-cloud-signing-secret-0123456789';
export const opsToken = 'test-ops-token-0123456789';

export interface TestApp {
  application: Application;
  app: App;
  config: Config;
  dataDir: string;
  /** The throwaway PostgreSQL database's URL; undefined on PGlite. */
  databaseUrl: string | undefined;
  /** A signed call from the control plane. */
  cloud(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  sendEvent(type: string, data: unknown, eventId?: string): Promise<LightMyRequestResponse>;
  /** Provisions a company (with a valid RNC) and returns its id. */
  provisionCompany(overrides?: Record<string, unknown>): Promise<string>;
  issueKey(
    companyId: string,
    scopes: readonly Scope[],
    extra?: Record<string, unknown>,
  ): Promise<{ apiKey: string; keyId: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  roles?: Roles;
  clock?: Clock;
  /** Use real Redis when it answers (default true). */
  redis?: boolean;
  /** Force the embedded back ends (PGlite, in-memory cache) whatever answers locally. */
  embedded?: boolean;
  /** Embedded, with PGlite on disk under `DATA_DIR/pgdata` as `npm start` runs it (not in memory). */
  embeddedOnDisk?: boolean;
  /** Where logs go (the app logs nothing by default: LOG_LEVEL is silent under NODE_ENV=test). */
  logDestination?: DestinationStream;
  /** Connections in the app's pool on PostgreSQL (default: createTestDatabase's). */
  poolSize?: number;
  /** Where the app keeps its files, made and removed by the caller (default: a temporary directory, removed on close). */
  dataDir?: string;
  /** Run the DGII sandbox in-process and use it as DGII, as `ecf start` does (config DGII_SANDBOX permitting). */
  embeddedSandbox?: boolean;
  /** On PostgreSQL, the app connects to its database at this port of 127.0.0.1 (a proxy the test can cut). */
  databasePort?: number;
  /** The admin URL of the PostgreSQL server the app's database is made on (default: the shared test server). */
  databaseServer?: string;
}

let rncSeed = 10_000_000 + Math.floor(Math.random() * 80_000_000);
/** A fresh RNC with a valid check digit, for test companies (no real taxpayer data). */
export function nextRnc(): string {
  const body = String(rncSeed++).padStart(8, '0');
  const weights = [7, 9, 8, 6, 5, 4, 3, 2];
  const sum = weights.reduce((total, weight, i) => total + weight * Number(body[i]), 0);
  return `${body}${((10 - (sum % 11)) % 9) + 1}`;
}

function atPort(url: string, port: number): string {
  const moved = new URL(url);
  moved.hostname = '127.0.0.1';
  moved.port = String(port);
  return moved.toString();
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const embedded = (options.embedded ?? false) || options.embeddedOnDisk === true;
  const database = await createTestDatabase({
    embedded,
    poolSize: options.poolSize,
    server: options.databaseServer,
    // Migrated already (cloned from a template), but for the on-disk PGlite, which the app opens and migrates itself.
    migrated: options.embeddedOnDisk !== true,
  });
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'ecf-app-'));
  const useRedis = !embedded && (options.redis ?? true) && (await redisAvailable());
  const config = parseConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    OPS_TOKEN: opsToken,
    CLOUD_SIGNING_SECRET: cloudSecret,
    MASTER_KEY: randomBytes(32).toString('base64'),
    // The sandbox, the buyers' receivers and the webhook receivers of the tests all listen on loopback (a
    // PRODUCTION app may not call them: config.ts refuses it).
    ...(options.env?.['FISCAL_ENV'] === 'PRODUCTION' ? {} : { OUTBOUND_ALLOW_PRIVATE: 'true' }),
    ...(useRedis ? { REDIS_URL: testRedisUrl() } : {}),
    ...options.env,
  });
  const application = await buildApplication({
    config,
    roles: options.roles ?? { http: true, work: false, schedule: false },
    // The configured timeouts, as databaseTarget(config) gives them to the service.
    database:
      options.embeddedOnDisk === true
        ? databaseTarget(config)
        : database.target.kind === 'postgres'
          ? {
              ...database.target,
              url:
                options.databasePort === undefined
                  ? database.target.url
                  : atPort(database.target.url, options.databasePort),
              connectTimeoutMs: config.databaseConnectTimeoutMs,
              statementTimeoutMs: config.databaseStatementTimeoutMs,
            }
          : database.target,
    embeddedSandbox: options.embeddedSandbox ?? false,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.logDestination === undefined ? {} : { logDestination: options.logDestination }),
  });
  if (application.http === undefined) throw new Error('test app has no HTTP role');
  const app = application.http.app;

  async function cloud(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const id = headers['webhook-id'] ?? `msg_${randomUUID()}`;
    // Signed at the app's own time, as a control plane whose clock agrees with ours would.
    const now = options.clock?.now() ?? new Date();
    const timestamp = Number(headers['webhook-timestamp'] ?? Math.floor(now.getTime() / 1_000));
    return app.inject({
      method,
      url,
      headers: {
        ...(payload === '' ? {} : { 'content-type': 'application/json' }),
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signMessage(cloudSecret, id, timestamp, payload),
        ...headers,
      },
      ...(payload === '' ? {} : { payload }),
    });
  }

  const testApp: TestApp = {
    application,
    app,
    config,
    dataDir,
    databaseUrl: database.url,
    cloud,
    sendEvent: (type, data, eventId) =>
      cloud(
        'POST',
        '/internal/cloud/v1/events',
        { type, data },
        eventId === undefined ? {} : { 'webhook-id': eventId },
      ),
    async provisionCompany(overrides = {}) {
      const response = await testApp.sendEvent('company.provisioned', {
        rnc: nextRnc(),
        legalName: 'Empresa de Prueba SRL',
        plan: 'pro',
        capabilities: ['issuing', 'receiving', 'webhooks', 'taxpayers', 'certification'],
        ...overrides,
      });
      if (response.statusCode !== 200) throw new Error(`provisioning failed: ${response.statusCode} ${response.body}`);
      return response.json<{ data: { companyId: string } }>().data.companyId;
    },
    async issueKey(companyId, scopes, extra = {}) {
      const response = await cloud('POST', `/internal/cloud/v1/companies/${companyId}/api-keys`, {
        name: 'test key',
        scopes,
        ...extra,
      });
      if (response.statusCode !== 201) throw new Error(`key issue failed: ${response.statusCode} ${response.body}`);
      return response.json<{ data: { apiKey: string; keyId: string } }>().data;
    },
    async close() {
      await application.close();
      await database.drop();
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 }); // a handler whose client left may still be writing
    },
  };
  return testApp;
}
