// Measured here: a full archive verification pass (src/modules/archive: the inventory read in slices, each blob read,
// hashed and, for signed XML, its signature verified and its fields compared with the record) over 20,000 archived
// e-CF, against the raw rate of reading and hashing the same files in the same run. Goal on the 2-core reference
// machine: the pass at >= 0.7x the raw rate (bytes per second), with its peak RSS reported.
// Populating 20,000 documents through HTTP would take minutes, so a few are created through the app (signed by it)
// and then cloned: their companies, rows and artefact records by SQL with new ids, their blobs copied unchanged under
// the new keys. The signed bytes are the app's, so every signature verifies, and the rows' fields are the XML's (the
// e-NCF included): the clones live in companies of their own because (company, environment, e-NCF) is unique. The
// copies are plain file writes, not BlobStore puts: a durable put fsyncs each file and its directory, and 60,000 of
// them would take longer than the bench; the verifier reads the same files either way.
// Rounds alternate, the raw read first, each a whole pass over the archive; each round's ratio is taken within the
// round, then the median. The raw read lists the blob directory and reads and hashes every file, 8 at a time as the
// verifier does. PostgreSQL when it answers (its CPU is not this process's), PGlite otherwise.
// BENCH_ARCHIVE_PROFILE=<file> writes a CPU profile of the (last) pass; BENCH_ARCHIVE_DOCUMENTS=<n> sizes the archive
// (a multiple of 40) for a quicker look; BENCH_ARCHIVE_CPU=1 prints each pass's wall and CPU time (this process's
// threads; PostgreSQL's are its own) and the memory before the timed passes (the app and its setup).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFile as readFileCallback, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../test/support/test-app.js';
import { invoiceWithLines, provision } from './documents.bench.js';
import { profiled } from './support/profile.js';
import { median, spread } from './support/statistics.js';
import { printTable, verdict, type BenchRow } from './support/table.js';

const DOCUMENTS = Number(process.env['BENCH_ARCHIVE_DOCUMENTS'] ?? 20_000);
const ORIGINALS = 40;
const ROUNDS = 2;
const CONCURRENCY = 8;
const RATIO_GOAL = 0.7;
const showCpu = process.env['BENCH_ARCHIVE_CPU'] !== undefined;

const readWhole = promisify(readFileCallback);

/** `count` documents through the app: 201s with their signed artefacts archived. */
async function createOriginals(testApp: TestApp, apiKey: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      payload: invoiceWithLines(1 + (i % 10)),
    });
    if (response.statusCode !== 201) throw new Error(`document failed: ${response.statusCode} ${response.body}`);
  }
}

/** `copies` clones of the company and its documents: rows by SQL, blobs copied under the new keys. */
async function cloneArchive(testApp: TestApp, companyId: string, copies: number): Promise<void> {
  const db = testApp.application.database.db;
  const blobRoot = join(testApp.dataDir, 'blobs');
  await sql`
    insert into companies
    select (jsonb_populate_record(null::companies, to_jsonb(c) || jsonb_build_object(
      'id', c.id || '_' || n, 'rnc', c.rnc || '_' || n, 'receiver_segment', null))).*
    from companies c, generate_series(1, ${copies}::int) n where c.id = ${companyId}`.execute(db);
  await sql`
    insert into documents
    select (jsonb_populate_record(null::documents, to_jsonb(d) || jsonb_build_object(
      'id', d.id || '_' || n, 'company_id', d.company_id || '_' || n))).*
    from documents d, generate_series(1, ${copies}::int) n where d.company_id = ${companyId}`.execute(db);
  await sql`
    insert into document_artefacts
    select (jsonb_populate_record(null::document_artefacts, to_jsonb(a) || jsonb_build_object(
      'document_id', a.document_id || '_' || n,
      'blob_key', replace(replace(a.blob_key, a.document_id, a.document_id || '_' || n), ${companyId}::text,
        ${companyId}::text || '_' || n)))).*
    from document_artefacts a join documents d on d.id = a.document_id, generate_series(1, ${copies}::int) n
    where d.company_id = ${companyId}`.execute(db);
  const originals = await db
    .selectFrom('document_artefacts')
    .innerJoin('documents', 'documents.id', 'document_artefacts.document_id')
    .select(['document_artefacts.blob_key', 'document_artefacts.document_id'])
    .where('documents.company_id', '=', companyId)
    .execute();
  const pathOf = (key: string) => join(blobRoot, ...key.split('/'));
  for (const { blob_key: key, document_id: documentId } of originals) {
    const bytes = await readWhole(pathOf(key));
    for (let n = 1; n <= copies; n++) {
      const copy = pathOf(key.replace(documentId, `${documentId}_${n}`).replace(companyId, `${companyId}_${n}`));
      mkdirSync(join(copy, '..'), { recursive: true });
      writeFileSync(copy, bytes);
    }
  }
}

