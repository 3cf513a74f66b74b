// The thread that reads large XML documents for xml-checks.ts (platform/threads/request-thread.ts: started on first
// use and again after it dies). One is enough: it runs beside the event loop on the second core, and documents this
// large are rare (a busy receiver gets 5-30 KB e-CF). Its JavaScript heap is capped, so a document that would need
// more stops the thread, not the process (libxml2's WebAssembly memory and buffers are outside that cap).
import { Worker } from 'node:worker_threads';
import { RequestThread } from '../threads/request-thread.js';

export type XmlTask = 'readReceivedEcf' | 'checkSignedEcf' | 'readSignedEcf';

/** The thread's heap: a 5 MB document of 1.3 million elements needs a few hundred MB as a DOM. */
const heapMegabytes = 1_024;
/**
 * The longest one document may take: the worst the screen admits within 5 MB takes 2-4 s on the 2-core reference
 * machine (bench/hostile-xml.bench.ts); past 30 s something is wrong, and the documents queued behind it go on.
 */
const deadlineMs = 30_000;

// The entry is TypeScript when the service runs from its sources (tests, `npm run dev`): the thread registers
// tsx's loader itself (resolved here, from this module, not from the working directory), as a thread does not
// inherit the loader of the thread that starts it. The build runs the compiled entry and needs no tsx.
const fromSources = import.meta.url.endsWith('.ts');
const entryUrl = new URL(`./xml-thread-entry${fromSources ? '.ts' : '.js'}`, import.meta.url).href;
const tsxApiUrl = fromSources ? import.meta.resolve('tsx/esm/api') : undefined;
const shim = `const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsxApiUrl !== undefined) (await import(workerData.tsxApiUrl)).register();
  await import(workerData.entryUrl);
})();`;

export function startXmlThread(xsdDir: string | undefined): RequestThread {
  return new RequestThread(
    () =>
      new Worker(shim, {
        eval: true,
        workerData: { entryUrl, tsxApiUrl, xsdDir },
        resourceLimits: { maxOldGenerationSizeMb: heapMegabytes },
      }),
    { name: 'XML', deadlineMs },
  );
}
