import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { tool } from '../../../test/support/pdf-tools.js';
import { printableInvoice, withPagination } from '../../../test/support/printable-documents.js';
import { requireTool } from '../../../test/support/tools.js';
import { createLogger } from '../../platform/observability/logger.js';
import type { PrintBranding } from './layout.js';
import { createPrinter, rendererVersion } from './printer.js';

const plain: PrintBranding = { logoPng: null, logoSha256: null, footerNote: null };

function printerWithLog() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { printer: createPrinter({ log: createLogger('info', destination) }), lines };
}

function rgbaLogo(): Buffer {
  const png = new PNG({ width: 300, height: 100 });
  for (let offset = 0; offset < png.data.length; offset += 4)
    png.data.set([200, 20, 20, offset % 8 === 0 ? 255 : 0], offset);
  return PNG.sync.write(png);
}

describe('printer', () => {
  // Not a PDF/A validation (veraPDF, the reference validator, is not in Debian): the PDF/A-2b requirements that
  // poppler and xmllint can see, besides what the bytes say.
  it('renders a file marked PDF/A-2b with an OutputIntent, every font embedded, no encryption and well-formed XMP, dated by the signature, titled by type and e-NCF, in Spanish', async (t) => {
    const { printer } = printerWithLog();
    const result = printer.render({ printable: printableInvoice(), format: 'a4', branding: plain });
    assert.ok(result.ok);
    const { bytes, sha256, pages, replacedCharacters } = result.value;
    const text = bytes.toString('latin1');
    assert.ok(text.startsWith('%PDF-1.7\n'));
    assert.ok(text.trimEnd().endsWith('%%EOF'));
    assert.equal(sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(pages, 1);
    assert.deepEqual(replacedCharacters, []);
    // 15-11-2026 10:31:07 in Santo Domingo (GMT-4) is 14:31:07 UTC.
    assert.equal(text.match(/D:20261115143107Z/g)?.length, 2, 'CreationDate and ModDate');
    assert.match(text, /<xmp:CreateDate>2026-11-15T14:31:07Z<\/xmp:CreateDate>/);
    assert.match(text, /<xmp:ModifyDate>2026-11-15T14:31:07Z<\/xmp:ModifyDate>/);
    assert.match(text, /<pdfaid:part>2<\/pdfaid:part>\s*<pdfaid:conformance>B</);
    assert.match(text, /\/Lang \(es-DO\)/);
    assert.match(text, new RegExp(`\\(ecf-service RI ${rendererVersion}\\)`));
    // The legal name holds '&': escaped in the XMP packet, which must stay well-formed XML.
    assert.match(text, /<rdf:li>Ferreter\S+ \S+ &#38; Asociados, S\.R\.L\.<\/rdf:li>/);
    assert.doesNotMatch(text, /Helvetica/);
    // ISO 19005-2 §6.2.3: an OutputIntent of subtype GTS_PDFA1 with its ICC profile, named by the catalog.
    const intent = /\/OutputIntents \[(\d+) 0 R\]/.exec(text)?.[1];
    assert.ok(intent !== undefined, 'the catalog names an OutputIntent');
    assert.match(
      text,
      new RegExp(`\\n${intent} 0 obj\\n<<\\n/Type /OutputIntent\\n/S /GTS_PDFA1\\n[^>]*/DestOutputProfile \\d+ 0 R`),
    );

    if (!requireTool(t, 'pdfinfo', 'pdffonts', 'xmllint')) return;
    const dir = mkdtempSync(join(tmpdir(), 'ecf-pdfa-'));
    try {
      const file = join(dir, 'invoice.pdf');
      writeFileSync(file, bytes);
      const [info, fonts, xmp] = await Promise.all([
        tool('pdfinfo', [file]),
        tool('pdffonts', [file]),
        tool('pdfinfo', ['-meta', file]),
      ]);
      // §6.1.3: no encryption; §6.6.2: the metadata as an XMP stream; §6.1.7 (no JavaScript, by §6.6.1's actions).
      assert.match(info, /^Encrypted:\s+no$/m);
      assert.match(info, /^Metadata Stream:\s+yes$/m);
      assert.match(info, /^JavaScript:\s+no$/m);
      assert.match(info, /^PDF version:\s+1\.7$/m);
      // §6.2.11.4: every font embedded. pdffonts' rows follow two header lines; `emb` is the fourth column from the end.
      const rows = fonts.trim().split('\n').slice(2);
      assert.ok(rows.length > 0, fonts);
      for (const row of rows) assert.equal(row.trim().split(/\s+/).at(-5), 'yes', row);
      // §6.6.4: the XMP identifies part 2, conformance B; as XML it must parse.
      const lint = spawnSync('xmllint', ['--noout', '-'], { input: xmp, encoding: 'utf8' });
      assert.equal(lint.status, 0, lint.stderr);
      assert.match(xmp, /<pdfaid:part>2<\/pdfaid:part>\s*<pdfaid:conformance>B<\/pdfaid:conformance>/);
      // §6.6.2.3: the document information the info dictionary holds is the same in the XMP.
      const title = /^Title:\s+(.+)$/m.exec(info)?.[1];
      assert.ok(title !== undefined, info);
      assert.ok(xmp.includes(`<rdf:li xml:lang="x-default">${title}</rdf:li>`), xmp);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the same bytes for the same input from a fresh printer', () => {
    const render = () =>
      createPrinter({ log: createLogger('error') }).render({
        printable: printableInvoice(),
        format: '80mm',
        branding: plain,
      });
    const [first, second] = [render(), render()];
    assert.ok(first.ok && second.ok);
    assert.notEqual(first.value, second.value);
    assert.ok(first.value.bytes.equals(second.value.bytes));
  });

  it('keeps renders in its cache, whatever the status or notices', () => {
    const { printer } = printerWithLog();
    const printable = printableInvoice();
    const first = printer.render({ printable, format: 'a4', branding: plain });
    const again = printer.render({
      printable: { ...printable, status: 'signed', notices: [{ code: 'not_accepted_yet', text: 'x' }] },
      format: 'a4',
      branding: plain,
    });
    const roll = printer.render({ printable, format: '80mm', branding: plain });
    const noted = printer.render({ printable, format: 'a4', branding: { ...plain, footerNote: 'Nota' } });
    assert.ok(first.ok && again.ok && roll.ok && noted.ok);
    assert.equal(again.value, first.value, 'the cached render');
    assert.notEqual(roll.value.sha256, first.value.sha256);
    assert.notEqual(noted.value.sha256, first.value.sha256);
  });

  it('prints what the font lacks as "?" and logs the code points, never the text', () => {
    const { printer, lines } = printerWithLog();
    const printable = printableInvoice({ names: (n) => (n === 1 ? 'Caja 🧾 ✅ café 😀\u0007' : `Artículo ${n}`) });
    const result = printer.render({ printable, format: 'a4', branding: plain });
    assert.ok(result.ok);
    assert.deepEqual(result.value.replacedCharacters, ['U+1F9FE', 'U+2705']);
    const warnings = lines.filter((line) => line['level'] === 40);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!['documentId'], printable.id);
    assert.deepEqual(warnings[0]!['replacedCharacters'], ['U+1F9FE', 'U+2705']);
    assert.doesNotMatch(JSON.stringify(warnings), /Caja|café/);
  });

  it('embeds a logo with transparency on sheets, synchronously, and none on rolls', () => {
    const { printer } = printerWithLog();
    const branding = { logoPng: rgbaLogo(), logoSha256: 'logo-1', footerNote: null };
    const sheet = printer.render({ printable: printableInvoice(), format: 'carta', branding });
    const roll = printer.render({ printable: printableInvoice(), format: '58mm', branding });
    assert.ok(sheet.ok && roll.ok);
    assert.match(sheet.value.bytes.toString('latin1'), /\/Subtype \/Image/);
    assert.doesNotMatch(roll.value.bytes.toString('latin1'), /\/Subtype \/Image/);
  });

  it('answers pagination_overflow from the layout', () => {
    const { printer } = printerWithLog();
    const printable = withPagination(printableInvoice({ lines: 100 }), [60, 40]);
    const result = printer.render({ printable, format: 'a4', branding: plain });
    assert.ok(!result.ok);
    assert.equal(result.failure.code, 'pagination_overflow');
  });
});
