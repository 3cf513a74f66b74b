export { printableOf, typeTitles, type PrintableContext } from './printable.js';
export { PrintableDocument, printableSchemas } from './printable.schema.js';
export { printingModule } from './printing.module.js';
