// A RequestThread running one of our modules. When the service runs from its sources (tests, `npm run dev`) the
// entry is TypeScript and the thread registers tsx's loader itself (resolved here, not from the working directory),
// as a thread does not inherit the loader of the thread that starts it; the build runs the compiled entry and needs
// no tsx. Used by the XML thread (xml-checks/xml-thread.ts) and the archive's check threads.
import { Worker } from 'node:worker_threads';
import { RequestThread } from './request-thread.js';

const fromSources = import.meta.url.endsWith('.ts');
const tsxApiUrl = fromSources ? import.meta.resolve('tsx/esm/api') : undefined;
const shim = `const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsxApiUrl !== undefined) (await import(workerData.tsxApiUrl)).register();
  await import(workerData.entryUrl);
})();`;

export interface ModuleThreadOptions {
  /** The entry module, next to the caller: `new URL('./x-entry', import.meta.url)`, without its extension. */
  entry: URL;
  /** Says which thread in the error of one that died. */
  name: string;
  heapMegabytes: number;
  deadlineMs: number;
  /** More for the entry, read from `workerData`. */
  data?: Record<string, unknown>;
}

export function startModuleThread(options: ModuleThreadOptions): RequestThread {
  const entryUrl = `${options.entry.href}${fromSources ? '.ts' : '.js'}`;
  return new RequestThread(
    () =>
      new Worker(shim, {
        eval: true,
        workerData: { ...options.data, entryUrl, tsxApiUrl },
        resourceLimits: { maxOldGenerationSizeMb: options.heapMegabytes },
      }),
    { name: options.name, deadlineMs: options.deadlineMs },
  );
}
