// The printed representation (RI) of an e-CF as PDF (Informe Técnico e-CF §17): A4, Letter and thermal rolls.
export { createPrinter, rendererVersion, type Printer, type RenderedPdf, type RenderRequest } from './printer.js';
export { linesPerPage, type PrintBranding } from './layout.js';
export { paperFormats, type PaperFormat } from './paper.js';
