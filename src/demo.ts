// First start on embedded defaults: a demo company, provisioned through the same code path the control plane
// uses (with a freshly generated self-signed test certificate), and a key with every scope, printed once and
// recorded in DATA_DIR/demo-credentials.json (mode 0600) for scripts.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';
import type { ApiKeysService } from './modules/api-keys/index.js';
import type { CompaniesService } from './modules/companies/index.js';
import type { ControlPlaneService } from './modules/control-plane/index.js';
import type { SequencesService } from './modules/sequences/index.js';
import type { Db } from './platform/db/database.js';
import type { DgiiTarget } from './sandbox/index.js';
import type { SandboxRegistration } from './sandbox-registration.js';
import { createSelfSignedP12 } from './platform/crypto/test-certificate.js';
import { transact } from './platform/db/transact.js';
import { scopes } from './platform/http/scopes.js';
import type { Result } from './platform/result.js';
import { environmentSegment } from './fiscal/environment.js';

/** Fictitious, with a valid check digit: the demo carries no real taxpayer data. */
export const demoRnc = '999999992';

/** What the demo needs of the running application (src/app.ts's Application has it; this file does not import it). */
interface DemoHost {
  config: Config;
  database: { db: Db };
  services: {
    controlPlane: ControlPlaneService;
    apiKeys: ApiKeysService;
    sequences: SequencesService;
    companies: CompaniesService;
  };
  dgii: DgiiTarget;
  sandboxRegistration: SandboxRegistration | undefined;
}

export interface DemoCredentials {
  apiKey: string;
  companyId: string;
  rnc: string;
  baseUrl: string;
  /** The demo company's receiver (DGII's receiver standard): `/fe/...` is appended to it. */
  receiverBaseUrl: string;
  /** The embedded sandbox (DGII, its mailbox, in CERT its certification portal) and its admin token, for scripts. */
  sandboxUrl?: string;
  sandboxAdminToken?: string;
}

/** What a start adds to the stored credentials: the URLs of this start, and the embedded sandbox's. */
function currentParts(
  application: DemoHost,
  baseUrl: string,
): Pick<DemoCredentials, 'baseUrl' | 'receiverBaseUrl' | 'sandboxUrl' | 'sandboxAdminToken'> {
  const { dgii } = application;
  const sandbox =
    dgii.sandbox !== undefined && dgii.sandboxAdminToken !== undefined
      ? { sandboxUrl: dgii.baseUrl, sandboxAdminToken: dgii.sandboxAdminToken }
      : {};
  return { baseUrl, receiverBaseUrl: receiverBaseUrlOf(application, baseUrl), ...sandbox };
}

/** `emisorreceptor` serves the demo company unless RECEIVER_LOCAL_COMPANY names another; its RNC always does. */
function receiverBaseUrlOf(application: DemoHost, baseUrl: string): string {
  const { fiscalEnv, receiverLocalCompany } = application.config;
  return `${baseUrl}/${environmentSegment[fiscalEnv]}/${receiverLocalCompany === undefined ? 'emisorreceptor' : demoRnc}`;
}

function valueOf<T>(result: Result<T>, step: string): T {
  if (!result.ok) throw new Error(`Demo provisioning failed at ${step}: ${result.failure.detail}`);
  return result.value;
}

export function demoCredentialsPath(dataDir: string): string {
  return join(dataDir, 'demo-credentials.json');
}

