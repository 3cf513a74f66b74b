// The printed representation (RI) of an e-CF as PDF: printable data in, deterministic bytes out. The printing
// service (printing.service.ts) calls it for the impresion routes and the certification zip.
import { parseDgiiTimestamp } from '../../fiscal/dates.js';
import type { PrintableDocument } from './printable.schema.js';
import type { Logger } from '../../platform/observability/logger.js';
import { ok, type Result } from '../../platform/result.js';
import { sha256Hex } from '../../platform/storage/index.js';
import { codePointName, measure, printable as printableText } from './fonts.js';
import { layout, type PrintBranding } from './layout.js';
import { embeddableLogo } from './logo.js';
import { paint } from './painter.js';
import type { PaperFormat } from './paper.js';

/** Part of every cache key and of the PDF's Producer: bump it whenever the same input would print differently. */
export const rendererVersion = '1';

export interface RenderedPdf {
  bytes: Buffer;
  sha256: string;
  pages: number;
  /** The code points printed as '?' because the font has no glyph for them, as U+XXXX, in order of appearance. */
  replacedCharacters: string[];
}

export interface RenderRequest {
  printable: PrintableDocument;
  format: PaperFormat;
  branding: PrintBranding;
}

export interface Printer {
  render(request: RenderRequest): Result<RenderedPdf>;
}

const cacheSize = 256;
const logoCacheSize = 16;

/** Every text the font cannot show made printable; the QR URL is left alone (it is ASCII, and it is DGII's). */
function printableDocument(document: PrintableDocument, replaced: Set<number>): PrintableDocument {
  const clean = (value: unknown): unknown => {
    if (typeof value === 'string') return printableText(value, replaced);
    if (Array.isArray(value)) return value.map(clean);
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, clean(entry)]));
    return value;
  };
  const { qr, ...rest } = document;
  return { ...(clean(rest) as Omit<PrintableDocument, 'qr'>), qr };
}

function remember<T>(cache: Map<string, T>, limit: number, key: string, value: T): void {
  if (cache.size >= limit) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(key, value);
}

export function createPrinter(deps: { log: Logger }): Printer {
  // Rendering is a pure function of these inputs, so the bytes can be kept: the LRU holds the last 256.
  const rendered = new Map<string, RenderedPdf>();
  const logos = new Map<string, Buffer | null>();

  function logoFor(branding: PrintBranding): Buffer | null {
    if (branding.logoPng === null) return null;
    const key = branding.logoSha256 ?? sha256Hex(branding.logoPng);
    let logo = logos.get(key);
    if (logo === undefined && !logos.has(key)) {
      logo = embeddableLogo(branding.logoPng);
      remember(logos, logoCacheSize, key, logo);
    }
    return logo ?? null;
  }

  function render({ printable, format, branding }: RenderRequest): Result<RenderedPdf> {
    // status and notices are for the integrator and never printed: a status change must not miss the cache.
    const { status: _status, notices: _notices, ...printed } = printable;
    const key = sha256Hex(
      Buffer.from(
        JSON.stringify({
          printed,
          format,
          logoSha256: branding.logoSha256,
          footerNote: branding.footerNote,
          rendererVersion,
        }),
      ),
    );
    const cached = rendered.get(key);
    if (cached !== undefined) {
      rendered.delete(key);
      rendered.set(key, cached);
      return ok(cached);
    }

    const replaced = new Set<number>();
    const clean = printableDocument(printable, replaced);
    const footerNote = branding.footerNote === null ? null : printableText(branding.footerNote, replaced);
    const planned = layout(clean, format, { ...branding, footerNote }, measure);
    if (!planned.ok) return planned;
    const logoPng = format === 'a4' || format === 'carta' ? logoFor(branding) : null;
    const bytes = paint(
      planned.value,
      {
        title: `${clean.typeName} ${clean.eNCF}`,
        author: clean.issuer.legalName,
        creator: `ecf-service RI ${rendererVersion}`,
        // FechaHoraFirma as the PDF's creation date: the same document always gives the same /ID and bytes.
        date: parseDgiiTimestamp(printable.signatureDate) ?? new Date(0),
        logoPng,
      },
      measure,
    );
    const replacedCharacters = [...replaced].map(codePointName);
    if (replacedCharacters.length > 0)
      deps.log.warn(
        { documentId: printable.id, replacedCharacters },
        'RI: characters without a glyph in the font were printed as "?"',
      );
    const result: RenderedPdf = {
      bytes,
      sha256: sha256Hex(bytes),
      pages: planned.value.pages.length,
      replacedCharacters,
    };
    remember(rendered, cacheSize, key, result);
    return ok(result);
  }

  return { render };
}
