// An app with a worker and a scheduler, talking to a real DGII sandbox: the company that issues the fixtures is
// provisioned on both sides (its certificate installed here and delegated there, ranges of every type on both),
// with helpers to create, send and wait for DGII's verdict through HTTP.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Roles } from '../../src/app.js';
import { createSelfSignedP12 } from '../../src/platform/crypto/test-certificate.js';
import { ensureTestRanges, upsertTaxpayer } from '../../src/sandbox/index.js';
import { issuerRnc } from './ecf-documents.js';
import { processEnvOf } from './process-env.js';
import { startSandbox, type RunningSandbox } from './sandbox-kit.js';
import { startTestApp, type TestApp } from './test-app.js';

type Json = Record<string, unknown>;

export interface SentDocument {
  id: string;
  eNCF: string;
  status: string;
  dgii: {
    route: string;
    trackId: string | null;
    estado: string | null;
    mensajes: { codigo: string | null; valor: string }[];
    secuenciaUtilizada: boolean | null;
    attempts: number;
  } | null;
}

export const finalStatuses: ReadonlySet<string> = new Set(['accepted', 'accepted_conditional', 'rejected']);
const settledStatuses: ReadonlySet<string> = new Set([...finalStatuses, 'send_failed', 'not_found']);
const nextYear = new Date().getUTCFullYear() + 1;

export interface SendingWorld {
  sandbox: RunningSandbox;
  app: TestApp;
  companyId: string;
  call(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  create(body: Json): Promise<SentDocument>;
  send(id: string): Promise<void>;
  get(id: string): Promise<SentDocument>;
  /** Until the document is final, send_failed or not_found. */
  untilSettled(id: string, timeoutMs?: number): Promise<SentDocument>;
  /**
   * The environment of a separate `ecf` process (e.g. `ecf worker`) working on this world: its PostgreSQL database,
   * master key, blobs, cache and DGII (the sandbox), with the world's env. PostgreSQL only: PGlite is one process's.
   */
  processEnv(): Record<string, string>;
  close(): Promise<void>;
}

export interface SendingWorldOptions {
  env?: Record<string, string>;
  embedded?: boolean;
  /** The app's database is PGlite on disk (see TestAppOptions); the sandbox is embedded too. */
  embeddedOnDisk?: boolean;
  /** The roles this process runs (default all): leave `work` out to run workers elsewhere (see processEnv). */
  roles?: Roles;
  /** Connections in the app's and the sandbox's pools on PostgreSQL (default: createTestDatabase's). */
  poolSize?: number;
  /** The app's files (see TestAppOptions). */
  dataDir?: string;
  /** The PostgreSQL server of the app's database (see TestAppOptions); the sandbox stays on the shared one. */
  databaseServer?: string;
  /** Where the app's logs go (see TestAppOptions; LOG_LEVEL in `env` says which). */
  logDestination?: DestinationStream;
}

export async function startSendingWorld(options: SendingWorldOptions = {}): Promise<SendingWorld> {
  const embedded = (options.embedded ?? false) || options.embeddedOnDisk === true;
  const sandbox = await startSandbox({ embedded, poolSize: options.poolSize });
  assert.equal((await sandbox.admin('PUT', '/settings', { processingDelayMs: 0 })).status, 200);
  const app = await startTestApp({
    embedded,
    ...(options.embeddedOnDisk === true ? { embeddedOnDisk: true } : {}),
    poolSize: options.poolSize,
    dataDir: options.dataDir,
    databaseServer: options.databaseServer,
    ...(options.logDestination === undefined ? {} : { logDestination: options.logDestination }),
    roles: options.roles ?? { http: true, work: true, schedule: true },
    env: {
      DGII_BASE_URL: sandbox.url,
      DGII_FC_BASE_URL: sandbox.url,
      DGII_STATUS_BASE_URL: sandbox.url,
      DGII_RESPONSE_TIMEOUT_MS: '5000',
      ...options.env,
    },
  });
  const dgiiEnv = {
    DGII_BASE_URL: sandbox.url,
    DGII_FC_BASE_URL: sandbox.url,
    DGII_STATUS_BASE_URL: sandbox.url,
    DGII_SANDBOX: 'off',
    DGII_RESPONSE_TIMEOUT_MS: '5000',
    ...options.env,
  };
  const companyId = await app.provisionCompany({ rnc: issuerRnc });
  const certificate = createSelfSignedP12({
    commonName: 'EMISOR DE PRUEBA',
    serialNumber: issuerRnc,
    notBefore: new Date('2026-01-01'),
    notAfter: new Date('2036-01-01'),
    password: 'clave',
  });
  const installed = await app.sendEvent('certificate.installed', {
    companyId,
    p12Base64: certificate.p12.toString('base64'),
    password: 'clave',
  });
  assert.equal(installed.statusCode, 200, installed.body);
  const { apiKey } = await app.issueKey(companyId, [
    'documents:create',
    'documents:read',
    'documents:send',
    'sequences:manage',
    'sequences:read',
  ]);

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.app.inject({
      method,
      url,
      headers: { 'x-api-key': apiKey },
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });

  for (const type of ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47']) {
    const range = await call('POST', '/api/v1/secuencias/rangos', {
      ecfType: type,
      from: `E${type}0000000001`,
      to: `E${type}0000100000`,
      ...(type === '32' || type === '34' ? {} : { expiresOn: `31-12-${String(nextYear)}` }),
    });
    assert.equal(range.statusCode, 201, range.body);
  }
  // DGII's side: a registered electronic issuer whose certificate is delegated, with DGII's ranges.
  const company = await app.application.services.companies.get(companyId);
  assert.ok(company?.certificate !== null && company !== undefined);
  const { db, clock } = sandbox.sandbox.context;
  await upsertTaxpayer(db, {
    rnc: issuerRnc,
    name: company.legalName,
    certificateSha256: [company.certificate.fingerprintSha256],
  });
  await ensureTestRanges(db, issuerRnc, 'testecf', clock.now());

  const get = async (id: string) => (await call('GET', `/api/v1/documentos/${id}`)).json<{ data: SentDocument }>().data;
  return {
    sandbox,
    app,
    companyId,
    call,
    get,
    async create(body) {
      const response = await call('POST', '/api/v1/documentos', body);
      assert.equal(response.statusCode, 201, response.body);
      return response.json<{ data: SentDocument }>().data;
    },
    async send(id) {
      const sent = await call('POST', `/api/v1/documentos/${id}/enviar`);
      assert.equal(sent.statusCode, 202, sent.body);
    },
    async untilSettled(id, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const document = await get(id);
        if (settledStatuses.has(document.status)) return document;
        if (Date.now() > deadline)
          throw new Error(`document ${id} still ${document.status} after ${String(timeoutMs)} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    processEnv: () => processEnvOf(app, dgiiEnv),
    async close() {
      await app.close();
      await sandbox.close();
    },
  };
}