/** Returns the credentials and whether they were created now (and so must be shown). */
export async function ensureDemo(
  application: DemoHost,
  baseUrl: string,
): Promise<{ credentials: DemoCredentials; created: boolean }> {
  const path = demoCredentialsPath(application.config.dataDir);
  if (existsSync(path)) {
    const stored = JSON.parse(readFileSync(path, 'utf8')) as DemoCredentials;
    const current = { ...stored, ...currentParts(application, baseUrl) };
    if (JSON.stringify(current) !== JSON.stringify(stored))
      writeFileSync(path, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 });
    return { credentials: current, created: false };
  }
  const { controlPlane, apiKeys } = application.services;
  const provisioned = valueOf(
    await controlPlane.apply(`demo_${randomUUID()}`, {
      type: 'company.provisioned',
      data: {
        rnc: demoRnc,
        legalName: 'Empresa Demostración SRL',
        tradeName: 'Demo',
        address: 'Calle Ficticia 1, Santo Domingo',
        plan: 'demo',
        capabilities: ['issuing', 'receiving', 'webhooks', 'taxpayers', 'certification'],
        certificationEnabled: true,
      },
    }),
    'company.provisioned',
  );
  const now = new Date();
  const password = randomBytes(18).toString('base64url');
  const certificate = createSelfSignedP12({
    commonName: 'EMPRESA DEMOSTRACION SRL (CERTIFICADO DE PRUEBA)',
    serialNumber: demoRnc,
    organization: 'Empresa Demostración SRL',
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + 2 * 365 * 24 * 3_600_000),
    password,
  });
  valueOf(
    await controlPlane.apply(`demo_${randomUUID()}`, {
      type: 'certificate.installed',
      data: { companyId: provisioned.companyId, p12Base64: certificate.p12.toString('base64'), password },
    }),
    'certificate.installed',
  );
  const issued = valueOf(
    await transact(application.database.db, (trx) =>
      apiKeys.issue(trx, provisioned.companyId, { name: 'demo (all scopes)', scopes: [...scopes] }),
    ),
    'API key',
  );
  const credentials: DemoCredentials = {
    apiKey: issued.apiKey,
    companyId: provisioned.companyId,
    rnc: demoRnc,
    ...currentParts(application, baseUrl),
  };
  writeFileSync(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return { credentials, created: true };
}

/**
 * The demo company's authorised ranges, like DGII's pre-certification ones: 1 to 10,000,000 of every type (1 to
 * 50,000,000 of type 32), valid until 31 December of next year, 32 and 34 without expiry. In CERT they start at
 * 1,000,001: the certification set's own numbers (from 1) must not be handed out by a range (certification iniciar
 * refuses a set they would hand out again). Types that already have a range are left as they are, so a restart
 * registers nothing twice.
 */
export async function ensureDemoRanges(application: DemoHost, credentials: DemoCredentials): Promise<void> {
  const { sequences } = application.services;
  const existing = new Set((await sequences.listRanges(credentials.companyId)).map((range) => range.ecfType));
  const nextYear = new Date(Date.now() - 4 * 3_600_000).getUTCFullYear() + 1;
  for (const ecfType of ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47']) {
    if (existing.has(ecfType)) continue;
    const last = ecfType === '32' ? 50_000_000 : 10_000_000;
    valueOf(
      await sequences.registerRange(credentials.companyId, {
        ecfType,
        from: `E${ecfType}${application.config.fiscalEnv === 'CERT' ? '0001000001' : '0000000001'}`,
        to: `E${ecfType}${String(last).padStart(10, '0')}`,
        ...(ecfType === '32' || ecfType === '34' ? {} : { expiresOn: `31-12-${String(nextYear)}` }),
      }),
      `range ${ecfType}`,
    );
  }
}

/**
 * With the embedded sandbox, the demo company is a registered electronic taxpayer there too, as every company served
 * here is (src/sandbox-registration.ts): its certificate delegated, DGII's test ranges for every type, and its
 * receiver here in DGII's directory, so the whole flow works with no setup. Idempotent; needs the instance listening.
 */
export async function registerDemoWithSandbox(application: DemoHost, credentials: DemoCredentials): Promise<void> {
  const registration = application.sandboxRegistration;
  if (registration === undefined) return;
  if ((await application.services.companies.get(credentials.companyId)) === undefined)
    throw new Error('Demo company is missing: delete the demo credentials file to provision it again.');
  await registration.register(credentials.companyId);
}

/**
 * What `ecf start` does once the API listens at `baseUrl`: the embedded sandbox registers every company served here
 * (a restart included), then, on embedded defaults (no DATABASE_URL), the demo company is made ready. Returns the
 * demo's credentials and whether they were made now; undefined without a demo.
 */
export async function afterListening(
  application: DemoHost,
  baseUrl: string,
): Promise<{ credentials: DemoCredentials; created: boolean } | undefined> {
  await application.sandboxRegistration?.listening(baseUrl);
  if (application.config.databaseUrl !== undefined) return undefined;
  const demo = await ensureDemo(application, baseUrl);
  await ensureDemoRanges(application, demo.credentials);
  await registerDemoWithSandbox(application, demo.credentials);
  return demo;
}
