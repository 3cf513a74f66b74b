// A CERT world for certification tests: a DGII sandbox, and the service in CERT (API, worker and scheduler) with a
// company enabled for certification, its certificate installed here and delegated there, with DGII's CERT ranges;
// a CERT key with certification:manage and documents:read, and helpers to drive a process over HTTP.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { createSelfSignedP12 } from '../../src/platform/crypto/test-certificate.js';
import { ensureTestRanges, upsertTaxpayer } from '../../src/sandbox/index.js';
import { generateCertificationSet, type SetDefect } from '../../src/sandbox/certification/set-generator.js';
import type { Roles } from '../../src/app.js';
import { processEnvOf } from './process-env.js';
import { startSandbox, type RunningSandbox } from './sandbox-kit.js';
import { nextRnc, startTestApp, type TestApp } from './test-app.js';

type Json = Record<string, unknown>;

export interface CaseRead {
  caseKey: string;
  kind: 'ECF' | 'RFCE' | 'ACECF';
  ecfType: string | null;
  step: number;
  route: string;
  status: string;
  documentId: string | null;
  dependsOn: string | null;
  estado: string | null;
  codigo: string | null;
  mensajes: { codigo: string | null; valor: string }[];
  carriedFromProcessId: string | null;
  waitingFor: string | null;
}

export interface CertificationWorld {
  sandbox: RunningSandbox;
  app: TestApp;
  companyId: string;
  rnc: string;
  call(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  setFile(options?: { seed?: number; defects?: SetDefect[] }): Json;
  /** iniciar, then confirms registrado: a process ready to run. */
  start(file: Json): Promise<string>;
  cases(processId: string): Promise<CaseRead[]>;
  /** Until `done` holds of the cases, reading them (each read reconciles). */
  until(processId: string, done: (cases: CaseRead[]) => boolean, timeoutMs?: number): Promise<CaseRead[]>;
  /** The environment of an `ecf worker` working on this world (PostgreSQL only). */
  processEnv(): Record<string, string>;
  close(): Promise<void>;
}

export async function startCertificationWorld(
  options: { env?: Record<string, string>; roles?: Roles } = {},
): Promise<CertificationWorld> {
  const sandbox = await startSandbox();
  assert.equal((await sandbox.admin('PUT', '/settings', { processingDelayMs: 0 })).status, 200);
  const dgiiEnv = {
    FISCAL_ENV: 'CERT',
    DGII_BASE_URL: sandbox.url,
    DGII_FC_BASE_URL: sandbox.url,
    DGII_STATUS_BASE_URL: sandbox.url,
    DGII_SANDBOX: 'off',
    DGII_RESPONSE_TIMEOUT_MS: '5000',
    ...options.env,
  };
  const app = await startTestApp({ roles: options.roles ?? { http: true, work: true, schedule: true }, env: dgiiEnv });
  const rnc = nextRnc();
  const companyId = await app.provisionCompany({
    rnc,
    legalName: 'Comercial Certificable SRL',
    certificationEnabled: true,
  });
  const certificate = createSelfSignedP12({
    commonName: 'EMISOR EN CERTIFICACION',
    serialNumber: rnc,
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
  const { apiKey } = await app.issueKey(companyId, ['certification:manage', 'documents:read']);
  const company = await app.application.services.companies.get(companyId);
  assert.ok(company?.certificate !== null && company !== undefined);
  const { db, clock } = sandbox.sandbox.context;
  await upsertTaxpayer(db, {
    rnc,
    name: company.legalName,
    certificateSha256: [company.certificate.fingerprintSha256],
  });
  await ensureTestRanges(db, rnc, 'certecf', clock.now());

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.app.inject({
      method,
      url,
      headers: { 'x-api-key': apiKey },
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });
  const cases = async (processId: string) => {
    const response = await call('GET', `/api/v1/certificacion/${processId}/casos`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ data: CaseRead[] }>().data;
  };
  return {
    sandbox,
    app,
    companyId,
    rnc,
    call,
    setFile: (file = {}) => ({
      label: `${rnc}-set.xlsx`,
      cases: generateCertificationSet({ rnc, now: new Date(), seed: file.seed ?? 5, defects: file.defects ?? [] }),
    }),
    async start(file) {
      const started = await call('POST', '/api/v1/certificacion/iniciar', file);
      assert.equal(started.statusCode, 201, started.body);
      const id = started.json<{ data: { id: string } }>().data.id;
      const confirmed = await call('POST', `/api/v1/certificacion/${id}/pasos/registrado/confirmar`, {});
      assert.equal(confirmed.statusCode, 200, confirmed.body);
      return id;
    },
    cases,
    async until(processId, done, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const current = await cases(processId);
        if (done(current)) return current;
        if (Date.now() > deadline)
          throw new Error(
            `certification ${processId} not there after ${String(timeoutMs)} ms: ${JSON.stringify(current.map((row) => [row.kind, row.caseKey, row.status, row.waitingFor]))}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    processEnv: () => processEnvOf(app, dgiiEnv),
    async close() {
      await app.close();
      await sandbox.close();
    },
  };
}
