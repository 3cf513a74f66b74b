// What a bench runs the service with, passed to the test kits: the service as deployed, not as the tests share one
// server. The product's own pool of connections (the tests take 5 each), and files kept where `npm start` keeps
// them, under the project's data/, removed only when the process exits. Why the removal waits: on ext4, creating
// an inode skips each inode freed in about the last minute (the kernel's recently_deleted()), and an archive
// written next to the thousands of files a previous run had just removed paid about 1 ms of kernel CPU per blob for
// it (perf: recently_deleted, find_inode_bit), more than the rest of its write. That is the harness's clean-up, not
// the service, whose archive is kept for ten years and never mass-deleted.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { settings } from '../../src/config.js';

export const poolSize = settings.DATABASE_POOL_SIZE.default;

const dataRoot = fileURLToPath(new URL('../../data/bench', import.meta.url));
const removedAtExit = new Set<string>();

/** A fresh directory under data/bench, removed when this process exits. */
export function benchDataDir(): string {
  mkdirSync(dataRoot, { recursive: true });
  const dir = mkdtempSync(join(dataRoot, 'ecf-app-'));
  if (removedAtExit.size === 0) {
    process.once('exit', () => {
      for (const removed of removedAtExit) rmSync(removed, { recursive: true, force: true, maxRetries: 5 });
    });
  }
  removedAtExit.add(dir);
  return dir;
}

/** The options of startTestApp (or startSendingWorld) for one app of a bench. */
export function deployed(): { poolSize: number; dataDir: string } {
  return { poolSize, dataDir: benchDataDir() };
}
