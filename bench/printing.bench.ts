// Measured here: the printed representation (RI) as PDF (src/modules/printing: layout, pdfkit, vector QR, DejaVu).
// Goals on the 2-core reference machine: >= 100 PDFs/s on one core for a one-page A4 type 31 (3 lines) and for an
// 80 mm roll with 10 lines, >= 20/s for A4 with 200 lines, cost linear in lines (the cost per line at 200 lines within
// 1.5x of that at 50), <= 100 KB for 200 lines, and GET …/impresion (Accept: application/pdf) with p99 <= 30 ms at a
// steady 20 requests/s through HTTP.
// The anchor is the peer style, measured in the same rounds as every render: the same pdfkit and fonts, the QR a PNG
// from qrcode (toBuffer's) drawn as an image, text set with pdfkit's own layout. It is a measuring stick, kept here.
// Cold renders: the printer keeps the last 256 PDFs by their input, so one printer renders a pool of distinct
// documents in turn (variants of printableInvoice: each its own e-NCF, amounts and so QR), built before the rounds
// so that building them is not timed. Each pool is longer than the printer's cache, so even a pool that wraps round
// misses it; what a second pass would find is its amounts' words already shaped (fonts.ts keeps shapes per process),
// and the pools are sized to take several times the goals' rates without wrapping. The other way to miss the cache,
// the same document through a fresh printer each time (its words all shaped already), is measured beside the one-page
// A4 in the same rounds.
// The route runs on the embedded back ends (PGlite in this process, blobs on the filesystem): a PDF needs two indexed
// reads and one blob, which PostgreSQL is not needed for. BENCH_PRINTING_PROFILE=<file> writes a CPU profile of the
// route's steady run.
import { pathToFileURL } from 'node:url';
import type { Font } from 'fontkit';
import PDFDocument from 'pdfkit';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { createLogger } from '../src/platform/observability/logger.js';
import type { PaperFormat, PrintableDocument } from '../src/modules/printing/index.js';
import { createPrinter } from '../src/modules/printing/printer.js';
import { fonts } from '../src/modules/printing/fonts.js';
import { printableInvoice } from '../test/support/printable-documents.js';
import { startTestApp } from '../test/support/test-app.js';
import { invoiceWithLines, provision } from './documents.bench.js';
import { deployed } from './support/deployed.js';
import { runLoad } from './support/load.js';
import { ownUsage } from './support/process-cpu.js';
import { profiled } from './support/profile.js';
import { inRounds, ratios, type Operation, type Rounds } from './support/rate.js';
import { median, ms, spread } from './support/statistics.js';
import { printTable, verdict, type BenchRow } from './support/table.js';

const ROUND_SECONDS = 0.4;
const ONE_PAGE_GOAL = 100;
const ROLL_GOAL = 100;
const LONG_GOAL = 20;
const PER_LINE_GOAL = 1.5;
const LONG_BYTES_GOAL = 100 * 1024;
const ROUTE_RATE = 20;
const ROUTE_SECONDS = 5;
const ROUTE_WARM_UP_SECONDS = 1;
const ROUTE_P99_GOAL_MS = 30;

const noBranding = { logoPng: null, logoSha256: null, footerNote: null };

/** Variants 1…count of printableInvoice with `lines` lines: distinct documents, built now. */
function pool(lines: number, count: number): PrintableDocument[] {
  return Array.from({ length: count }, (_, index) => printableInvoice({ lines, variant: index + 1 }));
}

/** An operation that hands `use` the next document of `documents`, round and round. */
function cycling(documents: readonly PrintableDocument[], use: (document: PrintableDocument) => unknown): Operation {
  let next = 0;
  return () => use(documents[next++ % documents.length] as PrintableDocument);
}

// --- The peer style: pdfkit with the QR as a PNG image ---

const PEER_QR_PIXELS = 260;

/**
 * qrcode's toBuffer(url, { errorCorrectionLevel: 'M', margin: 1, width: 260 }) without its asynchronous pack(): the
 * same QRCode.create, the same pixels (qrcode's qrToImageData: RGBA, black on white), pngjs's same default encoder
 * (deflate level 9, every filter tried) through PNG.sync.write. printingBench checks the pixels against toBuffer's.
 */
