// sending-kit's world for the sending benches, with the sandbox in a process of its own (sandbox-process.ts): the app
// (HTTP, worker and scheduler roles) in this process, the fixtures' issuer provisioned on both sides, and what each
// process and its PostgreSQL backends used over a run, so a bench can say which one was saturated.
import { sql } from 'kysely';
import { createSelfSignedP12 } from '../../src/platform/crypto/test-certificate.js';
import { postgresAvailable } from '../../test/support/backends.js';
import { ecfDocuments, issuerRnc } from '../../test/support/ecf-documents.js';
import { startTestApp, type TestApp } from '../../test/support/test-app.js';
import { deployed } from './deployed.js';
import { ownUsage, postgresBackendTicks, postgresCpuMsBetween } from './process-cpu.js';
import { startSandboxProcess } from './sandbox-process.js';

const nextYear = new Date().getUTCFullYear() + 1;

export interface Created {
  id: string;
  eNCF: string;
}

export interface Usage {
  cpuMsPerDocument: number;
  /** Of cpuMsPerDocument: in the kernel, and on the main thread (undefined where /proc is not Linux's). */
  systemMsPerDocument?: number;
  mainThreadMsPerDocument?: number | undefined;
  eventLoopUtilization: number;
}

export interface Resources {
  app: Usage;
  sandbox: Usage;
  /** CPU of the PostgreSQL backends serving each database (from /proc), ms per document. */
  postgres: { app: number; sandbox: number } | undefined;
}

