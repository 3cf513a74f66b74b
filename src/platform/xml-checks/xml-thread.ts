// The thread that reads large XML documents for xml-checks.ts (platform/threads/request-thread.ts: started on first
// use and again after it dies). One is enough: it runs beside the event loop on the second core, and documents this
// large are rare (a busy receiver gets 5-30 KB e-CF). Its JavaScript heap is capped, so a document that would need
// more stops the thread, not the process (libxml2's WebAssembly memory and buffers are outside that cap).
import type { RequestThread } from '../threads/request-thread.js';
import { startModuleThread } from '../threads/module-thread.js';

export type XmlTask = 'readReceivedEcf' | 'checkSignedEcf' | 'readSignedEcf';

/** The thread's heap: a 5 MB document of 1.3 million elements needs a few hundred MB as a DOM. */
const heapMegabytes = 1_024;
/**
 * The longest one document may take: the worst the screen admits within 5 MB takes 2-4 s on the 2-core reference
 * machine (bench/hostile-xml.bench.ts); past 30 s something is wrong, and the documents queued behind it go on.
 */
const deadlineMs = 30_000;

export function startXmlThread(xsdDir: string | undefined): RequestThread {
  return startModuleThread({
    entry: new URL('./xml-thread-entry', import.meta.url),
    name: 'XML',
    heapMegabytes,
    deadlineMs,
    data: { xsdDir },
  });
}
