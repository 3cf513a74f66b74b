// How the embedded database starts: its memory settings, and a new data directory's cluster made on a thread of
// its own. Measured on `npm start` (issue 47, bench/footprint.bench.ts): PGlite's WebAssembly memory is most of the
// process's RSS, and two things fill it that the embedded service does not need.
import { once } from 'node:events';
import fs from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/**
 * PostgreSQL's shared buffers live inside PGlite's WebAssembly memory, and initdb's 128 MB are touched as the
 * server starts: 247 MB of RSS to open the quick start's database, 138 MB with 32 MB of buffers. PGlite is one
 * session in one process and reads its files through the OS page cache, so a small pool costs page-cache reads,
 * not disk ones. Given on every start (not written to postgresql.conf), so existing data directories get it too.
 */
export const pgliteStartParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

const initdbSource = `const { workerData } = require('node:worker_threads');
(async () => {
  const { PGlite } = await import(workerData.pgliteUrl);
  const pglite = await PGlite.create(workerData.dataDir, { startParams: workerData.startParams });
  await pglite.close();
})();`;

/**
 * Makes the cluster of a new data directory on a thread that then ends. PGlite's initdb runs in a second PGlite and
 * a third WebAssembly module, whose memories (about 500 MB of RSS) the main thread's collector did not give back
 * even after a forced full collection; a thread's ending frees them. An existing cluster is left as it is.
 */
export async function createClusterOffThread(dataDir: string): Promise<void> {
  if (fs.existsSync(join(dataDir, 'PG_VERSION'))) return;
  const thread = new Worker(initdbSource, {
    eval: true,
    workerData: { pgliteUrl: import.meta.resolve('@electric-sql/pglite'), dataDir, startParams: pgliteStartParams },
  });
  // once() rejects with the thread's error, if it throws one.
  const [code] = (await once(thread, 'exit')) as [number];
  if (code !== 0) throw new Error(`creating the embedded database's cluster ended with exit code ${String(code)}`);
}
