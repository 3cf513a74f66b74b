// Measured here: documents per second from `enviar` to DGII's final verdict against the sandbox (no injected
// faults, verdicts ready at once), and what polling for those verdicts costs. Goal on the 2-core reference machine:
// >= 300 documents/s end to end, limited by the sandbox, not by the pipeline.
//
// "Limited by the sandbox" needs the sandbox's own ceiling next to the pipeline's rate, measured the same way: a
// plain client (no queue, no database of ours, no backoff) sends the same signed documents to the same sandbox and
// asks consultaresultado until each verdict, as many at a time as the sender keeps in flight (SEND_CONCURRENCY; again
// with WIDE_SENDERS, to show whether the sandbox could take more than the pipeline keeps in flight). The sandbox
// runs in a process of its own (bench/sending-sandbox.ts), as DGII is another machine; the app (HTTP, worker and
// scheduler roles, like sending-kit's world) and the plain client run in this one. Each run reports the CPU and
// event-loop use of both processes and of their PostgreSQL backends, so the reader sees which one was saturated,
// and the app's statements to PostgreSQL and its waits for pooled connections. BENCH_SENDING_PROFILE=<file> also
// writes a CPU profile of the app during the pipeline runs. About three minutes in all.
// Timings of the pipeline come from its own records: the `queued` event (written by enviar) to `final_at`. Rates are
// those of a run that flows (flowingRate), for the pipeline and the plain client alike; the rate from the first
// enviar to the last verdict is in the notes.
import { fork, type ChildProcess } from 'node:child_process';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { pendingCounts } from '../src/modules/sending/sending.repo.js';
import { documentPolls, documentSends } from '../src/modules/sending/index.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { postgresAvailable } from '../test/support/backends.js';
import { ecfDocuments, issuerRnc } from '../test/support/ecf-documents.js';
import { authenticate, xmlForm } from '../test/support/sandbox-kit.js';
import { startTestApp, type TestApp } from '../test/support/test-app.js';
import type { SandboxReply, SandboxRequest } from './sending-sandbox.js';
import { postgresBackendTicks, postgresCpuMsBetween } from './process-cpu.js';
import { profiled } from './profile.js';
import { printTable, type BenchRow } from './table.js';

const GOAL_PER_SECOND = 300;
/** The plain client again with more in flight: the sandbox's capacity rather than its answer to 32 at a time. */
const WIDE_SENDERS = 128;
/** enviar calls in flight, like integrators sending their documents one after another on a few connections. */
const ENVIAR_CONCURRENCY = 20;
/** Documents each side is warmed with: the sandbox's reception took a few hundred before V8 had optimised it (its
 * CPU per document fell by half over the first thousand), and a cold sandbox would flatter the pipeline's share. */
const WARM_UP_DOCUMENTS = 500;
/** "Limited by the sandbox" when the pipeline reaches this share of the sandbox's own ceiling. */
const SANDBOX_BOUND_SHARE = 0.8;
/** PostgreSQL publishes an idle backend's counters up to 10 s late (PGSTAT_IDLE_INTERVAL). */
const STATS_SETTLE_MS = 11_000;
/** The polling run: DGII deciding a few seconds after reception, as it does for most documents. */
const PROCESSING_DELAY_MS = 3_000;
const POLLING_DOCUMENTS = 200;

const nextYear = new Date().getUTCFullYear() + 1;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Created {
  id: string;
  eNCF: string;
}

interface Usage {
  cpuMsPerDocument: number;
  eventLoopUtilization: number;
}

interface Resources {
  app: Usage;
  sandbox: Usage;
  /** CPU of the PostgreSQL backends serving each database (from /proc), ms per document. */
  postgres: { app: number; sandbox: number } | undefined;
}

