import type { ModuleParts } from '../module.js';
import { printableSchemas } from './printable.schema.js';

/** The printed representation: its data (the JSON view documents and received documents answer) and its PDF. */
export function printingModule(): ModuleParts {
  return { schemas: printableSchemas };
}
