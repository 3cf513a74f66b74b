// The printed representation (RI) as PDF, checked with independent tools: one signed e-CF per DGII certification
// slot (31, 32 >= 250k, 32 < 250k, 33, 34, 41, 43, 44, 45, 46, 47) read back from its signed XML, rendered on A4
// and on an 80 mm roll; pdftotext finds DGII's blocks in order, zbarimg reads the exact timbre URL from every page
// rasterised at printer resolution, pdffonts finds every font embedded and pdfinfo the exact page size. Also a
// 200-line e-CF with Paginacion, text the font cannot fully show, and the same bytes from two processes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parseEcf } from '../src/fiscal/parse/index.js';
import type { EcfType } from '../src/fiscal/model/ecf-model-types.js';
import { readSignatureValue, securityCode } from '../src/fiscal/xmldsig/index.js';
import { createLogger } from '../src/platform/observability/logger.js';
import { printableOf, type PaperFormat, type PrintableDocument } from '../src/modules/printing/index.js';
import { linesPerPage } from '../src/modules/printing/layout.js';
import { createPrinter, type RenderedPdf } from '../src/modules/printing/printer.js';
import { childModule } from './support/node-program.js';
import { inPool, pdfTools, tool } from './support/pdf-tools.js';
import { skipUnlessTools } from './support/tools.js';
import { largeConsumerInvoice, signedEcf, type DocumentOptions } from './support/sandbox-documents.js';
import { issuerRnc } from './support/ecf-documents.js';
import { printableInvoice } from './support/printable-documents.js';

const printer = createPrinter({ log: createLogger('error') });
const noBranding = { logoPng: null, logoSha256: null, footerNote: null };

function printableFrom(type: EcfType, sequence: number, options: DocumentOptions = {}): PrintableDocument {
  const signed = signedEcf(type, sequence, options);
  const parsed = parseEcf(signed.xml);
  assert.ok(parsed.ok, 'the signed e-CF reads back');
  return printableOf(parsed.document, {
    id: `doc_${type}_${sequence}`,
    status: 'accepted',
    environment: 'CERT',
    securityCode: securityCode(readSignatureValue(signed.xml) ?? ''),
    acceptedByDgii: true,
    contingency: false,
  });
}

function rendered(printable: PrintableDocument, format: PaperFormat): RenderedPdf {
  const result = printer.render({ printable, format, branding: noBranding });
  assert.ok(result.ok, result.ok ? '' : result.failure.detail);
  return result.value;
}

/** 117000.00 → 117,000.00, as printed. */
function grouped(amount: string): string {
  const [whole = '', fraction] = amount.split('.');
  const digits = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return fraction === undefined ? digits : `${digits}.${fraction}`;
}
const collapsed = (text: string) => text.replace(/\s+/g, ' ');

/** Each item found after the one before it; `words` items only need their words in order (wrapped beside a column). */
function assertInOrder(text: string, items: readonly (string | { words: string })[], where: string): void {
  let position = 0;
  for (const item of items) {
    const parts = typeof item === 'string' ? [item] : item.words.split(' ');
    for (const part of parts) {
      const found = text.indexOf(part, position);
      assert.ok(found >= 0, `${where}: "${part}" after position ${position} in\n${text}`);
      position = found + part.length;
    }
  }
}

const slots: readonly { slot: string; type: EcfType; options?: DocumentOptions }[] = [
  { slot: '31', type: '31' },
  { slot: '32-ge-250k', type: '32', options: { change: largeConsumerInvoice } },
  { slot: '32-lt-250k', type: '32' },
  { slot: '33', type: '33' },
  { slot: '34', type: '34' },
  { slot: '41', type: '41' },
  { slot: '43', type: '43' },
  { slot: '44', type: '44' },
  { slot: '45', type: '45' },
  { slot: '46', type: '46' },
  { slot: '47', type: '47' },
];
const formats = ['a4', '80mm'] as const;

/** The QR read from every page, at 300 dpi on sheets (cropped to the bottom-left quarter) and 203 dpi on rolls. */
async function scannedPages(file: string, format: PaperFormat, dir: string): Promise<string[]> {
  const prefix = join(dir, `${format}-${createHash('sha1').update(file).digest('hex').slice(0, 8)}`);
  const crop = format === 'a4' ? ['-x', '0', '-y', '1754', '-W', '1240', '-H', '1754'] : [];
  await tool('pdftoppm', ['-r', format === 'a4' ? '300' : '203', ...crop, '-png', file, prefix]);
  const pngs = readdirSync(dir)
    .filter((name) => join(dir, name).startsWith(prefix) && name.endsWith('.png'))
    .sort()
    .map((name) => join(dir, name));
  return Promise.all(pngs.map(async (png) => (await tool('zbarimg', ['-q', '--raw', png])).replace(/\n$/, '')));
}

