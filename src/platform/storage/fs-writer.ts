// Durable file writes on worker threads. A durable write-once blob is eight system calls (mkdir, open, write, fsync,
// close, and the directory's open, fsync, close); through node:fs each one is a separate trip to libuv's thread pool
// whose dispatch and completion cost the event loop more than the call itself on a virtualised host (measured:
// about 15 % of the event loop at 300 documents/s). Here the blobs written together travel to a writer thread as one
// message, and that thread makes the calls synchronously, then answers once.
import { Worker } from 'node:worker_threads';
import { groupCommit } from '../group-commit.js';
import { RequestThread } from '../threads/request-thread.js';

export interface FileWrite {
  path: string;
  bytes: Uint8Array;
  /** `in-place`: open the final name with O_EXCL (the caller guarantees nobody reads it yet); `link`: write a
   * temporary name, then link(2) it to the final name, so a reader never sees a partial file. */
  mode: 'in-place' | 'link';
}

/** `exists`: the final name was already there (nothing was written); `failed`: the error's code and message. */
export type WriteOutcome =
  { outcome: 'written' } | { outcome: 'exists' } | { outcome: 'failed'; code: string | undefined; message: string };

/**
 * The writer thread's program, as JavaScript source: it must start the same way from the compiled build and under
 * the test runner's TypeScript loader, which worker threads do not inherit. It creates each directory once, writes
 * each file and makes its data durable (mode 0444: archived files are read-only), and fsyncs each directory that
 * gained an entry (a file's, and the parent of each directory it made). fdatasync, not fsync, for the files: it
 * flushes the metadata their data needs (size, blocks) and not their times, which saved a tenth of a small blob's
 * write on this project's reference machine (ext4: 36-38 against 41-42 µs of CPU).
 */
const writerSource = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

// Failing to remove is not a second failure to report: the write's own error says what went wrong.
function removeQuietly(file) {
  try { fs.unlinkSync(file); } catch {}
}

function writeFile(file, bytes) {
  const fd = fs.openSync(file, 'wx', 0o444);
  try {
    try {
      let offset = 0;
      while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    // A write cut short (a full disk) leaves nothing under the name: a partial file is a blob no record names,
    // which the archive verifier would report.
    removeQuietly(file);
    throw error;
  }
}

function failed(error) {
  return { outcome: 'failed', code: error.code, message: String(error.message) };
}

function write(request) {
  if (request.mode === 'in-place') return writeFile(request.path, request.bytes);
  // '~' is not allowed in keys, so a temporary name never collides with a blob.
  const temp = request.path + '.~' + crypto.randomUUID();
  try {
    writeFile(temp, request.bytes);
    fs.linkSync(temp, request.path);
  } finally {
    try { fs.unlinkSync(temp); } catch (error) { if (error.code !== 'ENOENT') throw error; }
  }
}

parentPort.on('message', (batch) => {
  const created = new Set();
  const touched = new Set();
  const outcomes = batch.writes.map((request) => {
    const dir = path.dirname(request.path);
    try {
      if (!created.has(dir)) {
        const first = fs.mkdirSync(dir, { recursive: true });
        created.add(dir);
        // A new directory's entry is durable once its parent is fsynced: each parent that gained one is.
        if (first !== undefined) {
          for (let made = dir; ; made = path.dirname(made)) {
            touched.add(path.dirname(made));
            if (made === first || path.dirname(made) === made) break;
          }
        }
      }
    } catch (error) {
      // EEXIST here means a file stands where a directory should: a failure, not an existing blob.
      return failed(error);
    }
    try {
      write(request);
      touched.add(dir);
      return { outcome: 'written' };
    } catch (error) {
      if (error.code === 'EEXIST') return { outcome: 'exists' };
      return failed(error);
    }
  });
  for (const dir of touched) {
    if (process.platform === 'win32') break;
    try {
      const fd = fs.openSync(dir, 'r');
      try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
    } catch (error) {
      batch.writes.forEach((request, i) => {
        if (!request.path.startsWith(dir + path.sep) || outcomes[i].outcome !== 'written') return;
        outcomes[i] = failed(error);
        // Its caller records nothing, so a fresh name's file would be an orphan. A linked name stays: a writer of
        // the same bytes may already have found it there and recorded it, and a retry finds it too.
        if (request.mode === 'in-place') removeQuietly(request.path);
      });
    }
  }
  parentPort.postMessage({ id: batch.id, result: outcomes });
});
`;

/**
 * For tests only (failNextWrites): appended to the writer's program, it makes the next writes fail as a full disk
 * does, part of the bytes written and then write(2) refusing with ENOSPC. The count sits in shared memory the test
 * sets; a writer no test asked for faults runs the program without this, so a service's writes carry no check.
 */
const fullDiskSource = `
const faults = new Int32Array(require('node:worker_threads').workerData.faults);
const { constants } = require('node:os');
const realWriteSync = fs.writeSync;
function takeFault() {
  for (;;) {
    const left = Atomics.load(faults, 0);
    if (left <= 0) return false;
    if (Atomics.compareExchange(faults, 0, left, left - 1) === left) return true;
  }
}
fs.writeSync = function (fd, buffer, offset, length, position) {
  if (!takeFault()) return realWriteSync.apply(fs, arguments);
  realWriteSync.call(fs, fd, buffer, offset, Math.floor(length / 2), position);
  throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
    errno: -constants.errno.ENOSPC, code: 'ENOSPC', syscall: 'write',
  });
};
`;

/**
 * Writes files durably on `threads` writer threads, as a group commit (platform/group-commit.ts): the writes asked
 * for in one tick go together, and those asked for while every thread is busy wait and go together to the first
 * that frees, sharing its message and its directory fsyncs (a company's artefacts of a day share a directory)
 * instead of each queueing a batch of its own behind it. Measured on the receiver at saturation: 2 files a batch
 * before, about 6 after, and the app's CPU per e-CF down by a fifth. More than one thread keeps a slow disk's fsyncs
 * from queueing behind each other.
 */
export function createFsWriter(threads = 2) {
  let faults: Int32Array | undefined;
  const spawn = () =>
    faults === undefined
      ? new Worker(writerSource, { eval: true })
      : new Worker(writerSource + fullDiskSource, { eval: true, workerData: { faults: faults.buffer } });
  const writers = Array.from({ length: threads }, () => new RequestThread(spawn, { name: 'file writer' }));
  // At most `threads` batches run at once, so one thread is free whenever a batch starts.
  const write = groupCommit(
    (writes: FileWrite[]) => {
      const writer = writers.reduce((least, candidate) => (candidate.pending < least.pending ? candidate : least));
      return writer.request({ writes }) as Promise<WriteOutcome[]>;
    },
    { parallel: threads, gatherTick: true },
  );

  return {
    write: (request: FileWrite): Promise<WriteOutcome> => write(request),
    /**
     * For tests only: the next `count` file writes fail with ENOSPC after part of their bytes landed, as on a full
     * disk (0 ends the fault). The first call stops the threads, so call it while no write is in flight; the
     * threads started after it run the program with fullDiskSource.
     */
    async failNextWrites(count: number): Promise<void> {
      if (faults === undefined) {
        faults = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
        await Promise.all(writers.map((writer) => writer.stop()));
      }
      Atomics.store(faults, 0, count);
    },
    async close(): Promise<void> {
      await Promise.all(writers.map((writer) => writer.stop()));
    },
  };
}
