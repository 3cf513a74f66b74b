// What polling for DGII's verdicts costs when DGII decides a few seconds after reception, as it does for most
// documents: consultaresultado asked per document, and how long a document waits in_process. The world is the
// sending bench's (the sandbox in a process of its own, the app in this one), warmed with a run at no delay first.
import { pathToFileURL } from 'node:url';
import { describePolls, throughPipeline } from './support/pipeline-run.js';
import { createDocuments, sendingEmbedded, startWorld } from './support/sending-world.js';
import { latencies, ms } from './support/statistics.js';
import { printTable, type BenchRow } from './support/table.js';

const PROCESSING_DELAY_MS = 3_000;
const DOCUMENTS = 200;
const WARM_UP_DOCUMENTS = 200;

export async function pollingBench(): Promise<BenchRow[]> {
  const embedded = await sendingEmbedded();
  const world = await startWorld(embedded);
  try {
    const warmUp = await createDocuments(world, WARM_UP_DOCUMENTS);
    const documents = await createDocuments(world, DOCUMENTS);
    // JIT, connection pools, the DGII token.
    await throughPipeline(world, warmUp, 60_000);
    await world.processingDelay(PROCESSING_DELAY_MS);
    const polling = await throughPipeline(world, documents, 120_000);
    return [
      {
        benchmark: `polling cost, DGII deciding ${ms(PROCESSING_DELAY_MS)} after reception (${embedded ? 'PGlite' : 'PostgreSQL'})`,
        result: describePolls(polling.polls),
        note: `${String(DOCUMENTS)} documents; in_process → final ${latencies(polling.pollStage)}; ${JSON.stringify(polling.statuses)}`,
      },
    ];
  } finally {
    await world.close();
  }
}

// `npx tsx bench/polling.bench.ts` runs this bench alone.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  printTable(await pollingBench());