function peerQrPng(url: string): Buffer {
  const { size, data } = QRCode.create(url, { errorCorrectionLevel: 'M' }).modules;
  const margin = 1;
  const scale = PEER_QR_PIXELS / (size + margin * 2);
  const width = Math.floor((size + margin * 2) * scale);
  const edge = margin * scale;
  const png = new PNG({ width, height: width });
  for (let i = 0; i < width; i++)
    for (let j = 0; j < width; j++) {
      const inside = i >= edge && j >= edge && i < width - edge && j < width - edge;
      const dark = inside && data[Math.floor((i - edge) / scale) * size + Math.floor((j - edge) / scale)] === 1;
      png.data.writeUInt32BE(dark ? 0x000000ff : 0xffffffff, (i * width + j) * 4);
    }
  return PNG.sync.write(png);
}

// @types/pdfkit has no fontkit Font as a font source and no `font: null`, which pdfkit takes (painter.ts).
interface PeerDocument extends Omit<PDFKit.PDFDocument, 'font'> {
  font(src: Font, family: string, size: number): this;
}
type PeerOptions = Omit<PDFKit.PDFDocumentOptions, 'font'> & { font: null };
const peerDocument = () =>
  new (PDFDocument as unknown as new (options: PeerOptions) => PeerDocument)({ size: 'A4', margin: 0, font: null });

/**
 * A one-page A4 RI the way pdfkit is usually driven: text through pdfkit's layout (widths, alignment, words shaped
 * per document), the QR a PNG image. It is handed the same parsed fonts (no TTF parsing per PDF, which would flatter
 * ours) and no Helvetica. pdfkit inflates a PNG with an alpha channel through zlib's callback API, so the PDF is
 * only complete once that callback has run: the peer is asynchronous, and its rounds await each PDF before the next.
 */
function peerPdf(printable: PrintableDocument): Promise<Buffer> {
  const qr = peerQrPng(printable.qr.url);
  const { regular, bold } = fonts();
  const document = peerDocument();
  const chunks: Buffer[] = [];
  document.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) => {
    document.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
  });
  const { issuer, buyer } = printable;
  const [left, right, middle] = [57, 553, 330];
  document.font(bold, 'bold', 11);
  document.text(issuer.tradeName ?? issuer.legalName, left, 34);
  document.text(printable.typeName, middle, 34, { width: right - middle, align: 'right' });
  document.text(`e-NCF: ${printable.eNCF}`, middle, 52, { width: right - middle, align: 'right' });
  document.font(regular, 'regular', 8.5);
  document.text(`Fecha Vencimiento: ${printable.sequenceExpiry ?? ''}`, middle, 66, {
    width: right - middle,
    align: 'right',
  });
  let y = 52;
  for (const text of [
    issuer.legalName,
    `RNC ${issuer.rnc}`,
    `Dirección: ${issuer.address ?? ''}`,
    `${issuer.municipality?.name ?? ''}, ${issuer.province?.name ?? ''}`,
    `Fecha Emisión: ${printable.issueDate}`,
    `Razón Social Cliente: ${buyer?.legalName ?? ''}`,
    `RNC Cliente: ${buyer?.rnc ?? ''}`,
  ]) {
    document.text(text, left, y);
    y += 12;
  }
  y += 10;
  const columns = [
    [left, 38, 'right'],
    [102, 223, 'left'],
    [330, 60, 'left'],
    [395, 50, 'right'],
    [450, 45, 'right'],
    [500, 53, 'right'],
  ] as const;
  const row = (cells: readonly string[]) => {
    columns.forEach(([x, width, align], index) => document.text(cells[index] ?? '', x, y, { width, align }));
    y += 12;
  };
  row(['Cantidad', 'Descripción', 'Unidad de Medida', 'Precio', 'ITBIS', 'Valor']);
  document.moveTo(left, y).lineTo(right, y).lineWidth(0.6).stroke();
  y += 4;
  for (const line of printable.lines)
    row([line.quantity, line.name, line.unit?.name ?? '', line.unitPrice, line.itbis ?? '', line.amount]);
  y += 20;
  document.image(qr, left, y, { width: 81 });
  document.text(`Código de Seguridad: ${printable.securityCode}`, left, y + 86);
  document.text(`Fecha de Firma Digital: ${printable.signatureDate}`, left, y + 98);
  for (const total of printable.totalLines) {
    document.text(`${total.label}:`, 380, y, { width: 110, align: 'right' });
    document.text(total.amount, 495, y, { width: 58, align: 'right' });
    y += 12;
  }
  document.end();
  return done;
}

// --- What the rows say ---