/** Lists the blob directory and reads and hashes every file, `CONCURRENCY` at a time. */
async function rawPass(blobRoot: string): Promise<{ files: number; bytes: number }> {
  const files = readdirSync(blobRoot, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
  let next = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < files.length) {
        const content = await readWhole(files[next++] as string);
        createHash('sha256').update(content).digest('hex');
        bytes += content.byteLength;
      }
    }),
  );
  return { files: files.length, bytes };
}

/** Runs `run`, sampling this process's RSS every 50 ms; returns its result, seconds and the peak RSS. */
async function timed<T>(run: () => Promise<T>): Promise<{ result: T; seconds: number; peakRss: number }> {
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 50);
  const start = performance.now();
  const cpu = process.cpuUsage();
  try {
    const result = await run();
    const used = process.cpuUsage(cpu);
    if (showCpu)
      console.error(
        `wall ${((performance.now() - start) / 1000).toFixed(3)} s, cpu user ${(used.user / 1e6).toFixed(3)} s sys ${(used.system / 1e6).toFixed(3)} s`,
      );
    return {
      result,
      seconds: (performance.now() - start) / 1000,
      peakRss: Math.max(peakRss, process.memoryUsage.rss()),
    };
  } finally {
    clearInterval(sampler);
  }
}

const mb = (bytes: number) => bytes / 1_048_576;
const range = (values: readonly number[], digits: number) => {
  const { low, high } = spread(values);
  return `${low.toFixed(digits)}–${high.toFixed(digits)}`;
};

export async function archiveBench(): Promise<BenchRow[]> {
  const testApp = await startTestApp({ roles: { http: true, work: false, schedule: false } });
  try {
    const apiKey = await provision(testApp);
    const db = testApp.application.database.db;
    const { id: companyId } = await db.selectFrom('companies').select('id').executeTakeFirstOrThrow();
    await createOriginals(testApp, apiKey, ORIGINALS);
    await cloneArchive(testApp, companyId, DOCUMENTS / ORIGINALS - 1);
    const blobRoot = join(testApp.dataDir, 'blobs');
    const archive = testApp.application.services.archive;

    const raw: { seconds: number; bytes: number; files: number }[] = [];
    const verify: { seconds: number; bytes: number; artefacts: number; peakRss: number }[] = [];
    await rawPass(blobRoot); // the page cache warmed for both
    // The verifier's check threads started and warmed, as they are in a worker that has run a pass.
    await archive.runPass({});
    if (showCpu) console.error('memory before the timed passes', process.memoryUsage());
    for (let round = 0; round < ROUNDS; round++) {
      const read = await timed(() => rawPass(blobRoot));
      raw.push({ seconds: read.seconds, ...read.result });
      const pass = await timed(() => profiled('BENCH_ARCHIVE_PROFILE', () => archive.runPass({})));
      if (pass.result.failing.length > 0)
        throw new Error(`the bench archive is not clean: ${JSON.stringify(pass.result.failing.slice(0, 3))}`);
      verify.push({
        seconds: pass.seconds,
        bytes: pass.result.pass.bytes,
        artefacts: pass.result.pass.artefacts,
        peakRss: pass.peakRss,
      });
    }
    const rawMbs = raw.map((r) => mb(r.bytes) / r.seconds);
    const verifyMbs = verify.map((v) => mb(v.bytes) / v.seconds);
    const ratio = verifyMbs.map((rate, i) => rate / (rawMbs[i] ?? Number.NaN));
    const artefacts = verify[0]?.artefacts ?? 0;
    const totalMb = mb(verify[0]?.bytes ?? 0);
    const peakRss = Math.max(...verify.map((v) => v.peakRss));
    const setting = `${testApp.application.database.kind}, blobs ${testApp.config.storage.kind}, ${String(DOCUMENTS)} documents, ${String(artefacts)} artefacts, ${totalMb.toFixed(0)} MB, ${String(ROUNDS)} rounds`;
    return [
      {
        benchmark: 'archive: raw read + SHA-256 of every blob (8 at a time)',
        result: `${median(rawMbs).toFixed(1)} MB/s, ${median(raw.map((r) => r.files / r.seconds)).toFixed(0)} files/s (rounds ${range(rawMbs, 1)} MB/s)`,
        note: setting,
      },
      {
        benchmark: 'archive: full verification pass (runPass, unpaced)',
        result: `${median(verifyMbs).toFixed(1)} MB/s, ${median(verify.map((v) => v.artefacts / v.seconds)).toFixed(0)} artefacts/s (rounds ${range(verifyMbs, 1)} MB/s), ${median(verify.map((v) => v.seconds)).toFixed(1)} s/pass`,
        note: `peak RSS ${mb(peakRss).toFixed(0)} MB (process max ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB)`,
      },
      {
        benchmark: 'archive: verification / raw rate',
        result: `${median(ratio).toFixed(2)}x (rounds ${range(ratio, 2)}x)`,
        note: `goal >= ${RATIO_GOAL}x: ${verdict(median(ratio) >= RATIO_GOAL)}`,
      },
    ];
  } finally {
    await testApp.close();
  }
}

// `npx tsx bench/archive.bench.ts` runs this bench alone.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  printTable(await archiveBench());
