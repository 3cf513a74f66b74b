import type { ModuleParts, Platform } from '../module.js';
import { printableSchemas } from './printable.schema.js';
import { createPrintingService, type PrintingService, type PrintSettings } from './printing.service.js';

/** The printed representation: its data (the JSON view documents and received documents answer) and its PDF. */
export function printingModule(
  { log }: Platform,
  needs: { settingsOf: (companyId: string) => Promise<PrintSettings> },
): ModuleParts & { printing: PrintingService } {
  return {
    printing: createPrintingService({
      // Loaded when first needed: most processes never print, and its libraries are slow to load.
      loadPrinter: async () => (await import('./printer.js')).createPrinter({ log }),
      settingsOf: needs.settingsOf,
    }),
    schemas: printableSchemas,
  };
}
