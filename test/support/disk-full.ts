// A disk filling up under one directory, for code that writes through Node's synchronous fs calls in this process:
// PGlite does (Emscripten's NODEFS calls fs.writeSync and the gateway reads fs.statfsSync). Mounting a small
// filesystem needs privileges the tests do not have (issue 43), so the fault is injected at those calls, answering
// as the kernel would.
import fs from 'node:fs';
import { resolve } from 'node:path';

export interface DiskFull {
  /** statfs says only `freeBytes` are free; writes still go through (what is left is the room they use). */
  lowOnSpace(freeBytes: number): void;
  /** Every write to a file under the directory fails with ENOSPC; statfs is not told (the space went at once,
   * between a reading and a write). */
  fill(): void;
  /** Room again. */
  free(): void;
  /** The writes that failed so far. */
  readonly refused: number;
  /** Puts fs.writeSync and fs.statfsSync back. */
  restore(): void;
}

export function injectDiskFull(dir: string): DiskFull {
  const root = `${resolve(dir)}/`;
  const writeSync = fs.writeSync;
  const statfsSync = fs.statfsSync;
  let full = false;
  let freeBytes: number | undefined;
  let refused = 0;
  // The descriptor's path is read from /proc at the write, so descriptors opened before the injection (PGlite keeps
  // its data files open) and numbers reused by other files are told apart.
  const under = (fd: number) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${String(fd)}`).startsWith(root);
    } catch {
      return false;
    }
  };
  fs.writeSync = function (this: unknown, fd: number, ...rest: unknown[]) {
    if (full && under(fd)) {
      refused++;
      throw Object.assign(new Error(`ENOSPC: no space left on device, write`), {
        code: 'ENOSPC',
        errno: -28,
        syscall: 'write',
      });
    }
    return (writeSync as (...args: unknown[]) => number).call(this, fd, ...rest);
  };
  fs.statfsSync = function (this: unknown, path: fs.PathLike) {
    const stats = statfsSync.call(this, path);
    if (freeBytes === undefined || !`${resolve(String(path))}/`.startsWith(root)) return stats;
    stats.bfree = stats.bavail = Math.floor(freeBytes / Number(stats.bsize));
    return stats;
  } as typeof fs.statfsSync;
  return {
    lowOnSpace(bytes) {
      freeBytes = bytes;
    },
    fill() {
      full = true;
    },
    free() {
      full = false;
      freeBytes = undefined;
    },
    get refused() {
      return refused;
    },
    restore() {
      fs.writeSync = writeSync;
      fs.statfsSync = statfsSync;
    },
  };
}
