// The PDF of a printed representation as the API hands it out: rendered from the data read from the signed XML,
// on the paper asked for or the company's default, with the company's branding, named as DGII names files.
import { ok, type Result } from '../../platform/result.js';
import type { PrintBranding } from './layout.js';
import type { PaperFormat } from './paper.js';
import type { PrintableDocument } from './printable.schema.js';
import type { Printer } from './printer.js';

export interface PrintedPdf {
  bytes: Buffer;
  /** Hex SHA-256 of the bytes: the same document, paper and branding always give the same bytes. */
  sha256: string;
  /** `{RNCEmisor}{eNCF}-{formato}.pdf`. */
  filename: string;
  format: PaperFormat;
  pages: number;
}

/** A company's branding and the paper its PDFs use when the caller names none (the companies module keeps them). */
export interface PrintSettings extends PrintBranding {
  defaultFormat: PaperFormat;
}

export interface PrintingService {
  /** The company's paper settings; `branded: false` (an e-CF another taxpayer issued) keeps its format only. */
  settingsOf(companyId: string, branded: boolean): Promise<PrintSettings>;
  pdf(printable: PrintableDocument, settings: PrintSettings, format?: PaperFormat): Promise<Result<PrintedPdf>>;
}

export function createPrintingService(deps: {
  /** The renderer, loaded on the first PDF. */
  loadPrinter: () => Promise<Printer>;
  settingsOf: (companyId: string) => Promise<PrintSettings>;
}): PrintingService {
  let printer: Promise<Printer> | undefined;
  return {
    async settingsOf(companyId, branded) {
      const settings = await deps.settingsOf(companyId);
      return branded ? settings : { ...settings, logoPng: null, logoSha256: null, footerNote: null };
    },

    async pdf(printable, settings, format = settings.defaultFormat) {
      printer ??= deps.loadPrinter();
      const rendered = (await printer).render({ printable, format, branding: settings });
      if (!rendered.ok) return rendered;
      const { bytes, sha256, pages } = rendered.value;
      return ok({ bytes, sha256, pages, format, filename: `${printable.issuer.rnc}${printable.eNCF}-${format}.pdf` });
    },
  };
}