export interface BenchWorld {
  app: TestApp;
  companyId: string;
  sandboxUrl: string;
  /** Creates a document of `payload` (the fixtures' type 31 unless given). */
  create(payload?: Record<string, unknown>): Promise<Created>;
  send(id: string): Promise<void>;
  /** Starts measuring both processes' CPU and event loop. */
  mark(): Promise<void>;
  /** Both processes' use since mark(), per document, with their PostgreSQL backends' CPU when they run here. */
  usage(documents: number): Promise<Resources>;
  /** Transactions committed or rolled back so far in the app's and the sandbox's databases (PostgreSQL only). */
  transactions(): Promise<{ app: number; sandbox: number } | undefined>;
  /** How long the sandbox takes to decide after a reception. */
  processingDelay(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Whether the sending benches run embedded: BENCH_SENDING_EMBEDDED=1 asks for it even where PostgreSQL answers. */
export async function sendingEmbedded(): Promise<boolean> {
  return process.env['BENCH_SENDING_EMBEDDED'] === '1' || !(await postgresAvailable());
}

/** `env`: the app's own settings beside the world's (an SMTP server, DGII's XSDs). */
export async function startWorld(embedded: boolean, env: Record<string, string> = {}): Promise<BenchWorld> {
  const sandbox = startSandboxProcess(embedded);
  const ready = await sandbox.next();
  if (ready.type !== 'ready') throw new Error(`sandbox process answered ${ready.type}`);
  let app: TestApp | undefined;
  try {
    app = await startTestApp({
      embedded,
      ...deployed(),
      roles: { http: true, work: true, schedule: true },
      env: {
        DGII_BASE_URL: ready.url,
        DGII_FC_BASE_URL: ready.url,
        DGII_STATUS_BASE_URL: ready.url,
        DGII_RESPONSE_TIMEOUT_MS: '5000',
        ...env,
      },
    });
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
    if (installed.statusCode !== 200)
      throw new Error(`certificate install failed: ${String(installed.statusCode)} ${installed.body}`);
    const { apiKey } = await app.issueKey(companyId, [
      'documents:create',
      'documents:read',
      'documents:send',
      'sequences:manage',
    ]);
    const inject = app.app.inject.bind(app.app);
    const range = await inject({
      method: 'POST',
      url: '/api/v1/secuencias/rangos',
      headers: { 'x-api-key': apiKey },
      payload: { ecfType: '31', from: 'E310000000001', to: 'E310000100000', expiresOn: `31-12-${String(nextYear)}` },
    });
    if (range.statusCode !== 201)
      throw new Error(`range registration failed: ${String(range.statusCode)} ${range.body}`);
    const company = await app.application.services.companies.get(companyId);
    if (company?.certificate == null) throw new Error('the bench company has no certificate');
    await sandbox.ask({
      type: 'provision',
      rnc: issuerRnc,
      name: company.legalName,
      certificateSha256: company.certificate.fingerprintSha256,
    });

    const db = app.application.database.db;
    const appDatabase =
      (await sql<{ name: string }>`select current_database() as name`.execute(db)).rows[0]?.name ?? '';
    let sinceMark = ownUsage();
    let ticks: Awaited<ReturnType<typeof postgresBackendTicks>>;
    const databases = [appDatabase, ready.database];
    const started = app;
    return {
      app,
      companyId,
      sandboxUrl: ready.url,
      async create(payload = ecfDocuments['31']) {
        const response = await inject({
          method: 'POST',
          url: '/api/v1/documentos',
          headers: { 'x-api-key': apiKey },
          payload,
        });
        if (response.statusCode !== 201)
          throw new Error(`document refused: ${String(response.statusCode)} ${response.body}`);
        const { data } = response.json<{ data: Created }>();
        return { id: data.id, eNCF: data.eNCF };
      },
      async send(id) {
        const response = await inject({
          method: 'POST',
          url: `/api/v1/documentos/${id}/enviar`,
          headers: { 'x-api-key': apiKey },
        });
        if (response.statusCode !== 202)
          throw new Error(`enviar refused: ${String(response.statusCode)} ${response.body}`);
      },
      async mark() {
        await sandbox.ask({ type: 'usage' });
        ticks = embedded ? undefined : await postgresBackendTicks(db, databases);
        sinceMark = ownUsage();
      },
      async usage(documents) {
        const own = sinceMark();
        const appUsage = {
          cpuMsPerDocument: own.cpuMs / documents,
          systemMsPerDocument: own.systemMs / documents,
          mainThreadMsPerDocument: own.mainThreadMs === undefined ? undefined : own.mainThreadMs / documents,
          eventLoopUtilization: own.eventLoopUtilization,
        };
        const reply = await sandbox.ask({ type: 'usage' });
        if (reply.type !== 'usage') throw new Error(`sandbox process answered ${reply.type}`);
        const now = ticks === undefined ? undefined : await postgresBackendTicks(db, databases);
        let postgres: Resources['postgres'];
        if (ticks !== undefined && now !== undefined) {
          const before = ticks;
          const perDocument = (database: string) => postgresCpuMsBetween(before, now, database) / documents;
          postgres = { app: perDocument(appDatabase), sandbox: perDocument(ready.database) };
        }
        return {
          postgres,
          app: appUsage,
          sandbox: { cpuMsPerDocument: reply.cpuMs / documents, eventLoopUtilization: reply.eventLoopUtilization },
        };
      },
      async transactions() {
        if (embedded) return undefined;
        const rows = await sql<{
          datname: string;
          xacts: string;
        }>`select datname, (xact_commit + xact_rollback)::text as xacts from pg_stat_database where datname in (${appDatabase}, ${ready.database})`.execute(
          db,
        );
        const count = (name: string) => Number(rows.rows.find((row) => row.datname === name)?.xacts ?? Number.NaN);
        return { app: count(appDatabase), sandbox: count(ready.database) };
      },
      async processingDelay(ms) {
        await sandbox.ask({ type: 'processing-delay', ms });
      },
      async close() {
        await started.close();
        await sandbox.ask({ type: 'close' }).catch(() => undefined);
      },
    };
  } catch (error) {
    await app?.close();
    sandbox.child.kill();
    throw error;
  }
}

/** Runs `task` over `items`, `concurrency` at a time. */
export async function inParallel<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await task(item);
      }
    }),
  );
}

export async function createDocuments(
  world: BenchWorld,
  count: number,
  payload?: Record<string, unknown>,
): Promise<Created[]> {
  const created: Created[] = [];
  await inParallel(
    Array.from({ length: count }, (_, i) => i),
    20,
    async () => {
      created.push(await world.create(payload));
    },
  );
  return created;
}
