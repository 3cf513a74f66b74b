import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { printableInvoice, withPagination } from '../../../test/support/printable-documents.js';
import type { PrintableDocument } from './printable.schema.js';
import { measure } from './fonts.js';
import { layout, linesPerPage, type PrintBranding } from './layout.js';
import { mm, paperGeometry, type PaperFormat } from './paper.js';
import { grouped, lineHeight, type Box, type Plan, type PlanPage, type QrBox } from './plan.js';

const plain: PrintBranding = { logoPng: null, logoSha256: null, footerNote: null };

function logoPng(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  png.data.fill(128);
  return PNG.sync.write(png);
}

function planOf(printable: PrintableDocument, format: PaperFormat, branding = plain): Plan {
  const result = layout(printable, format, branding, measure);
  assert.ok(result.ok, result.ok ? '' : result.failure.detail);
  return result.value;
}

const texts = (page: PlanPage) => page.boxes.flatMap((box) => (box.kind === 'text' ? [box.text] : []));
const has = (page: PlanPage, text: string) => texts(page).includes(text);
const startingWith = (page: PlanPage, start: string) => texts(page).filter((text) => text.startsWith(start));

function qrOf(page: PlanPage): QrBox {
  const found = page.boxes.filter((box): box is QrBox => box.kind === 'qr');
  assert.equal(found.length, 1, 'one QR per page');
  return found[0]!;
}

/** Where a box puts ink: a text run's measured extent inside its box, a rule's line, a QR or logo's square. */
function inked(box: Box): { left: number; top: number; right: number; bottom: number } {
  switch (box.kind) {
    case 'text': {
      const width = measure(box.text, box.size, box.weight);
      const left =
        box.align === 'left'
          ? box.x
          : box.align === 'right'
            ? box.x + box.width - width
            : box.x + (box.width - width) / 2;
      return { left, top: box.y, right: left + width, bottom: box.y + lineHeight(box.size) };
    }
    case 'rule':
      return { left: box.x, top: box.y - 0.3, right: box.x + box.width, bottom: box.y + 0.3 };
    case 'qr':
      return { left: box.x, top: box.y, right: box.x + box.size, bottom: box.y + box.size };
    case 'logo':
      return { left: box.x, top: box.y, right: box.x + box.width, bottom: box.y + box.height };
  }
}

function assertQrRules(page: PlanPage, format: PaperFormat): void {
  const qr = qrOf(page);
  assert.ok(qr.size >= mm(22) - 1e-9, `QR ${qr.size / mm(1)} mm is at least 22 mm`);
  assert.ok(qr.clear >= mm(3) - 1e-9);
  const zone = { left: qr.x - mm(3), top: qr.y - mm(3), right: qr.x + qr.size + mm(3), bottom: qr.y + qr.size + mm(3) };
  for (const box of page.boxes) {
    if (box === qr) continue;
    const ink = inked(box);
    const overlaps = ink.left < zone.right && ink.right > zone.left && ink.top < zone.bottom && ink.bottom > zone.top;
    assert.ok(!overlaps, `${JSON.stringify(box)} is drawn inside the QR's 3 mm margin on ${format}`);
  }
  assert.ok(zone.left >= 0 && zone.right <= page.width && zone.bottom <= page.height, 'the margin is on the sheet');
}

