// The archive verifier's check threads (platform/threads/request-thread.ts: started on first use and again after
// one dies; idle, they keep nothing alive). On the filesystem a thread takes a batch of a slice's artefacts and
// does all of each one's check there: the read (synchronous: on its own thread it blocks nothing, and it costs a
// third of the CPU of the event loop's four thread-pool trips per file), the SHA-256 and, for signed XML, the
// signature and the reading (artefact-check.ts). Only the verdicts come back.
import type { RequestThread } from '../../platform/threads/request-thread.js';
import { startModuleThread } from '../../platform/threads/module-thread.js';
import type { Failure } from './artefact-check.js';
import type { ArchivedArtefact } from './inventory.repo.js';

export interface CheckItem {
  artefact: ArchivedArtefact;
  path: string;
}

/** The content check of one item: its failure, if any, and the bytes read. */
export interface CheckedItem {
  failure: Failure | undefined;
  bytes: number;
}

/** As the XML thread's (platform/xml-checks/xml-thread.ts): a 5 MB signed e-CF needs a few hundred MB as a DOM. */
const heapMegabytes = 1_024;
/** A batch is a few dozen artefacts; past this something is wrong, and the batches queued behind it go on. */
const deadlineMs = 60_000;

export function startCheckThread(): RequestThread {
  return startModuleThread({
    entry: new URL('./check-thread-entry', import.meta.url),
    name: 'archive check',
    heapMegabytes,
    deadlineMs,
  });
}

/** Checks `items` on `thread`; their results in the same order. */
export async function checkOnThread(thread: RequestThread, items: readonly CheckItem[]): Promise<CheckedItem[]> {
  return (await thread.request({ items })) as CheckedItem[];
}
