// `npm run bench`: every benchmark, one table. Targets live here, never in timed tests.
import { archiveExportBench } from './archive-export.bench.js';
import { archiveBench } from './archive.bench.js';
import { certificationBench } from './certification.bench.js';
import { claimsBench } from './claims.bench.js';
import { deliveryBench } from './delivery.bench.js';
import { documentsBench } from './documents.bench.js';
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

const rows: BenchRow[] = [
  ...(await xsdBench()),
  ...(await signingBench()),
  ...(await httpBench()),
  ...(await documentsBench()),
  ...(await printingBench()),
  ...(await taxpayersBench()),
  ...(await sendingBench()),
  ...(await pollingBench()),
  ...(await deliveryBench()),
  ...(await receiverBench()),
  ...(await hostileXmlBench()),
  ...(await webhooksBench()),
  ...(await certificationBench()),
  ...(await claimsBench()),
  ...(await archiveExportBench()),
  ...(await archiveBench()),
];
printTable(rows);