describe('printed representation (PDF)', { skip: skipUnlessTools(...pdfTools) }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ecf-ri-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints every certification slot on A4 and 80 mm with its blocks in order, a readable QR, embedded fonts', async () => {
    const cases = slots.flatMap(({ slot, type, options }, index) => {
      const printable = printableFrom(type, 100 + index, options);
      return formats.map((format) => {
        const pdf = rendered(printable, format);
        const file = join(dir, `${slot}-${format}.pdf`);
        writeFileSync(file, pdf.bytes);
        return { slot, type, format, printable, pdf, file };
      });
    });
    // What each slot must look like, from the XML: the fc URL for 32 under 250k, no RncComprador for 43 and 47.
    const bySlot = (slot: string) => cases.find((entry) => entry.slot === slot)!.printable;
    assert.match(
      bySlot('32-lt-250k').qr.url,
      /^https:\/\/fc\.dgii\.gov\.do\/certecf\/ConsultaTimbreFC\?RncEmisor=[^&]+&ENCF=[^&]+&MontoTotal=[^&]+&CodigoSeguridad=[^&]+$/,
    );
    assert.match(
      bySlot('32-ge-250k').qr.url,
      /^https:\/\/ecf\.dgii\.gov\.do\/certecf\/ConsultaTimbre\?.*RncComprador=/,
    );
    assert.equal(bySlot('32-lt-250k').totals['MontoTotal'], '1430.00', 'the default 32 fixture is under 250k');
    for (const slot of ['43', '47']) assert.doesNotMatch(bySlot(slot).qr.url, /RncComprador/);
    for (const slot of ['31', '33', '41', '43', '44', '45', '46', '47'])
      assert.notEqual(bySlot(slot).sequenceExpiry, null, `${slot} has a sequence expiry`);

    await inPool(
      2,
      cases.map((entry) => async () => {
        const { slot, format, printable, file } = entry;
        const where = `${slot} ${format}`;
        const [text, info, fonts, scanned] = await Promise.all([
          tool('pdftotext', ['-layout', file, '-']),
          tool('pdfinfo', [file]),
          tool('pdffonts', [file]),
          scannedPages(file, format, dir),
        ]);
        const roll = format !== 'a4';
        const flat = collapsed(text);

        const expiry = printable.sequenceExpiry === null ? [] : [`Fecha Vencimiento: ${printable.sequenceExpiry}`];
        assert.equal(text.includes('Fecha Vencimiento'), printable.sequenceExpiry !== null, `${where}: expiry line`);
        const buyer = printable.buyer?.legalName ?? null;
        assert.equal(text.includes('Razón Social Cliente:'), buyer !== null, `${where}: buyer block`);
        const reference =
          printable.reference === null
            ? []
            : [`e-NCF Modificado: ${printable.reference.modifiedNcf}`, printable.reference.modificationCode!.name];
        const heading = [printable.typeName, `e-NCF: ${printable.eNCF}`, ...expiry, ...reference];
        const issuer = [roll ? `RNC: ${issuerRnc}` : `RNC ${issuerRnc}`, `Fecha Emisión: ${printable.issueDate}`];
        const tail = [
          ...(buyer === null ? [] : [`Razón Social Cliente: ${buyer}`]),
          'Cantidad',
          'Descripción',
          'Unidad de Medida',
          'Precio',
          'ITBIS',
          'Valor',
          ...printable.lines.map((line) => (roll ? { words: line.name } : line.name)),
          ...printable.totalLines.flatMap((row) => [`${row.label}:`, grouped(row.amount)]),
          `Código de Seguridad: ${printable.securityCode}`,
          `Fecha de Firma Digital: ${printable.signatureDate}`,
        ];
        if (roll) assertInOrder(flat, [...issuer.slice(0, 1), ...heading, ...issuer.slice(1), ...tail], where);
        else {
          // Two columns side by side: the heading (right) and the issuer (left) each in order, then the rest.
          assertInOrder(flat, [...heading, ...tail], where);
          assertInOrder(flat, [...issuer, ...tail], where);
        }
        for (const forbidden of ['Representación Impresa', 'ejemplo', 'EJEMPLO', 'Página'])
          assert.ok(!text.includes(forbidden), `${where}: no "${forbidden}"`);

        assert.deepEqual(scanned, [printable.qr.url], `${where}: the QR reads the timbre URL byte for byte`);

        const rows = fonts.split('\n').filter((row) => /\s(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/.test(row));
        assert.ok(rows.length >= 2, `${where}: fonts listed`);
        for (const row of rows)
          assert.match(row, /\s+yes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/, `${where}: ${row} is embedded`);
        assert.match(info, /^Pages:\s+1$/m);
        if (roll) assert.match(info, /^Page size:\s+226\.77 x \d+(\.\d+)? pts$/m);
        else assert.match(info, /^Page size:\s+595\.28 x 841\.89 pts \(A4\)$/m);
      }),
    );
  });

  it('paginates a signed 200-line e-CF as its Paginacion declares, QR and header on every page', async () => {
    const perPage = linesPerPage('a4');
    const lines = 200;
    const printable = printableFrom('31', 300, {
      change: (document) => {
        twoHundredLines(document, lines, perPage);
      },
    });
    const pages = Math.ceil(lines / perPage);
    assert.equal(printable.pagination?.pages.length, pages);
    const pdf = rendered(printable, 'a4');
    assert.equal(pdf.pages, pages);
    const file = join(dir, '200-lines.pdf');
    writeFileSync(file, pdf.bytes);
    const [scanned, info] = await Promise.all([scannedPages(file, 'a4', dir), tool('pdfinfo', [file])]);
    assert.deepEqual(scanned, new Array<string>(pages).fill(printable.qr.url));
    assert.match(info, new RegExp(`^Pages:\\s+${pages}$`, 'm'));
    for (let page = 1; page <= pages; page++) {
      const text = await tool('pdftotext', ['-layout', '-f', String(page), '-l', String(page), file, '-']);
      const from = (page - 1) * perPage + 1;
      const to = Math.min(lines, page * perPage);
      const names = Array.from(
        { length: to - from + 1 },
        (_, index) => `Artículo ${String(from + index).padStart(3, '0')}`,
      );
      const declared = printable.pagination.pages[page - 1]!;
      const closing =
        page === pages
          ? printable.totalLines.flatMap((row) => [`${row.label}:`, grouped(row.amount)])
          : declared.subtotals.flatMap((row) => [`${row.label}:`, grouped(row.amount)]);
      assertInOrder(
        collapsed(text),
        [printable.typeName, `e-NCF: ${printable.eNCF}`, 'Cantidad', ...names, ...closing, 'Código de Seguridad:'],
        `page ${page}`,
      );
      assertInOrder(
        collapsed(text),
        [`RNC ${issuerRnc}`, 'Razón Social Cliente:', 'Fecha de Firma Digital:', `Página No. ${page} de ${pages}`],
        `page ${page}`,
      );
      assert.equal(text.includes('Total:'), page === pages, `grand total only on the last page (${page})`);
      const others = text.match(/Artículo \d{3}/g) ?? [];
      assert.equal(others.length, names.length, `page ${page} holds only its declared lines`);
    }
  });

  it('prints accents, ñ and ≥ as written and a character the font lacks as "?", never garbled', async () => {
    const name = 'Tubería ñandú ≥ 2" café 😀 y 🧾 oficina';
    const printable = printableFrom('31', 400, {
      change: (document) => {
        const items = (document['DetallesItems'] as { Item: Record<string, unknown>[] }).Item;
        items[0]!['NombreItem'] = name;
      },
    });
    assert.equal(printable.lines[0]!.name, name, 'the signed XML carries the text');
    for (const format of ['a4', '80mm'] as const) {
      const pdf = rendered(printable, format);
      assert.deepEqual(pdf.replacedCharacters, ['U+1F9FE']);
      const file = join(dir, `text-${format}.pdf`);
      writeFileSync(file, pdf.bytes);
      const text = collapsed(await tool('pdftotext', ['-layout', file, '-']));
      const expected = 'Tubería ñandú ≥ 2" café 😀 y ? oficina';
      if (format === 'a4') assert.ok(text.includes(expected), `${format}: ${text}`);
      else assertInOrder(text, [{ words: expected }], format);
      assert.ok(text.includes('Ferretería Ñoño & Asociados, S.R.L.'));
    }
  });

  it('gives the same bytes in two separate processes', async () => {
    const script = join(dir, 'render.mjs');
    const modules = (
      [
        '../src/modules/printing/printer.ts',
        '../src/platform/observability/logger.ts',
        './support/printable-documents.ts',
      ] as const
    ).map((path) => childModule(join(import.meta.dirname, path)));
    const source = (index: number) => JSON.stringify(pathToFileURL(modules[index]!.path).href);
    writeFileSync(
      script,
      [
        `import { createPrinter } from ${source(0)};`,
        `import { createLogger } from ${source(1)};`,
        `import { printableInvoice } from ${source(2)};`,
        `const printer = createPrinter({ log: createLogger('error') });`,
        `const printable = printableInvoice({ lines: 40, legends: true, names: (n) => n === 2 ? 'Ñandú ≥ 😀 🧾' : 'Artículo ' + n });`,
        `const hashes = ['a4', 'carta', '80mm', '58mm'].map((format) => {`,
        `  const result = printer.render({ printable, format, branding: { logoPng: null, logoSha256: null, footerNote: 'Nota' } });`,
        `  if (!result.ok) throw new Error(result.failure.detail);`,
        `  return result.value.sha256;`,
        `});`,
        `process.stdout.write(JSON.stringify(hashes));`,
      ].join('\n'),
    );
    const child = () =>
      new Promise<string[]>((resolve, reject) => {
        const process_ = spawn(process.execPath, [...modules[0]!.nodeArgs, script], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        process_.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        process_.on('error', reject);
        process_.on('exit', (code) => {
          if (code === 0) resolve(JSON.parse(out) as string[]);
          else reject(new Error(`the render script exited with ${String(code)}`));
        });
      });
    const [first, second] = await Promise.all([child(), child()]);
    assert.equal(first.length, 4);
    assert.equal(new Set(first).size, 4, 'each format its own bytes');
    assert.deepEqual(second, first);
    const here = printableInvoice({
      lines: 40,
      legends: true,
      names: (n) => (n === 2 ? 'Ñandú ≥ 😀 🧾' : `Artículo ${n}`),
    });
    const inThisProcess = (['a4', 'carta', '80mm', '58mm'] as const).map((format) => {
      const result = createPrinter({ log: createLogger('error') }).render({
        printable: here,
        format,
        branding: { logoPng: null, logoSha256: null, footerNote: 'Nota' },
      });
      assert.ok(result.ok);
      return result.value.sha256;
    });
    assert.deepEqual(inThisProcess, first, 'and in this process');
  });
});