describe('RI layout', () => {
  for (const format of ['a4', 'carta'] as const) {
    it(`puts a QR of at least 22 mm bottom left on ${format}, 20 mm or more from the edge, 3 mm clear`, () => {
      const [page] = planOf(printableInvoice(), format).pages;
      const qr = qrOf(page!);
      assert.ok(qr.x >= mm(20) - 1e-9, `left edge ${qr.x / mm(1)} mm`);
      assert.ok(qr.x + qr.size < page!.width / 2, 'left half');
      assert.ok(qr.y > page!.height * 0.6, 'bottom of the page');
      assertQrRules(page!, format);
    });
  }

  it('sizes the page exactly and keeps the QR clear with a logo, legends and a note', () => {
    const branding = { logoPng: logoPng(1200, 600), logoSha256: 'x', footerNote: 'Gracias por preferirnos.' };
    for (const format of ['a4', 'carta', '80mm', '58mm'] as const) {
      const plan = planOf(printableInvoice({ legends: true }), format, branding);
      for (const page of plan.pages) assertQrRules(page, format);
      assert.equal(plan.pages[0]!.width, paperGeometry[format].width);
    }
    const [a4] = planOf(printableInvoice(), 'a4', branding).pages;
    const logo = a4!.boxes.find((box) => box.kind === 'logo');
    assert.ok(logo !== undefined);
    assert.ok(logo.width <= mm(45) + 1e-9 && logo.height <= mm(22) + 1e-9);
    assert.ok(Math.abs(logo.width / logo.height - 2) < 1e-9, 'aspect kept');
    const [roll] = planOf(printableInvoice(), '80mm', branding).pages;
    assert.ok(!roll!.boxes.some((box) => box.kind === 'logo'), 'no logo on rolls (model 2.3)');
  });

  it('centres the QR on an 80 mm roll and sizes the roll to its content', () => {
    const plan = planOf(printableInvoice({ lines: 10 }), '80mm');
    assert.equal(plan.pages.length, 1);
    const [page] = plan.pages;
    const qr = qrOf(page!);
    assert.equal(page!.width, 226.77);
    assert.ok(Math.abs(qr.x + qr.size / 2 - page!.width / 2) < 1e-9, 'centred');
    assert.ok(qr.x >= mm(20), 'the 2 cm rule holds on 80 mm');
    const lowest = Math.max(...page!.boxes.map((box) => inked(box).bottom));
    assert.ok(page!.height - lowest >= mm(8) - 1 && page!.height - lowest <= mm(8) + 1, 'ends 8 mm under the content');
    assert.ok(has(page!, 'Código de Seguridad: S/DQd+'), 'the code is printed raw');
  });

  it('prints one continuous roll even when the XML declares pages', () => {
    const printable = withPagination(printableInvoice({ lines: 60 }), [30, 30]);
    assert.equal(planOf(printable, '80mm').pages.length, 1);
    assert.equal(planOf(printable, '58mm').pages.length, 1);
  });

  it('prints a one-page document without any "Página" text', () => {
    for (const format of ['a4', 'carta', '80mm'] as const) {
      const plan = planOf(printableInvoice({ lines: 10 }), format);
      assert.equal(plan.pages.length, 1);
      assert.deepEqual(
        texts(plan.pages[0]!).filter((text) => text.includes('Página')),
        [],
      );
    }
  });

  it('prints Fecha Vencimiento only when the e-CF has one', () => {
    for (const format of ['a4', '80mm'] as const) {
      assert.ok(has(planOf(printableInvoice(), format).pages[0]!, 'Fecha Vencimiento: 31-12-2027'));
      const without = planOf(printableInvoice({ sequenceExpiry: null }), format).pages[0]!;
      assert.deepEqual(startingWith(without, 'Fecha Vencimiento'), []);
    }
  });

  describe('200 lines without Paginacion', () => {
    const printable = printableInvoice({ lines: 200 });
    const plan = planOf(printable, 'a4');
    const pages = plan.pages;

    it('fills pages by capacity and repeats the header, table header, QR, code and date on every page', () => {
      assert.ok(pages.length >= 5, `${pages.length} pages`);
      for (const page of pages) {
        for (const text of [
          'Factura de Crédito Fiscal Electrónica',
          'e-NCF: E310000000042',
          'Ferretería "El Martillo"',
          'Fecha Emisión: 15-11-2026',
          'Razón Social Cliente: Distribuidora Peña & Hijos',
          'Cantidad',
          'Descripción',
          'Unidad de Medida',
          'Código de Seguridad: S/DQd+',
          'Fecha de Firma Digital: 15-11-2026 10:31:07',
        ])
          assert.ok(has(page, text), `${text} on every page`);
        assertQrRules(page, 'a4');
      }
    });

    it('prints every line once, in order, and "Página No. X de Y" on each page', () => {
      const names = pages.flatMap((page) => startingWith(page, 'Artículo '));
      assert.deepEqual(
        names,
        printable.lines.map((line) => line.name),
      );
      pages.forEach((page, index) => {
        assert.deepEqual(startingWith(page, 'Página No.'), [`Página No. ${index + 1} de ${pages.length}`]);
      });
    });

    it('closes every page but the last with its own subtotals, and only the last with the totals', () => {
      for (const [index, page] of pages.entries()) {
        const last = index === pages.length - 1;
        assert.equal(has(page, 'Total:'), last, `Total on page ${index + 1}`);
        assert.equal(has(page, 'Monto Total Página:'), !last, `page subtotal on page ${index + 1}`);
        if (last) continue;
        // Recomputed here from the lines the page shows: taxed, exempt, ITBIS, and their sum.
        const onPage = printable.lines.filter((line) => has(page, line.name));
        const cents = (pick: (line: (typeof onPage)[number]) => string | null) =>
          onPage.reduce((total, line) => total + Math.round(Number(pick(line) ?? '0') * 100), 0);
        const taxed = cents((line) => (line.exempt ? null : line.amount));
        const exempt = cents((line) => (line.exempt ? line.amount : null));
        const itbis = cents((line) => line.itbis);
        const amountAfter = (label: string) => {
          const labelBox = page.boxes.find((box) => box.kind === 'text' && box.text === label);
          const amount = page.boxes.find(
            (box) =>
              box.kind === 'text' && box.y === labelBox?.y && box !== labelBox && /^[\d,]+\.\d\d$/.test(box.text),
          );
          return amount?.kind === 'text' ? Math.round(Number(amount.text.replaceAll(',', '')) * 100) : undefined;
        };
        assert.equal(amountAfter('Subtotal Gravado Página:'), taxed);
        assert.equal(amountAfter('Subtotal Exento Página:'), exempt);
        assert.equal(amountAfter('Subtotal ITBIS Página:'), itbis);
        assert.equal(amountAfter('Monto Total Página:'), taxed + exempt + itbis);
      }
      const last = pages[pages.length - 1]!;
      assert.ok(has(last, grouped(printable.totalLines.at(-1)!.amount)));
    });
  });

  describe('with Paginacion', () => {
    const perPage = linesPerPage('a4');

    it('offers a capacity that fits a full header on A4 and Letter', () => {
      assert.ok(perPage >= 20 && perPage < 70, `${perPage} lines per A4 page`);
      assert.ok(linesPerPage('carta') >= 18, `${linesPerPage('carta')} lines per Letter page`);
      assert.equal(linesPerPage('80mm'), Number.POSITIVE_INFINITY);
    });

    it('follows the declared pages exactly, with the XML subtotals, even with logo, legends and note', () => {
      const sizes = [perPage, perPage - 3, 7, perPage];
      const total = sizes.reduce((a, b) => a + b, 0);
      const printable = withPagination(printableInvoice({ lines: total, legends: true }), sizes);
      const branding = { logoPng: logoPng(1200, 600), logoSha256: 'x', footerNote: 'Nota' };
      const pages = planOf(printable, 'a4', branding).pages;
      assert.equal(pages.length, sizes.length);
      let first = 1;
      for (const [index, page] of pages.entries()) {
        const expected = printable.lines.slice(first - 1, first - 1 + sizes[index]!).map((line) => line.name);
        first += sizes[index]!;
        assert.deepEqual(startingWith(page, 'Artículo '), expected, `lines of page ${index + 1}`);
        assert.deepEqual(startingWith(page, 'Página No.'), [`Página No. ${index + 1} de ${sizes.length}`]);
        const declared = printable.pagination!.pages[index]!.subtotals;
        const last = index === pages.length - 1;
        for (const subtotal of declared) assert.equal(has(page, grouped(subtotal.amount)), !last, subtotal.label);
        assert.equal(has(page, 'Subtotal ITBIS Página:'), false, 'only the XML subtotals, none derived');
        assert.equal(startingWith(page, 'e-CF emitido en modalidad Envío Diferido').length, last ? 1 : 0);
        assert.equal(startingWith(page, 'e-CF emitido en modalidad de Contingencia').length, last ? 1 : 0);
        assertQrRules(page, 'a4');
      }
    });

    it('answers pagination_overflow when a declared page holds more lines than fit', () => {
      const overflowing = layout(withPagination(printableInvoice({ lines: 200 }), [70, 70, 60]), 'a4', plain, measure);
      assert.ok(!overflowing.ok);
      assert.equal(overflowing.failure.code, 'pagination_overflow');
      assert.match(overflowing.failure.detail, /lines 1-70 on page 1/);
      const unplaced = layout(withPagination(printableInvoice({ lines: 20 }), [10, 5]), 'a4', plain, measure);
      assert.ok(!unplaced.ok);
      assert.equal(unplaced.failure.code, 'pagination_overflow');
      assert.match(unplaced.failure.detail, /line 16 on no page/);
    });
  });

  it('wraps long descriptions inside their column and keeps amounts right-aligned', () => {
    const long = 'Tubo de PVC de presión SDR-26 de cuatro pulgadas por diecinueve pies, campana y espiga, color blanco';
    const printable = printableInvoice({ lines: 2, names: (n) => (n === 1 ? long : `Artículo ${n}`) });
    const [page] = planOf(printable, 'a4').pages;
    const pieces = page!.boxes.filter((box) => box.kind === 'text' && long.includes(box.text) && box.text.length > 5);
    assert.ok(pieces.length >= 2, 'wrapped');
    assert.equal(pieces.map((box) => (box.kind === 'text' ? box.text : '')).join(' '), long);
    for (const piece of pieces) {
      const ink = inked(piece);
      assert.ok(piece.kind === 'text' && ink.right <= piece.x + piece.width + 1e-6, 'inside its column');
    }
    const value = page!.boxes.find((box) => box.kind === 'text' && box.text === 'Valor');
    const amount = page!.boxes.find((box) => box.kind === 'text' && box.text === printable.lines[0]!.amount);
    assert.ok(value !== undefined && amount !== undefined);
    assert.ok(Math.abs(inked(value).right - inked(amount).right) < 1e-6, 'right edges aligned');
  });
});
