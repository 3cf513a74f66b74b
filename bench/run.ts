// `npm run bench`: every benchmark, one table. Targets live here, never in timed tests.
import { apiReferenceBench } from './api-reference.bench.js';
import { archiveExportBench } from './archive-export.bench.js';
import { archiveBench } from './archive.bench.js';
import { certificationBench } from './certification.bench.js';
import { claimsBench } from './claims.bench.js';
import { consoleBench } from './console.bench.js';
import { deliveryBench } from './delivery.bench.js';
import { documentsBench } from './documents.bench.js';
import { footprintBench } from './footprint.bench.js';
import { hostileXmlBench } from './hostile-xml.bench.js';
import { httpBench } from './http.bench.js';
import { pollingBench } from './polling.bench.js';
import { printingBench } from './printing.bench.js';
import { sendingBench } from './sending.bench.js';
import { signingBench } from './signing.bench.js';
import { taxpayersBench } from './taxpayers.bench.js';
import { receiverBench } from './receiver.bench.js';
import { printTable, type BenchRow } from './support/table.js';
import { webhooksBench } from './webhooks.bench.js';
import { xsdBench } from './xsd.bench.js';

// In the table's order. `npm run bench -- sending receiver` runs only the benchmarks named.
const benches: Record<string, () => Promise<BenchRow[]>> = {
  xsd: xsdBench,
  signing: signingBench,
  http: httpBench,
  documents: documentsBench,
  printing: printingBench,
  taxpayers: taxpayersBench,
  sending: sendingBench,
  polling: pollingBench,
  delivery: deliveryBench,
  receiver: receiverBench,
  'hostile-xml': hostileXmlBench,
  webhooks: webhooksBench,
  certification: certificationBench,
  claims: claimsBench,
  'archive-export': archiveExportBench,
  archive: archiveBench,
  console: consoleBench,
  footprint: footprintBench,
  'api-reference': apiReferenceBench,
};
const named = process.argv.slice(2);
const unknown = named.filter((name) => !(name in benches));
if (unknown.length > 0) {
  console.error(`no benchmark named ${unknown.join(', ')}; there are: ${Object.keys(benches).join(', ')}`);
  process.exit(2);
}
const rows: BenchRow[] = [];
for (const [name, bench] of Object.entries(benches)) {
  if (named.length === 0 || named.includes(name)) rows.push(...(await bench()));
}
printTable(rows);