/** `lines` taxed lines of 100.00 at 18 % with totals to match, and a Paginacion of `perPage` lines a page. */
function twoHundredLines(document: Record<string, unknown>, lines: number, perPage: number): void {
  const items = Array.from({ length: lines }, (_, index) => ({
    NumeroLinea: index + 1,
    IndicadorFacturacion: 1,
    NombreItem: `Artículo ${String(index + 1).padStart(3, '0')}`,
    IndicadorBienoServicio: 1,
    CantidadItem: '1',
    UnidadMedida: 43,
    PrecioUnitarioItem: '100.00',
    MontoItem: '100.00',
  }));
  const cents = (count: number, each: number) => ((count * each) / 100).toFixed(2);
  const encabezado = document['Encabezado'] as Record<string, Record<string, unknown>>;
  const pages = Math.ceil(lines / perPage);
  encabezado['IdDoc'] = {
    ...encabezado['IdDoc'],
    TotalPaginas: pages,
    TablaFormasPago: { FormaDePago: [{ FormaPago: 1, MontoPago: cents(lines, 11800) }] },
  };
  encabezado['Totales'] = {
    MontoGravadoTotal: cents(lines, 10000),
    MontoGravadoI1: cents(lines, 10000),
    ITBIS1: '18',
    TotalITBIS: cents(lines, 1800),
    TotalITBIS1: cents(lines, 1800),
    MontoTotal: cents(lines, 11800),
  };
  document['DetallesItems'] = { Item: items };
  document['Paginacion'] = {
    Pagina: Array.from({ length: pages }, (_, page) => {
      const from = page * perPage + 1;
      const count = Math.min(lines, from + perPage - 1) - from + 1;
      return {
        PaginaNo: page + 1,
        NoLineaDesde: from,
        NoLineaHasta: from + count - 1,
        SubtotalMontoGravadoPagina: cents(count, 10000),
        SubtotalMontoGravado1Pagina: cents(count, 10000),
        SubtotalItbisPagina: cents(count, 1800),
        SubtotalItbis1Pagina: cents(count, 1800),
        MontoSubtotalPagina: cents(count, 11800),
      };
    }),
  };
}
