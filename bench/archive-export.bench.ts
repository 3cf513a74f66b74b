// The audit export of the fiscal archive (issue 31), on PostgreSQL and the filesystem blob store: documents/s and MB/s
// of archived bytes from the first page read to the zip closed, and the peak RSS of the process that exports.
// DOCUMENTS documents of one month are written straight into the archive first (test/support/archive-documents.ts:
// a signed XML of 6 to 12 kB and a source JSON of 2 kB each, through the archiving code the API uses).
//
// The export runs in a process of its own, as `ecf archive export` will, so its peak RSS (getrusage's maxRSS at
// exit) is the export's and not the bench's; under tsx, which holds some 80 MB itself, so a second process that
// loads the same modules and opens the same database and store without exporting is measured beside it: the
// difference is what exporting costs.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { postgresAvailable } from '../test/support/backends.js';
import { insertArchivedDocuments } from '../test/support/archive-documents.js';
import { nextRnc, startTestApp, type TestApp } from '../test/support/test-app.js';
import { deployed } from './support/deployed.js';
import { printTable, type BenchRow } from './support/table.js';

const DOCUMENTS = 20_000;

const source = (path: string) => pathToFileURL(join(import.meta.dirname, '..', path)).href;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const thousands = (n: number) => Math.round(n).toLocaleString('en-US');

// The child: opens the database and the store, exports when asked, and prints what it measured as one JSON line.
const child = `
import { openDatabase } from '${source('src/platform/db/database.ts')}';
import { createFsBlobStore } from '${source('src/platform/storage/index.ts')}';
import { exportArchive } from '${source('src/modules/archive/export.ts')}';
const job = JSON.parse(process.env.EXPORT_JOB);
const handle = await openDatabase({ kind: 'postgres', url: job.url, poolSize: job.poolSize });
const blobs = createFsBlobStore(job.root);
await handle.db.selectFrom('companies').select('id').limit(1).execute();
const started = performance.now();
const summary = job.export ? await exportArchive({ db: handle.db, blobs }, job.options) : undefined;
const ms = performance.now() - started;
await blobs.close();
await handle.close();
process.stdout.write(JSON.stringify({ summary, ms, maxRssKb: process.resourceUsage().maxRSS }) + '\\n');
`;

interface ChildRun {
  summary: { documents: number; artefacts: number; bytes: number; zipBytes: number } | undefined;
  ms: number;
  maxRssKb: number;
}

function runChild(job: object): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const exporter = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], {
      env: { ...process.env, EXPORT_JOB: JSON.stringify(job) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    exporter.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    exporter.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2_000)));
    exporter.once('error', reject);
    exporter.once('close', (code) => {
      if (code === 0) resolve(JSON.parse(stdout) as ChildRun);
      else reject(new Error(`export process exited ${String(code)}: ${stderr}`));
    });
  });
}

async function databaseUrlOf(testApp: TestApp): Promise<string> {
  const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(
    testApp.application.database.db,
  );
  const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  url.pathname = `/${rows[0]?.name ?? ''}`;
  return url.toString();
}

export async function archiveExportBench(): Promise<BenchRow[]> {
  const benchmark = `archive export, ${thousands(DOCUMENTS)} documents`;
  if (!(await postgresAvailable())) return [{ benchmark, result: 'not run', note: 'PostgreSQL does not answer' }];
  const options = deployed();
  const testApp = await startTestApp(options);
  try {
    const rnc = nextRnc();
    const companyId = await testApp.provisionCompany({ rnc });
    const start = Date.parse('2026-11-01T04:00:00Z');
    await insertArchivedDocuments(
      { db: testApp.application.database.db, blobs: testApp.application.blobs },
      { companyId, rnc, count: DOCUMENTS, concurrency: 500, createdAt: (i) => new Date(start + i * 120_000) },
    );
    const storage = testApp.config.storage;
    if (storage.kind !== 'fs') throw new Error('the bench exports from the filesystem store');
    const out = join(options.dataDir, 'export.zip');
    const job = {
      url: await databaseUrlOf(testApp),
      poolSize: options.poolSize,
      root: storage.root,
      options: { companyId, from: '2026-11-01', to: '2026-11-30', out },
    };
    const idle = await runChild({ ...job, export: false });
    const run = await runChild({ ...job, export: true });
    const summary = run.summary;
    if (summary === undefined || summary.documents !== DOCUMENTS)
      return [{ benchmark, result: 'failed', note: `exported ${JSON.stringify(summary)}` }];
    const seconds = run.ms / 1_000;
    rmSync(out, { force: true });
    return [
      {
        benchmark,
        result: `${thousands(DOCUMENTS / seconds)} documents/s, ${mb(summary.bytes / seconds)} MB/s (${seconds.toFixed(1)} s)`,
        note: `${thousands(summary.artefacts)} files, ${mb(summary.bytes)} MB archived into a ${mb(summary.zipBytes)} MB zip; PostgreSQL, filesystem store; from the first page read to the zip closed, in a process of its own`,
      },
      {
        benchmark: `${benchmark}, peak RSS`,
        result: `${mb(run.maxRssKb * 1024)} MB`,
        note: `the exporting process (maxRSS at exit, under tsx); the same process without exporting: ${mb(idle.maxRssKb * 1024)} MB, so the export's own ${mb((run.maxRssKb - idle.maxRssKb) * 1024)} MB for ${mb(summary.bytes)} MB exported`,
      },
    ];
  } finally {
    await testApp.close();
  }
}

// `npx tsx bench/archive-export.bench.ts` runs this bench alone.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  printTable(await archiveExportBench());
