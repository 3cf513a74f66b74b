import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { printableInvoice, withPagination } from '../../../test/support/printable-documents.js';
import { createLogger } from '../../platform/observability/logger.js';
import { createPrinter, rendererVersion, type PrintBranding } from './index.js';

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
  it('renders a PDF/A-2b file dated by the signature, titled by type and e-NCF, in Spanish', () => {
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