interface BenchWorld {
  app: TestApp;
  companyId: string;
  sandboxUrl: string;
  create(): Promise<Created>;
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

/** The sandbox process, answering one request at a time. */
function sandboxProcess(embedded: boolean): { child: ChildProcess; next: () => Promise<SandboxReply>; ask: (request: SandboxRequest) => Promise<SandboxReply> } {
  const child = fork(fileURLToPath(new URL('./sending-sandbox.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_EMBEDDED: embedded ? '1' : '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<SandboxReply>((resolve, reject) => {
      const onExit = (code: number | null) => {
        reject(new Error(`the sandbox process exited with ${String(code)}`));
      };
      child.once('exit', onExit);
      child.once('message', (reply: SandboxReply) => {
        child.off('exit', onExit);
        if (reply.type === 'failed') reject(new Error(`sandbox process: ${reply.message}`));
        else resolve(reply);
      });
    });
  return {
    child,
    next,
    ask(request) {
      const answer = next();
      child.send(request);
      return answer;
    },
  };
}

/** sending-kit's world with the sandbox in its own process: the fixtures' issuer provisioned on both sides. */
async function startWorld(embedded: boolean): Promise<BenchWorld> {
  const sandbox = sandboxProcess(embedded);
  const ready = await sandbox.next();
  if (ready.type !== 'ready') throw new Error(`sandbox process answered ${ready.type}`);
  let app: TestApp | undefined;
  try {
    app = await startTestApp({
      embedded,
      roles: { http: true, work: true, schedule: true },
      env: { DGII_BASE_URL: ready.url, DGII_FC_BASE_URL: ready.url, DGII_STATUS_BASE_URL: ready.url, DGII_RESPONSE_TIMEOUT_MS: '5000' },
    });
    const companyId = await app.provisionCompany({ rnc: issuerRnc });
    const certificate = createSelfSignedP12({ commonName: 'EMISOR DE PRUEBA', serialNumber: issuerRnc, notBefore: new Date('2026-01-01'), notAfter: new Date('2036-01-01'), password: 'clave' });
    const installed = await app.sendEvent('certificate.installed', { companyId, p12Base64: certificate.p12.toString('base64'), password: 'clave' });
    if (installed.statusCode !== 200) throw new Error(`certificate install failed: ${String(installed.statusCode)} ${installed.body}`);
    const { apiKey } = await app.issueKey(companyId, ['documents:create', 'documents:read', 'documents:send', 'sequences:manage']);
    const inject = app.app.inject.bind(app.app);
    const range = await inject({ method: 'POST', url: '/api/v1/secuencias/rangos', headers: { 'x-api-key': apiKey }, payload: { ecfType: '31', from: 'E310000000001', to: 'E310000100000', expiresOn: `31-12-${String(nextYear)}` } });
    if (range.statusCode !== 201) throw new Error(`range registration failed: ${String(range.statusCode)} ${range.body}`);
    const company = await app.application.services.companies.get(companyId);
    if (company?.certificate == null) throw new Error('the bench company has no certificate');
    await sandbox.ask({ type: 'provision', rnc: issuerRnc, name: company.legalName, certificateSha256: company.certificate.fingerprintSha256 });

    const db = app.application.database.db;
    const appDatabase = (await sql<{ name: string }>`select current_database() as name`.execute(db)).rows[0]?.name ?? '';
    let cpu = process.cpuUsage();
    let loop: EventLoopUtilization = performance.eventLoopUtilization();
    let ticks: Awaited<ReturnType<typeof postgresBackendTicks>>;
    const databases = [appDatabase, ready.database];
    const started = app;
    return {
      app,
      companyId,
      sandboxUrl: ready.url,
      async create() {
        const response = await inject({ method: 'POST', url: '/api/v1/documentos', headers: { 'x-api-key': apiKey }, payload: ecfDocuments['31'] });
        if (response.statusCode !== 201) throw new Error(`document refused: ${String(response.statusCode)} ${response.body}`);
        const { data } = response.json<{ data: Created }>();
        return { id: data.id, eNCF: data.eNCF };
      },
      async send(id) {
        const response = await inject({ method: 'POST', url: `/api/v1/documentos/${id}/enviar`, headers: { 'x-api-key': apiKey } });
        if (response.statusCode !== 202) throw new Error(`enviar refused: ${String(response.statusCode)} ${response.body}`);
      },
      async mark() {
        await sandbox.ask({ type: 'usage' });
        ticks = embedded ? undefined : await postgresBackendTicks(db, databases);
        cpu = process.cpuUsage();
        loop = performance.eventLoopUtilization();
      },
      async usage(documents) {
        const used = process.cpuUsage(cpu);
        const cpuMs = (used.user + used.system) / 1_000;
        const appUsage = { cpuMsPerDocument: cpuMs / documents, eventLoopUtilization: performance.eventLoopUtilization(loop).utilization };
        const reply = await sandbox.ask({ type: 'usage' });
        if (reply.type !== 'usage') throw new Error(`sandbox process answered ${reply.type}`);
        const now = ticks === undefined ? undefined : await postgresBackendTicks(db, databases);
        let postgres: Resources['postgres'];
        if (ticks !== undefined && now !== undefined) {
          const before = ticks;
          const perDocument = (database: string) => postgresCpuMsBetween(before, now, database) / documents;
          postgres = { app: perDocument(appDatabase), sandbox: perDocument(ready.database) };
        }
        return { postgres, app: appUsage, sandbox: { cpuMsPerDocument: reply.cpuMs / documents, eventLoopUtilization: reply.eventLoopUtilization } };
      },
      async transactions() {
        if (embedded) return undefined;
        const rows = await sql<{ datname: string; xacts: string }>`select datname, (xact_commit + xact_rollback)::text as xacts from pg_stat_database where datname in (${appDatabase}, ${ready.database})`.execute(db);
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

/**
 * Statements this process sends to PostgreSQL, by table and verb: every query of the app (Kysely, pg-boss through
 * the app's executor) goes through pg's Client.query, counted here without touching the app. The bench's own
 * queries (a count every 50 ms while waiting) are subtracted from the pipeline's figures.
 */
const statements = new Map<string, number>();
function statementKind(text: string): string {
  const verb = /^\s*\(?\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? '?';
  if (verb === 'begin' || verb === 'commit' || verb === 'rollback') return verb;
  const table = /\b(?:from|into|update)\s+("?[\w.]+"?(?:\."?\w+"?)?)/i.exec(text)?.[1]?.replaceAll('"', '') ?? '?';
  return `${verb} ${table}`;
}
/** Connections taken from pg's pools in this process, and how long callers waited for them (pool exhausted). */
const connections = { taken: 0, waitedMs: 0 };

/** Installs the two counters above on pg, once, for this process: only when this bench runs, not on import. */
let instrumented = false;
function instrumentPg(): void {
  if (instrumented) return;
  instrumented = true;
  {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- re-bound below with the client as `this`
    const query = pg.Client.prototype.query;
    const counting = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0];
      const text = typeof first === 'string' ? first : typeof first === 'object' && first !== null && 'text' in first ? String(first.text) : '';
      const kind = statementKind(text);
      statements.set(kind, (statements.get(kind) ?? 0) + 1);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    };
    pg.Client.prototype.query = counting as typeof query;
  }
  {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- re-bound below with the pool as `this`
    const connect = pg.Pool.prototype.connect;
    const timed = function (this: pg.Pool, ...args: unknown[]) {
      const asked = performance.now();
      const done = () => {
        connections.taken++;
        connections.waitedMs += performance.now() - asked;
      };
      const callback = args[0];
      if (typeof callback === 'function') {
        return (connect as (...a: unknown[]) => unknown).call(this, (...results: unknown[]) => {
          done();
          return (callback as (...a: unknown[]) => unknown)(...results);
        });
      }
      return (connect as () => Promise<pg.PoolClient>).call(this).then((client) => {
        done();
        return client;
      });
    };
    pg.Pool.prototype.connect = timed as typeof connect;
  }
}

function statementsSince(before: ReadonlyMap<string, number>): Map<string, number> {
  return new Map([...statements].map(([kind, count]) => [kind, count - (before.get(kind) ?? 0)] as const).filter(([, count]) => count > 0));
}

/** Runs `task` over `items`, `concurrency` at a time. */
async function pool<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
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

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const ms = (value: number) => (value >= 1_000 ? `${(value / 1_000).toFixed(2)} s` : `${value.toFixed(value < 10 ? 1 : 0)} ms`);
/**
 * Documents per second once the run flows: the verdicts after the first over the time from the first to the last. A
 * run's first verdict comes after its latency (for the pipeline at least the first poll's delay, a second), which
 * over a run of a few seconds would count as a lack of throughput and favour the plain client, whose first verdict
 * comes at once; the latency is in the row's latencies.
 */
function flowingRate(completions: readonly number[]): number {
  const sorted = [...completions].sort((a, b) => a - b);
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (first === undefined || last === undefined || last <= first) return Number.NaN;
  return (sorted.length - 1) / ((last - first) / 1_000);
}

const rate = (count: number, elapsedMs: number) => (count / (elapsedMs / 1_000)).toFixed(0);
const latencies = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted[sorted.length - 1] ?? Number.NaN)}`;
};
const describeUsage = (usage: Resources) =>
  `CPU per document: app ${usage.app.cpuMsPerDocument.toFixed(1)} ms, sandbox ${usage.sandbox.cpuMsPerDocument.toFixed(1)} ms` +
  `${usage.postgres === undefined ? '' : `, their PostgreSQL backends ${usage.postgres.app.toFixed(1)} + ${usage.postgres.sandbox.toFixed(1)} ms`}; ` +
  `event loop busy: app ${(usage.app.eventLoopUtilization * 100).toFixed(0)} %, sandbox ${(usage.sandbox.eventLoopUtilization * 100).toFixed(0)} %`;

/** All the CPU one document took, and the cores the goal's rate would keep busy at that cost. */
function budget(usage: Resources): string {
  const total = usage.app.cpuMsPerDocument + usage.sandbox.cpuMsPerDocument + (usage.postgres === undefined ? 0 : usage.postgres.app + usage.postgres.sandbox);
  return `${total.toFixed(1)} ms of CPU per document in all${usage.postgres === undefined ? ' (PGlite runs inside each process; PostgreSQL, if any, not counted)' : ''}: ${String(GOAL_PER_SECOND)}/s would keep ${((GOAL_PER_SECOND * total) / 1_000).toFixed(1)} cores busy`;
}

async function createDocuments(world: BenchWorld, count: number): Promise<Created[]> {
  const created: Created[] = [];
  await pool(Array.from({ length: count }, (_, i) => i), 20, async () => {
    created.push(await world.create());
  });
  return created;
}

interface CeilingRun {
  elapsedMs: number;
  /** When each verdict came, ms since the run started. */
  completions: number[];
  latencies: number[];
  receptionMs: number[];
  polls: number;
  failures: number;
}

/**
 * The sandbox alone: each of `senders` clients takes the next document, sends its archived signed bytes to reception,
 * then asks consultaresultado until the verdict (at once, then every 10 ms), as fast as the sandbox answers.
 */
async function sandboxCeiling(world: BenchWorld, documents: readonly Created[], senders: number, measured: () => Promise<void>): Promise<CeilingRun> {
  const { services } = world.app.application;
  const identity = await services.companies.signingIdentity(world.companyId);
  if (identity === undefined) throw new Error('the bench company has no certificate');
  const token = await authenticate(world.sandboxUrl, identity);
  const files = new Map<string, Buffer>();
  for (const document of documents) {
    const signed = await services.documents.artefact(world.companyId, document.id, 'signed-xml', undefined);
    if (!signed.ok) throw new Error(`no signed XML for ${document.id}`);
    files.set(document.id, signed.value.bytes);
  }
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const base = `${world.sandboxUrl}/testecf`;
  const run: CeilingRun = { elapsedMs: 0, completions: [], latencies: [], receptionMs: [], polls: 0, failures: 0 };
  await measured();
  const started = performance.now();
  await pool(documents, senders, async (document) => {
    const begin = performance.now();
    const received = await fetch(`${base}/recepcion/api/facturaselectronicas`, { method: 'POST', headers, body: xmlForm(files.get(document.id) ?? '', `${issuerRnc}${document.eNCF}.xml`) });
    const answer = (await received.json()) as { trackId?: string };
    run.receptionMs.push(performance.now() - begin);
    if (received.status !== 200 || answer.trackId === undefined) {
      run.failures++;
      return;
    }
    for (;;) {
      run.polls++;
      const result = await fetch(`${base}/consultaresultado/api/consultas/estado?trackid=${answer.trackId}`, { headers });
      const body = (await result.json()) as { codigo?: string };
      if (result.status === 200 && body.codigo !== '3') {
        if (body.codigo !== '1' && body.codigo !== '4') run.failures++;
        break;
      }
      await sleep(10);
    }
    run.latencies.push(performance.now() - begin);
    run.completions.push(performance.now() - started);
  });
  run.elapsedMs = performance.now() - started;
  return run;
}

interface PipelineRun {
  /** First enviar to the last final verdict. */
  elapsedMs: number;
  /** When each verdict was recorded, ms since the first enviar. */
  completions: number[];
  /** First enviar to the last trackId: the send stage's own rate, without the poll stage's tail. */
  sentMs: number;
  /** How long the enviar calls themselves took, all of them. */
  enviarMs: number;
  latencies: number[];
  /** queued → in_process (the sender: its claim, reception, trackId recorded). */
  sendStage: number[];
  /** queued → sending: waiting for a worker (the sender's claim, the backlog of the documents queued before). */
  queueWait: number[];
  /** sending → in_process: the worker's own work (claim committed, company and signed XML read, reception, record). */
  sendWork: number[];
  /** in_process → final (waiting for the poller, asking, recording the verdict). */
  pollStage: number[];
  polls: number[];
  statuses: Record<string, number>;
  /** The app's statements to PostgreSQL from the first enviar to the last verdict, the bench's own left out. */
  statements: Map<string, number>;
  /** Connections taken from the pool over the run, and the time spent waiting for them. */
  connections: { taken: number; waitedMs: number };
}

/** Runs `documents` through the pipeline; `finished` runs as soon as the last is final, before the run's own reads. */
async function throughPipeline(world: BenchWorld, documents: readonly Created[], timeoutMs: number, finished: () => Promise<void> = () => Promise.resolve()): Promise<PipelineRun> {
  const db = world.app.application.database.db;
  const ids = documents.map((document) => document.id);
  const statementsBefore = new Map(statements);
  const connectionsBefore = { ...connections };
  let ownQueries = 0;
  const started = Date.now();
  await pool(ids, ENVIAR_CONCURRENCY, (id) => world.send(id));
  const enviarMs = Date.now() - started;
  const deadline = started + timeoutMs;
  // Counts the documents still on their way (the bench's alone, one run at a time) as the health view does, through
  // their queues: the bench's own questions are served by the app's PostgreSQL backends, whose CPU the run
  // reports as the pipeline's, and asking about each document every 50 ms cost about 2 ms of it each time.
  for (;;) {
    ownQueries++;
    const open = (await pendingCounts(db, world.app.config.fiscalEnv, [documentSends, documentPolls])).reduce((sum, pending) => sum + pending.count, 0);
    if (open === 0) break;
    if (Date.now() > deadline) throw new Error(`${String(open)} of ${String(ids.length)} documents are not final after ${String(timeoutMs)} ms`);
    await sleep(50);
  }
  await finished();
  const spent = statementsSince(statementsBefore);
  const pooled = { taken: connections.taken - connectionsBefore.taken - ownQueries, waitedMs: connections.waitedMs - connectionsBefore.waitedMs };
  spent.set('select outbound_work', (spent.get('select outbound_work') ?? 0) - ownQueries);
  if (spent.get('select outbound_work') === 0) spent.delete('select outbound_work');
  // One row per document: when enviar queued it, when DGII gave its trackId, when the verdict was recorded.
  const rows = await sql<{ status: string; queued_at: Date; sending_at: Date | null; received_at: Date | null; final_at: Date; poll_count: number }>`
    select d.status, d.final_at, d.poll_count,
      (select min(e.at) from document_events e where e.document_id = d.id and e.type = 'queued') as queued_at,
      (select max(e.at) from document_events e where e.document_id = d.id and e.type = 'dgii.sending') as sending_at,
      (select min(e.at) from document_events e where e.document_id = d.id and e.type = 'dgii.received') as received_at
    from documents d where d.id in (${sql.join(ids)})`.execute(db);
  const statuses: Record<string, number> = {};
  const run: PipelineRun = { elapsedMs: 0, completions: [], sentMs: 0, enviarMs, latencies: [], sendStage: [], queueWait: [], sendWork: [], pollStage: [], polls: [], statuses, statements: spent, connections: pooled };
  let last = started;
  let lastSent = started;
  for (const row of rows.rows) {
    statuses[row.status] = (statuses[row.status] ?? 0) + 1;
    const queued = new Date(row.queued_at).getTime();
    const final = new Date(row.final_at).getTime();
    last = Math.max(last, final);
    run.latencies.push(final - queued);
    run.completions.push(final - started);
    if (row.received_at !== null) {
      const received = new Date(row.received_at).getTime();
      lastSent = Math.max(lastSent, received);
      run.sendStage.push(received - queued);
      if (row.sending_at !== null) {
        const sending = new Date(row.sending_at).getTime();
        run.queueWait.push(sending - queued);
        run.sendWork.push(received - sending);
      }
      run.pollStage.push(final - received);
      // A verdict is recorded without counting its own question (delivery.ts recordResult): polls = poll_count + 1.
      run.polls.push(row.poll_count + 1);
    }
  }
  run.elapsedMs = last - started;
  run.sentMs = lastSent - started;
  return run;
}

/** Transactions per document in both databases over `phase`, once PostgreSQL has published its counters. */
async function transactionsOver(world: BenchWorld, documents: number, phase: () => Promise<void>): Promise<string> {
  await sleep(STATS_SETTLE_MS);
  const before = await world.transactions();
  await phase();
  if (before === undefined) return '';
  await sleep(STATS_SETTLE_MS);
  const after = await world.transactions();
  if (after === undefined) return '';
  return `; DB transactions per document: app ${((after.app - before.app) / documents).toFixed(1)}, sandbox ${((after.sandbox - before.sandbox) / documents).toFixed(1)}`;
}

async function benchBackend(embedded: boolean, count: number, rounds: number): Promise<BenchRow[]> {
  const world = await startWorld(embedded);
  try {
    const backend = embedded ? 'PGlite' : 'PostgreSQL';
    /** The sender's concurrency: the plain client may keep as many in flight. */
    const senders = world.app.config.sending.concurrency;
    const warmUp = await createDocuments(world, WARM_UP_DOCUMENTS * 2);
    const forSandbox = await createDocuments(world, count);
    const forRounds: { wide: Created[]; pipeline: Created[] }[] = [];
    for (let round = 0; round < rounds; round++) forRounds.push({ wide: await createDocuments(world, count), pipeline: await createDocuments(world, count) });
    const forPolling = await createDocuments(world, POLLING_DOCUMENTS);
    // JIT, connection pools, the DGII token: a small run of each before the timed ones.
    await sandboxCeiling(world, warmUp.slice(0, WARM_UP_DOCUMENTS), WIDE_SENDERS, () => Promise.resolve());
    await throughPipeline(world, warmUp.slice(WARM_UP_DOCUMENTS), 60_000);

    // Resources are read as soon as a run ends, before transactionsOver waits for PostgreSQL's counters.
    let ceiling: CeilingRun | undefined;
    let ceilingUsage: Resources | undefined;
    const ceilingTransactions = await transactionsOver(world, count, async () => {
      ceiling = await sandboxCeiling(world, forSandbox, senders, () => world.mark());
      ceilingUsage = await world.usage(count);
    });
    // The plain client at its best and the pipeline, one after the other, in rounds: this machine's speed drifts by
    // a third within minutes, so each pipeline run is set against the sandbox's best measured next to it.
    const measured: { wide: CeilingRun; wideUsage: Resources; pipeline: PipelineRun; pipelineUsage: Resources; transactions: string }[] = [];
    for (const documents of forRounds) {
      const wide = await sandboxCeiling(world, documents.wide, WIDE_SENDERS, () => world.mark());
      const wideUsage = await world.usage(count);
      let pipeline: PipelineRun | undefined;
      let pipelineUsage: Resources | undefined;
      const run = async () => {
        await world.mark();
        pipeline = await profiled('BENCH_SENDING_PROFILE', () =>
          throughPipeline(world, documents.pipeline, Math.max(120_000, (count / 20) * 1_000), async () => {
            pipelineUsage = await world.usage(count);
          }),
        );
      };
      // PostgreSQL's transaction counters need seconds to settle: read over the first round only.
      const transactions = measured.length === 0 ? await transactionsOver(world, count, run) : (await run(), '');
      if (pipeline === undefined || pipelineUsage === undefined) throw new Error('a run did not finish');
      measured.push({ wide, wideUsage, pipeline, pipelineUsage, transactions });
    }
    if (ceiling === undefined || ceilingUsage === undefined) throw new Error('a run did not finish');
    await world.processingDelay(PROCESSING_DELAY_MS);
    const polling = await throughPipeline(world, forPolling, 120_000);
    await world.processingDelay(0);
    const pollingPolls = polling.polls.reduce((sum, polls) => sum + polls, 0);
    const pollingSorted = [...polling.polls].sort((a, b) => a - b);

    const ceilingRate = flowingRate(ceiling.completions);
    const rated = measured.map((round) => {
      const pipelineRate = flowingRate(round.pipeline.completions);
      const wideRate = flowingRate(round.wide.completions);
      return { ...round, pipelineRate, wideRate, share: pipelineRate / Math.max(ceilingRate, wideRate) };
    });
    // The round whose share of the sandbox's best is the median one: its figures are the table's.
    const chosen = [...rated].sort((a, b) => a.share - b.share)[Math.floor(rated.length / 2)];
    if (chosen === undefined) throw new Error('no round was run');
    const { wide, wideUsage, pipeline, pipelineUsage, wideRate, pipelineRate } = chosen;
    const pipelineTransactions = measured[0]?.transactions ?? '';
    const bestCeiling = Math.max(ceilingRate, wideRate);
    const allAccepted = measured.every((round) => (round.pipeline.statuses['accepted'] ?? 0) === count);
    const sandboxBound = pipelineRate >= bestCeiling * SANDBOX_BOUND_SHARE;
    const met = pipelineRate >= GOAL_PER_SECOND && allAccepted && sandboxBound;
    const eachRound = rated.map((round) => `${round.pipelineRate.toFixed(0)}/s of ${round.wideRate.toFixed(0)}/s (${(round.share * 100).toFixed(0)} %)`).join(', ');
    const totalPolls = pipeline.polls.reduce((sum, polls) => sum + polls, 0);
    const pollsSorted = [...pipeline.polls].sort((a, b) => a - b);
    const totalStatements = [...pipeline.statements.values()].reduce((sum, n) => sum + n, 0);
    const ceilingRow = (senders: number, run: CeilingRun, runRate: number, usage: Resources, transactions: string): BenchRow => ({
      benchmark: `  sandbox alone, plain client, ${String(senders)} in flight (${backend})`,
      result: `${runRate.toFixed(0)} documents/s reception → verdict; ${latencies(run.latencies)}`,
      note:
        `${String(count)} documents, ${rate(count, run.elapsedMs)}/s from the first reception to the last verdict; reception alone ${latencies(run.receptionMs)}; ${(run.polls / count).toFixed(2)} polls/document` +
        `${run.failures > 0 ? `; ${String(run.failures)} not accepted` : ''}; ${describeUsage(usage)}; ${budget(usage)}${transactions}`,
    });
    return [
      {
        benchmark: `enviar → final, ${String(count)} type-31 documents (${backend})`,
        result: `${pipelineRate.toFixed(0)} documents/s; enviar → final ${latencies(pipeline.latencies)}`,
        note:
          `${JSON.stringify(pipeline.statuses)}; ${rate(count, pipeline.elapsedMs)}/s from the first enviar to the last verdict; ${((pipelineRate / bestCeiling) * 100).toFixed(0)} % of the sandbox's best rate: limited by ${sandboxBound ? 'the sandbox' : 'the pipeline'}; ` +
          `rounds (pipeline of the sandbox's best next to it): ${eachRound}, the median shown; ` +
          `goal >= ${String(GOAL_PER_SECOND)}/s, sandbox-bound: ${met ? 'met' : 'MISSED'}`,
      },
      {
        benchmark: `  send stage: queued → in_process (${backend})`,
        result: `${rate(pipeline.sendStage.length, pipeline.sentMs)} documents/s to in_process; ${latencies(pipeline.sendStage)}`,
        note: `waiting for a worker ${latencies(pipeline.queueWait)}; the worker's own work (claim → trackId recorded) ${latencies(pipeline.sendWork)}; ${String(count)} enviar calls took ${ms(pipeline.enviarMs)} (${rate(count, pipeline.enviarMs)}/s, ${String(ENVIAR_CONCURRENCY)} at a time)`,
      },
      {
        benchmark: `  poll stage: in_process → final (${backend})`,
        result: latencies(pipeline.pollStage),
        note: `${(totalPolls / Math.max(1, pipeline.polls.length)).toFixed(2)} consultaresultado per document (p50 ${String(percentile(pollsSorted, 50))}, max ${String(pollsSorted[pollsSorted.length - 1] ?? 0)}), ${rate(totalPolls, pipeline.elapsedMs)}/s over the run; the sandbox has each verdict ready on arrival`,
      },
      {
        benchmark: `  polling cost, DGII deciding ${ms(PROCESSING_DELAY_MS)} after reception (${backend})`,
        result: `${(pollingPolls / Math.max(1, polling.polls.length)).toFixed(2)} consultaresultado per document (p50 ${String(percentile(pollingSorted, 50))}, max ${String(pollingSorted[pollingSorted.length - 1] ?? 0)})`,
        note: `${String(POLLING_DOCUMENTS)} documents; in_process → final ${latencies(polling.pollStage)}; ${JSON.stringify(polling.statuses)}`,
      },
      {
        benchmark: `  pipeline's resources (${backend})`,
        result: describeUsage(pipelineUsage),
        note: `${budget(pipelineUsage)}${pipelineTransactions}`,
      },
      ...(embedded ? [] : [{
        benchmark: `  pipeline's statements to PostgreSQL (${backend})`,
        result:
          `${(totalStatements / count).toFixed(1)} per document (each a round trip); ${(pipeline.connections.taken / count).toFixed(1)} pool checkouts per document, ` +
          `waiting ${ms(pipeline.connections.waitedMs / Math.max(1, pipeline.connections.taken))} each on average (${ms(pipeline.connections.waitedMs)} in all)`,
        note: [...pipeline.statements].sort((a, b) => b[1] - a[1]).map(([kind, n]) => `${kind} ${(n / count).toFixed(2)}`).join(', '),
      }]),
      ceilingRow(senders, ceiling, ceilingRate, ceilingUsage, ceilingTransactions),
      ceilingRow(WIDE_SENDERS, wide, wideRate, wideUsage, ''),
    ];
  } finally {
    await world.close();
  }
}

export async function sendingBench(): Promise<BenchRow[]> {
  instrumentPg();
  // BENCH_SENDING_EMBEDDED=1 runs the embedded variant (PGlite) even where PostgreSQL answers.
  if (process.env['BENCH_SENDING_EMBEDDED'] !== '1' && (await postgresAvailable())) return benchBackend(false, 1_000, 3);
  const rows = await benchBackend(true, 200, 1);
  if (process.env['BENCH_SENDING_EMBEDDED'] !== '1') rows.push({ benchmark: 'enviar → final on PostgreSQL', result: 'not run', note: `PostgreSQL does not answer; goal >= ${String(GOAL_PER_SECOND)}/s unchecked` });
  return rows;
}

// `npx tsx bench/sending.bench.ts` runs this bench alone.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) printTable(await sendingBench());
