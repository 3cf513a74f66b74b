// Paints a Plan with pdfkit, box by box: every text run at the place the layout measured for it (pdfkit's own
// flowing and `continued` runs overlapped mixed runs in the prototypes), the QR as one fill of rectangles.
// Deterministic: the dates are the signature's, the file /ID is pdfkit's digest of the info, the font subsets are
// named by order of use, and nothing reads the clock or draws random numbers, so the same plan gives the same bytes
// in any process.
import PDFDocument from 'pdfkit';
import type { Font, GlyphRun } from 'fontkit';
import { fonts, shapedRuns, type FontWeight, type Measure } from './fonts.js';
import type { Box, Plan, TextBox } from './plan.js';
import type { QrMatrix } from './qr.js';

// @types/pdfkit lags pdfkit 0.20: it has no `font: null` (no default Helvetica, which PDF/A could not embed
// anyway) and no fontkit Font as a font source, which pdfkit accepts (`typeof src.layout === 'function'`).
type DocumentOptions = Omit<PDFKit.PDFDocumentOptions, 'font'> & { font: null };
interface RiDocument extends Omit<PDFKit.PDFDocument, 'font'> {
  font(src: Font, family: string, size?: number): this;
  read(): Buffer | null;
}
const createDocument = (options: DocumentOptions) =>
  new (PDFDocument as unknown as new (options: DocumentOptions) => RiDocument)(options);

// What the painter reaches inside pdfkit: its info and the XMP writer, which puts info values in the XMP packet
// unescaped (a legal name with '&' would make the PDF/A metadata ill-formed XML).
interface PdfkitInternals {
  _font: { layoutCache?: Record<string, GlyphRun> };
  info: Record<string, string | Date>;
  _addInfo(): void;
  appendXML(xml: string, newline?: boolean): void;
}

export interface PaintInfo {
  title: string;
  author: string;
  creator: string;
  /** The signature date: CreationDate and ModDate, so the bytes do not depend on when they are made. */
  date: Date;
  logoPng: Buffer | null;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function escapedXmp(document: RiDocument, date: Date): void {
  const internals = document as unknown as PdfkitInternals;
  const addInfo = internals._addInfo.bind(document);
  internals._addInfo = () => {
    const info = internals.info;
    internals.info = Object.fromEntries(
      Object.entries(info).map(([key, value]) => [key, typeof value === 'string' ? escapeXml(value) : value]),
    );
    try {
      addInfo();
      // PDF/A wants every info entry mirrored in XMP; pdfkit writes no xmp:ModifyDate for ModDate.
      internals.appendXML(
        `<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:ModifyDate>${date.toISOString().split('.')[0] ?? ''}Z</xmp:ModifyDate></rdf:Description>`,
      );
    } finally {
      internals.info = info;
    }
  };
}

export function paint(plan: Plan, info: PaintInfo, measure: Measure): Buffer {
  const first = plan.pages[0];
  const document = createDocument({
    size: first === undefined ? [0, 0] : [first.width, first.height],
    margin: 0,
    autoFirstPage: false,
    font: null,
    pdfVersion: '1.7',
    subset: 'PDF/A-2b',
    lang: 'es-DO',
    displayTitle: true,
    info: {
      Title: info.title,
      Author: info.author,
      Producer: info.creator,
      Creator: info.creator,
      CreationDate: info.date,
      ModDate: info.date,
    },
  });
  escapedXmp(document, info.date);
  const faces = fonts();
  const qrOperators = new Map<string, string>();
  let current: { weight: FontWeight; size: number } | null = null;
  const text = (box: TextBox) => {
    if (current?.weight !== box.weight || current.size !== box.size) {
      document.font(faces[box.weight], box.weight, box.size);
      // Words shaped once per process (fonts.ts), not once per document.
      (document as unknown as PdfkitInternals)._font.layoutCache = shapedRuns(box.weight);
      current = { weight: box.weight, size: box.size };
    }
    const width = box.align === 'left' ? 0 : measure(box.text, box.size, box.weight);
    const x =
      box.align === 'left'
        ? box.x
        : box.align === 'right'
          ? box.x + box.width - width
          : box.x + (box.width - width) / 2;
    document.text(box.text, x, box.y, { lineBreak: false });
  };
  const draw = (box: Box) => {
    switch (box.kind) {
      case 'text':
        text(box);
        return;
      case 'rule':
        if (box.dashed) document.dash(2, { space: 2 });
        document
          .moveTo(box.x, box.y)
          .lineTo(box.x + box.width, box.y)
          .lineWidth(0.6)
          .stroke('#000000');
        if (box.dashed) document.undash();
        return;
      case 'qr': {
        // The same QR at the same place on every page: its operators are written out once.
        const key = `${box.x} ${box.y} ${box.size}`;
        let operators = qrOperators.get(key);
        if (operators === undefined) {
          operators = qrPath(plan.qr, box.x, box.y, box.size);
          qrOperators.set(key, operators);
        }
        document.fillColor('#000000').addContent(operators).addContent('f');
        return;
      }
      case 'logo':
        if (info.logoPng !== null) document.image(info.logoPng, box.x, box.y, { width: box.width, height: box.height });
        return;
    }
  };
  for (const page of plan.pages) {
    document.addPage({ size: [page.width, page.height], margin: 0 });
    current = null;
    for (const box of page.boxes) draw(box);
  }
  document.end();
  return collect(document);
}

/** pdfkit's own rounding of coordinates (PDFObject.number). */
function pdfNumber(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/**
 * The dark runs as rectangles of one path, filled once: vector, and no seams between modules. The `re` operators go
 * in as one piece of content: pdfkit's rect() costs about 3 µs a call, and a v10 QR has about 700 runs.
 */
function qrPath(matrix: QrMatrix, x: number, y: number, size: number): string {
  const module = size / matrix.size;
  return matrix.runs
    .map(
      (run) =>
        `${pdfNumber(x + run.column * module)} ${pdfNumber(y + run.row * module)} ${pdfNumber(run.length * module)} ${pdfNumber(module)} re`,
    )
    .join('\n');
}

/**
 * pdfkit pushes the whole file into its readable side during end() when nothing waits on zlib's callbacks (which
 * embeddableLogo guarantees), so the bytes are read back at once, without events.
 */
function collect(document: RiDocument): Buffer {
  const chunks: Buffer[] = [];
  for (let chunk = document.read(); chunk !== null; chunk = document.read()) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  if (!bytes.subarray(-7).toString('latin1').includes('%%EOF'))
    throw new Error('pdfkit did not finish the PDF synchronously');
  return bytes;
}