const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const range = (values: readonly number[], digits: number, unit = '') => {
  const { low, high } = spread(values);
  return `${low.toFixed(digits)}–${high.toFixed(digits)}${unit}`;
};
const perSecond = (measured: Rounds) =>
  `${median(measured.rates).toFixed(0)} PDFs/s (rounds ${range(measured.rates, 0)})`;
const cpuPerPdf = (measured: Rounds) => ms(median(measured.cpuMs));

async function renderRows(): Promise<BenchRow[]> {
  const log = createLogger('error');
  const printer = createPrinter({ log });
  const render = (format: PaperFormat) => (printable: PrintableDocument) => {
    const rendered = printer.render({ printable, format, branding: noBranding });
    if (!rendered.ok) throw new Error(`the bench document does not render: ${rendered.failure.detail}`);
    return rendered.value;
  };
  const a4 = render('a4');

  // The measuring stick must be toBuffer's QR: the same pixels.
  const sample = printableInvoice();
  const fromToBuffer = PNG.sync.read(
    await QRCode.toBuffer(sample.qr.url, { errorCorrectionLevel: 'M', margin: 1, width: PEER_QR_PIXELS }),
  );
  if (!PNG.sync.read(peerQrPng(sample.qr.url)).data.equals(fromToBuffer.data))
    throw new Error("the peer's synchronous QR PNG differs from qrcode.toBuffer's");

  const byLines = { 3: pool(3, 2048), 50: pool(50, 1024), 100: pool(100, 512), 200: pool(200, 512) };
  const measured = await inRounds(
    {
      a4: cycling(byLines[3], a4),
      freshPrinter: () => createPrinter({ log }).render({ printable: sample, format: 'a4', branding: noBranding }),
      peer: cycling(byLines[3], peerPdf),
      roll: cycling(pool(10, 2048), render('80mm')),
      a4With50: cycling(byLines[50], a4),
      a4With100: cycling(byLines[100], a4),
      a4With200: cycling(byLines[200], a4),
    },
    { seconds: ROUND_SECONDS },
  );

  const onePage = a4(sample);
  const long = a4(printableInvoice({ lines: 200 }));
  const peerBytes = (await peerPdf(sample)).length;
  const rate = (rounds: Rounds) => median(rounds.rates);
  const againstPeer = ratios(measured.a4, measured.peer);

  // Milliseconds a render in each round; the cost per line is what the lines past the 3-line page add, each.
  const msOf = (rounds: Rounds) => rounds.rates.map((perSecond) => 1_000 / perSecond);
  const perLine = (rounds: Rounds, lines: number) =>
    msOf(rounds).map((each, round) => (each - (msOf(measured.a4)[round] ?? Number.NaN)) / (lines - 3));
  const perLine50 = perLine(measured.a4With50, 50);
  const perLine100 = perLine(measured.a4With100, 100);
  const perLine200 = perLine(measured.a4With200, 200);
  const growth = perLine200.map((cost, round) => cost / (perLine50[round] ?? Number.NaN));
  const pagesOf = (lines: 50 | 100 | 200) => a4(printableInvoice({ lines })).pages;

  return [
    {
      benchmark: `RI PDF, A4, 31 with 3 lines (${onePage.pages} page), cold`,
      result: perSecond(measured.a4),
      note:
        `goal >= ${ONE_PAGE_GOAL}/s on one core: ${verdict(rate(measured.a4) >= ONE_PAGE_GOAL)}; CPU per PDF ${cpuPerPdf(measured.a4)}; ` +
        `one document through a fresh printer each time: ${perSecond(measured.freshPrinter)}`,
    },
    {
      benchmark: 'RI PDF, 80 mm roll, 10 lines, cold',
      result: perSecond(measured.roll),
      note: `goal >= ${ROLL_GOAL}/s: ${verdict(rate(measured.roll) >= ROLL_GOAL)}; CPU per PDF ${cpuPerPdf(measured.roll)}`,
    },
    {
      benchmark: `RI PDF, A4, 200 lines (${long.pages} pages), cold`,
      result: perSecond(measured.a4With200),
      note: `goal >= ${LONG_GOAL}/s: ${verdict(rate(measured.a4With200) >= LONG_GOAL)}; CPU per PDF ${cpuPerPdf(measured.a4With200)}`,
    },
    {
      benchmark: 'RI PDF cost against lines, A4',
      result: ([50, 100, 200] as const)
        .map((lines) => `${lines} lines (${pagesOf(lines)} p.) ${ms(median(msOf(measured[`a4With${lines}`])))}`)
        .join(', '),
      note:
        `per line past the 3-line page: ${ms(median(perLine50), 3)} at 50, ${ms(median(perLine100), 3)} at 100, ${ms(median(perLine200), 3)} at 200; ` +
        `200 vs 50 ${median(growth).toFixed(2)}x (rounds ${range(growth, 2)}); goal <= ${PER_LINE_GOAL}x: ${verdict(median(growth) <= PER_LINE_GOAL)}`,
    },
    {
      benchmark: 'peer style: pdfkit, QR as qrcode PNG image, A4 3 lines',
      result: perSecond(measured.peer),
      note:
        `the anchor, in the same rounds: ours ${median(againstPeer).toFixed(2)}x it (rounds ${range(againstPeer, 2)}); ` +
        `CPU per PDF (all threads) ${cpuPerPdf(measured.peer)} against ours ${cpuPerPdf(measured.a4)}`,
    },
    {
      benchmark: 'RI PDF size, A4: 3 lines / 200 lines',
      result: `${kilobytes(onePage.bytes.length)} / ${kilobytes(long.bytes.length)}`,
      note: `goal <= ${kilobytes(LONG_BYTES_GOAL)} at 200 lines: ${verdict(long.bytes.length <= LONG_BYTES_GOAL)}; peer style, 3 lines: ${kilobytes(peerBytes)}`,
    },
  ];
}

