// Certification step 5 (research/certification.md §1): the portal takes one printed representation per slot, as
// PDF, 10 MB in all. One call gives the eleven, rendered from the accepted simulation documents, in one zip.
import { maxPrintedBytes } from '../../fiscal/certification/index.js';
import { fail, ok, type Result } from '../../platform/result.js';
import { writeZip } from '../../platform/zip.js';
import type { DocumentsService } from '../documents/index.js';
import type { PaperFormat, PrintingService } from '../printing/index.js';
import type { CertificationService } from './certification.service.js';

export interface PrintedRepresentationsZip {
  bytes: Buffer;
  filename: string;
}

/** `32<250k` is not a file name anywhere: `32-menor-250k`. */
const fileSlot = (slot: string) => slot.replace('<250k', '-menor-250k');

export function createPrintedRepresentationsExport(deps: {
  certification: CertificationService;
  documents: DocumentsService;
  printing: PrintingService;
}) {
  const { certification, documents, printing } = deps;
  return {
    async zip(companyId: string, id: string, format?: PaperFormat): Promise<Result<PrintedRepresentationsZip>> {
      const slots = await certification.printedRepresentationSlots(companyId, id);
      if (!slots.ok) return slots;
      const missing = slots.value.filter((slot) => slot.documentId === null).map((slot) => slot.slot);
      if (slots.value.length === 0 || missing.length > 0)
        return fail(
          'printed_representations_incomplete',
          slots.value.length === 0
            ? `Process ${id} has no simulation documents yet (step 4): step 5 prints them.`
            : `No accepted simulation document yet for slot ${missing.join(', ')}: every slot of step 5 needs one.`,
        );
      const settings = await printing.settingsOf(companyId, true);
      const files: { name: string; bytes: Buffer }[] = [];
      for (const slot of slots.value) {
        const printable = await documents.printable(companyId, slot.documentId ?? '');
        if (!printable.ok) return printable;
        const pdf = await printing.pdf(printable.value, settings, format);
        if (!pdf.ok) return pdf;
        files.push({ name: `${fileSlot(slot.slot)}_${pdf.value.filename}`, bytes: pdf.value.bytes });
      }
      const total = files.reduce((sum, file) => sum + file.bytes.length, 0);
      if (total > maxPrintedBytes)
        return fail(
          'printed_representations_too_large',
          `The eleven PDFs take ${String(total)} bytes, over the portal's ${String(maxPrintedBytes)} (10 MB): use a smaller logo, or 80mm for the consumer invoices.`,
        );
      return ok({
        bytes: writeZip(files.map((file) => [file.name, file.bytes])),
        filename: `representaciones-impresas-${id}.zip`,
      });
    },
  };
}

export type PrintedRepresentationsExport = ReturnType<typeof createPrintedRepresentationsExport>;
