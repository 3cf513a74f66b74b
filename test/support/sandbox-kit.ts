// A running DGII sandbox for tests, driven over HTTP the way a DGII client drives DGII: its own throwaway
// database (PostgreSQL when it answers, PGlite otherwise), DGII's official XSDs, the admin routes on, and helpers
// for the client side (seed, signed seed, token, multipart uploads) and for the admin side.
import { pino } from 'pino';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';
import { fixedClock, systemClock, type Clock } from '../../src/platform/clock.js';
import { compileSchemaSet, type SchemaSet } from '../../src/fiscal/xsd/index.js';
import { signXml, type SigningKey } from '../../src/fiscal/xmldsig/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createTestDatabase, type TestDatabase } from './backends.js';
import { readOfficialXsds } from './dgii-files.js';

let schemas: SchemaSet | undefined;
/** DGII's schemas, compiled once per test process. */
export function officialSchemas(): SchemaSet {
  schemas ??= compileSchemaSet(readOfficialXsds());
  return schemas;
}

export interface RunningSandbox {
  url: string;
  sandbox: Sandbox;
  clock: Clock;
  /** Reopen on the same database: what a restart looks like. */
  restart(): Promise<RunningSandbox>;
  close(): Promise<void>;
  admin(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }>;
}

export interface SandboxKitOptions {
  clock?: Clock & Partial<ReturnType<typeof fixedClock>>;
  fetch?: typeof fetch;
  embedded?: boolean;
  /** Without DGII's XSDs (ECF_XSD_DIR unset): documents are checked against the e-CF model only. */
  withoutSchemas?: boolean;
  /** Connections in the sandbox's pool on PostgreSQL (default: createTestDatabase's). */
  poolSize?: number;
}

async function start(
  database: DatabaseHandle,
  testDatabase: TestDatabase,
  options: SandboxKitOptions,
): Promise<RunningSandbox> {
  const clock = options.clock ?? systemClock;
  const sandbox = await createSandbox({
    db: database.db,
    clock,
    log: pino({ level: 'silent' }),
    schemas: options.withoutSchemas === true ? undefined : officialSchemas(),
    admin: { enabled: true },
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const url = await sandbox.listen(0, '127.0.0.1');
  const running: RunningSandbox = {
    url,
    sandbox,
    clock,
    async restart() {
      await sandbox.close();
      return start(database, testDatabase, options);
    },
    async close() {
      await sandbox.close();
      await database.close();
      await testDatabase.drop();
    },
    async admin(method, path, body) {
      const response = await fetch(`${url}/sandbox-admin${path}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
    },
  };
  return running;
}

export async function startSandbox(options: SandboxKitOptions = {}): Promise<RunningSandbox> {
  const testDatabase = await createTestDatabase({ embedded: options.embedded ?? false, poolSize: options.poolSize });
  const database = await openDatabase(testDatabase.target);
  return start(database, testDatabase, options);
}

/** multipart/form-data with the document in the `xml` part, as DGII's clients send it (with a Content-Length). */
export function xmlForm(xml: string | Buffer, filename = 'documento.xml'): FormData {
  const form = new FormData();
  form.append('xml', new Blob([typeof xml === 'string' ? xml : new Uint8Array(xml)], { type: 'text/xml' }), filename);
  return form;
}

export async function getSeed(url: string, environment = 'testecf'): Promise<string> {
  const response = await fetch(`${url}/${environment}/autenticacion/api/autenticacion/semilla`);
  if (response.status !== 200) throw new Error(`seed: HTTP ${String(response.status)}`);
  return response.text();
}

/** Seed → signed seed → token, like a DGII client. */
export async function authenticate(url: string, key: SigningKey, environment = 'testecf'): Promise<string> {
  const seed = await getSeed(url, environment);
  const response = await fetch(`${url}/${environment}/autenticacion/api/autenticacion/validarsemilla`, {
    method: 'POST',
    body: xmlForm(signXml(seed, key), 'semilla.xml'),
  });
  const body = (await response.json()) as { token?: string };
  if (response.status !== 200 || body.token === undefined)
    throw new Error(`validarsemilla: HTTP ${String(response.status)} ${JSON.stringify(body)}`);
  return body.token;
}

export { fixedClock };

/** How many times each e-NCF reached the sandbox's reception (recepcion or recepcionfc), for `query` (`rnc=…`). */
export async function receptionsPerEncf(sandbox: RunningSandbox, query = ''): Promise<Map<string, number>> {
  const arrivals = (await sandbox.admin('GET', `/arrivals${query === '' ? '' : `?${query}`}`)).body as {
    service: string;
    encf: string | null;
  }[];
  const times = new Map<string, number>();
  for (const arrival of arrivals)
    if (arrival.encf !== null && (arrival.service === 'recepcion' || arrival.service === 'recepcionfc'))
      times.set(arrival.encf, (times.get(arrival.encf) ?? 0) + 1);
  return times;
}
