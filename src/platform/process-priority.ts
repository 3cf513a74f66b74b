// Lowering a whole process's CPU priority. os.setPriority alone is not enough on Linux: there setpriority(2) with
// PRIO_PROCESS takes a thread id and changes that one thread, so the threads V8 started before the call (concurrent
// garbage collection, optimising compilation) would go on competing with the API at the default priority. Threads
// started later (libuv's pool, worker threads) inherit the priority of the thread that starts them.
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Sets the niceness (0 to 19) of every thread of process `pid` (this one by default). */
export function setProcessNice(nice: number, pid = process.pid): void {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${String(pid)}/task`);
  } catch {
    setPriority(pid, nice); // no /proc (macOS, BSD): there setpriority(2) changes the whole process
    return;
  }
  for (const thread of threads) {
    try {
      setPriority(Number(thread), nice);
    } catch {
      // the thread ended meanwhile
    }
  }
}