/**
 * GET …/impresion as PDF at a steady rate through HTTP, each request for a document not printed before (so the
 * printer's cache answers none of them): the app listens in this process, the load comes from another.
 */
async function routeRow(): Promise<BenchRow> {
  const testApp = await startTestApp({ embedded: true, ...deployed() });
  try {
    const apiKey = await provision(testApp, ['documents:read']);
    const warmUps = ROUTE_RATE * ROUTE_WARM_UP_SECONDS;
    const measuredCount = ROUTE_RATE * ROUTE_SECONDS;
    const body = invoiceWithLines(3);
    const ids: string[] = [];
    for (let i = 0; i < warmUps + measuredCount + 20; i++) {
      const created = await testApp.app.inject({
        method: 'POST',
        url: '/api/v1/documentos',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        payload: body,
      });
      if (created.statusCode !== 201) throw new Error(`bench document refused: ${created.statusCode} ${created.body}`);
      ids.push(created.json<{ data: { id: string } }>().data.id);
    }
    const address = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    const urls = ids.map((id) => `${address}/api/v1/documentos/${id}/impresion`);
    const paced = (targets: string[], seconds: number) =>
      runLoad({
        url: targets[0] ?? address,
        urls: targets,
        method: 'GET',
        headers: { 'x-api-key': apiKey, accept: 'application/pdf' },
        bodies: [''],
        expectStatus: 200,
        seconds,
        mode: { rate: ROUTE_RATE },
      });
    // The route's own path (HTTP, the database, the archive, the XML reader) warmed on documents of its own.
    await paced(urls.slice(0, warmUps), ROUTE_WARM_UP_SECONDS);
    const since = ownUsage();
    const steady = await profiled('BENCH_PRINTING_PROFILE', () => paced(urls.slice(warmUps), ROUTE_SECONDS));
    const { cpuMs } = since();
    const { database, cache } = testApp.application;
    const incomplete = steady.failed + steady.unanswered > 0;
    const atLeast = steady.unanswered > 0 ? '>= ' : '';
    return {
      benchmark: `GET /documentos/:id/impresion (PDF, A4, 3 lines), steady ${ROUTE_RATE}/s, ${urls.length - warmUps} documents`,
      result: `p50 ${atLeast}${ms(steady.p50)}, p99 ${atLeast}${ms(steady.p99)}, max ${atLeast}${ms(steady.max)}`,
      note:
        `${database.kind}, cache ${cache.kind}, blobs ${testApp.config.storage.kind}; ${steady.sent} requests, app CPU per request ${ms(cpuMs / Math.max(1, steady.sent))}` +
        (incomplete
          ? `; ${steady.failed} failed, ${steady.unanswered} unanswered ${JSON.stringify(steady.statuses)}`
          : '') +
        `; goal p99 <= ${ROUTE_P99_GOAL_MS} ms: ${verdict(steady.p99 <= ROUTE_P99_GOAL_MS && !incomplete)}`,
    };
  } finally {
    await testApp.close();
  }
}

export async function printingBench(): Promise<BenchRow[]> {
  return [...(await renderRows()), await routeRow()];
}

// `npx tsx bench/printing.bench.ts` runs this bench alone.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  printTable(await printingBench());
