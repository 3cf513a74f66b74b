// The printed representation (RI) of an e-CF (Informe Técnico e-CF §17): its data, read from the signed XML, and
// its PDF in A4, Letter and thermal rolls.
// The renderer (printer.ts, with pdfkit, fontkit and qrcode: a fifth of the service's start-up) is not exported: the
// printing service loads it on the first PDF asked for.
export type { Printer, RenderedPdf, RenderRequest } from './printer.js';
export type { PrintBranding } from './layout.js';
export { paperFormats, type PaperFormat } from './paper.js';
export { contingencyLegend, deferredSendingLegend, printableOf, type PrintableContext } from './printable.js';
export { PrintableDocument, printableSchemas } from './printable.schema.js';
export { printingModule } from './printing.module.js';
export {
  createPrintingService,
  type PrintedPdf,
  type PrintingService,
  type PrintSettings,
} from './printing.service.js';
export { PrintQuery, printableExample, printableResponses, replyPrintable } from './printable-reply.js';
